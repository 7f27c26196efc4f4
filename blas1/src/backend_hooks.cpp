// The registration point of exala/detail/backend_hooks.hpp: one atomic
// pointer per (backend, kind); the system BLAS lookup.
#include "exala/detail/backend_hooks.hpp"

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <string>

#include "exala/error.hpp"

namespace exala::detail {

namespace {

constexpr std::size_t backends = 0
#define EXALA_COUNT_(name, desc) +1
    EXALA_BACKENDS(EXALA_COUNT_)
#undef EXALA_COUNT_
    ;
constexpr std::size_t kinds = std::size_t(hook_kind::stripe_engine) + 1;

std::array<std::atomic<const void*>, backends * kinds> tables{};

std::atomic<const void*>& slot(backend b, hook_kind k) {
  return tables[std::size_t(b) * kinds + std::size_t(k)];
}

// The library that holds a backend's code.
const char* library_of(backend b) {
  return b == backend::opencl ? "exala::gpu" : b == backend::cuda ? "exala::gpu_cuda" : "exala";
}

}  // namespace

void register_hooks(backend b, hook_kind k, const void* table) noexcept {
  slot(b, k).store(table, std::memory_order_release);
}

const void* registered_hooks(backend b, hook_kind k) noexcept {
  return slot(b, k).load(std::memory_order_acquire);
}

void throw_not_registered(backend b, const char* routine) {
  const std::string name(to_string(b));
  throw error(std::string("exala: ") + (routine ? std::string(routine) + ": " : std::string()) +
              "backend '" + name + "' is compiled in but not registered in this program: link " +
              library_of(b) + " and include <exala/" + name + ".hpp> (or call exala::" + name +
              "::register_backend())");
}

symbol_lookup system_blas_lookup() noexcept {
  return reinterpret_cast<symbol_lookup>(dlsym(RTLD_DEFAULT, "exala_blas_abi_next"));
}

}  // namespace exala::detail
