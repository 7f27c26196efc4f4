// The registration point of the OpenCL level-2 hooks
// (exala/detail/opencl_hooks2.hpp): one atomic pointer.
#include "exala/detail/opencl_hooks2.hpp"

#include <atomic>

#include "exala/detail/opencl_hooks.hpp"

namespace exala::detail {

namespace {
std::atomic<const opencl_blas2_hooks*> registered{nullptr};
}  // namespace

void set_opencl_blas2_hooks(const opencl_blas2_hooks* hooks) noexcept {
  registered.store(hooks, std::memory_order_release);
}

const opencl_blas2_hooks* get_opencl_blas2_hooks() noexcept {
  return registered.load(std::memory_order_acquire);
}

const opencl_blas2_hooks& require_opencl_blas2_hooks(const char* routine) {
  const opencl_blas2_hooks* h = get_opencl_blas2_hooks();
  if (h == nullptr) throw_opencl_not_registered(routine);
  return *h;
}

}  // namespace exala::detail
