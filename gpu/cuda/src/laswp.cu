// gpu/cuda/src/laswp.cu - row interchanges as LAPACK dlaswp (exact: moves only).
#include "laswp.hpp"

namespace exala::cuda {
namespace {

// One thread per column; the swaps of a column in order, as dlaswp.
__global__ void laswp_kernel(std::int64_t ncols, double* a, std::int64_t lda, std::int64_t k1,
                             std::int64_t k2, const std::int64_t* ipiv) {
  const std::int64_t c = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncols) return;
  double* col = a + c * lda;
  for (std::int64_t i = k1; i < k2; ++i) {
    const std::int64_t p = ipiv[i];
    if (p != i) {
      const double t = col[i];
      col[i] = col[p];
      col[p] = t;
    }
  }
}

}  // namespace

cudaError_t launch_laswp(cudaStream_t stream, std::int64_t ncols, double* a, std::int64_t lda,
                         std::int64_t k1, std::int64_t k2, const std::int64_t* ipiv) {
  const int threads = 256;
  const auto blocks = static_cast<unsigned>((ncols + threads - 1) / threads);
  laswp_kernel<<<blocks, threads, 0, stream>>>(ncols, a, lda, k1, k2, ipiv);
  return cudaGetLastError();
}

}  // namespace exala::cuda
