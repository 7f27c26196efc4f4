// exala/detail/backend_hooks.hpp - the one registration point of the code
// that layers above plug into the layers below: the backends of the
// EXALA_BACKENDS list (exala/backend.hpp) whose code lives above the front
// ends (opencl: exala::gpu, cuda: exala::gpu_cuda), and the system BLAS that
// the drop-in library hands to the stripe LU's CPU engine.
//
// A backend's code fills static tables and registers each under its kind
// when the program links it and includes its header (exala/opencl.hpp,
// exala/cuda.hpp; their register_backend()): the front ends keep checking
// arguments and handling the conventions that read no data, then call the
// table. The tables' types stay with the layer that calls them:
//   blas1          opencl_blas1_hooks  (exala/detail/opencl_hooks.hpp)
//   blas2          opencl_blas2_hooks  (exala/detail/opencl_hooks2.hpp)
//   blas3          opencl_blas3_hooks, cuda_blas3_hooks (exala/detail/opencl_hooks3.hpp, cuda_hooks.hpp)
//   stripe_engine  stripe_engine_hooks (solvers/src/stripe/engine.hpp)
#pragma once

#include <string>

#include "exala/backend.hpp"

namespace exala::detail {

enum class hook_kind : int { blas1, blas2, blas3, stripe_engine };

// Registers `table` (static storage; nullptr removes it) for (b, k).
// Thread-safe; the last registration wins.
void register_hooks(backend b, hook_kind k, const void* table) noexcept;
// The table registered for (b, k), or nullptr. backend::cuda, when built,
// is loaded on demand: if nothing registered a cuda table, the first such
// call loads the plugin libexala_cuda.so (gpu/cuda/src/plugin.cpp) once,
// which registers its tables here, so that a program that never asks for
// cuda never loads CUDA's libraries. The plugin is EXALA_CUDA_PLUGIN (a
// path) if set, else libexala_cuda.so beside the module that holds this
// registry (the executable or libexala*.so), in ../lib from it, in the
// installed lib directory, or on the loader's search path.
const void* registered_hooks(backend b, hook_kind k) noexcept;
// Why backend b's plugin could not be loaded ("" when it was not tried,
// loaded, or b has none): for the "not registered" errors.
std::string plugin_load_error(backend b);

// The plugin's one entry point, exala_cuda_plugin_register(plugin_abi,
// version, register_hooks): 0 when it registered its tables.
inline constexpr int plugin_abi = 1;
using plugin_register_fn = void (*)(backend, hook_kind, const void*);

// The error of every front end when backend b is compiled in but its code
// was not registered in this program (`routine`, if not null, opens the
// message, which says what to link and include).
[[noreturn]] void throw_not_registered(backend b, const char* routine);

template <class Table>
const Table* hooks(backend b, hook_kind k) noexcept {
  return static_cast<const Table*>(registered_hooks(b, k));
}
template <class Table>
const Table& require_hooks(backend b, hook_kind k, const char* routine) {
  const Table* t = hooks<Table>(b, k);
  if (t == nullptr) throw_not_registered(b, routine);
  return *t;
}

// The system BLAS under ExaLA's drop-in BLAS: when libexala_blas is
// preloaded, dgemm_ and friends resolve to its exact routines; it exports a
// lookup of the next library's symbols (exala_blas_abi_next, dlsym(RTLD_NEXT)
// from inside it) for code that wants the system's fast routines (the stripe
// LU's CPU engine). The drop-in library cannot register it here: it is
// another module, and an executable exports no registry to it; so the lookup
// is found by name, in this one place. nullptr: no drop-in library loaded
// (the linked symbols are the system's).
using symbol_lookup = void* (*)(const char* name);
symbol_lookup system_blas_lookup() noexcept;

}  // namespace exala::detail
