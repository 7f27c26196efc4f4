// The registration point of the OpenCL level-3 hooks
// (exala/detail/opencl_hooks3.hpp): one atomic pointer.
#include "exala/detail/opencl_hooks3.hpp"

#include <atomic>

#include "exala/detail/opencl_hooks.hpp"

namespace exala::detail {

namespace {
std::atomic<const opencl_blas3_hooks*> registered{nullptr};
}  // namespace

void set_opencl_blas3_hooks(const opencl_blas3_hooks* hooks) noexcept {
  registered.store(hooks, std::memory_order_release);
}

const opencl_blas3_hooks* get_opencl_blas3_hooks() noexcept {
  return registered.load(std::memory_order_acquire);
}

const opencl_blas3_hooks& require_opencl_blas3_hooks(const char* routine) {
  const opencl_blas3_hooks* h = get_opencl_blas3_hooks();
  if (h == nullptr) throw_opencl_not_registered(routine);
  return *h;
}

}  // namespace exala::detail
