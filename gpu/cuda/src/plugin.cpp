// gpu/cuda/src/plugin.cpp - libexala_cuda.so, backend::cuda loaded on
// demand. The registry (exala/detail/backend_hooks.hpp) dlopens this module
// the first time a program asks for a cuda table that nothing registered,
// and calls its one exported function, which hands this module's tables to
// the caller's registry. So `exala`, libexala, libexala_blas and the
// Fortran/Eigen programs over them start without loading CUDA's libraries
// (cuBLAS and cuSOLVER alone take 0.1-0.5 s to map and initialise) and still
// run the cuda backend and the cuda stripe engine when asked.
//
// The module carries its own copy of the ExaLA layers below it and exports
// nothing else (plugin.map), so its code never binds to the loader's copies:
// the two agree on the tables' layout because both come from one build
// (exala::detail::plugin_abi and the version are checked).
#include <cstring>

#include "exala/detail/backend_hooks.hpp"
#include "plugin_tables.hpp"

extern "C" __attribute__((visibility("default"))) int exala_cuda_plugin_register(
    int abi, const char* version, exala::detail::plugin_register_fn host_register) {
  if (abi != exala::detail::plugin_abi || version == nullptr || std::strcmp(version, EXALA_PLUGIN_VERSION) != 0)
    return 1;
  try {
    using exala::backend;
    using exala::detail::hook_kind;
    host_register(backend::cuda, hook_kind::blas3, exala::cuda::detail::blas3_table());
    host_register(backend::cuda, hook_kind::stripe_engine, exala::cuda::detail::stripe_engine_table());
    return 0;
  } catch (...) {
    return 2;
  }
}
