// gpu/cuda/src/plugin_tables.hpp - the hook tables of exala::gpu_cuda, for
// register_backend() / register_stripe_engine() and for the plugin
// (plugin.cpp), which hands them to the registry of the program that
// loaded it.
#pragma once

namespace exala::cuda::detail {
const void* blas3_table() noexcept;  // exala::detail::cuda_blas3_hooks
const void* stripe_engine_table();   // stripe_engine_hooks (may throw bad_alloc)
}  // namespace exala::cuda::detail
