// The registration point of the CUDA level-3 hooks
// (exala/detail/cuda_hooks.hpp): one atomic pointer.
#include "exala/detail/cuda_hooks.hpp"

#include <atomic>
#include <string>

#include "exala/error.hpp"

namespace exala::detail {

namespace {
std::atomic<const cuda_blas3_hooks*> registered{nullptr};
}  // namespace

void set_cuda_blas3_hooks(const cuda_blas3_hooks* hooks) noexcept {
  registered.store(hooks, std::memory_order_release);
}

const cuda_blas3_hooks& require_cuda_blas3_hooks(const char* routine) {
  const cuda_blas3_hooks* h = registered.load(std::memory_order_acquire);
  if (h == nullptr)
    throw error(std::string("exala: ") + routine +
                ": backend 'cuda' is compiled in but not registered in this program: link "
                "exala::gpu_cuda and include <exala/cuda.hpp> (or call exala::cuda::register_backend())");
  return *h;
}

}  // namespace exala::detail
