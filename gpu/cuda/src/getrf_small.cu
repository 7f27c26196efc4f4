// gpu/cuda/src/getrf_small.cu - LU with partial pivoting of a small square
// block (n <= 128) in one thread block, in shared memory: the substripe
// factorizations of the stripe LU, where cusolverDnDgetrf's many launches
// per column dominate. Unblocked right-looking elimination as LAPACK dgetf2
// (pivot: the first row of largest magnitude; multipliers by division), in a
// fixed order, so the bits depend only on the block. Compiled with
// --fmad=false like every numeric target (no contraction into FMA).
#include "getrf_small.hpp"

namespace exala::cuda {
namespace {

constexpr int threads = 256;

__global__ void getrf_small_kernel(int n, double* a, long long lda, int* piv, int* info) {
  extern __shared__ double s[];  // n x n, column-major, ld n
  __shared__ double best_v[threads];
  __shared__ int best_i[threads];
  const int t = threadIdx.x;
  for (int e = t; e < n * n; e += threads) s[e] = a[(e % n) + (long long)(e / n) * lda];
  if (t == 0) *info = 0;
  __syncthreads();
  for (int k = 0; k < n; ++k) {
    // Pivot search in rows k..n-1 of column k: largest |s|, ties to the first row.
    double v = -1.0;
    int idx = n;
    for (int i = k + t; i < n; i += threads) {
      const double m = fabs(s[i + k * n]);
      if (m > v) v = m, idx = i;  // ascending i per thread: the first maximum kept
    }
    best_v[t] = v;
    best_i[t] = idx;
    __syncthreads();
    for (int w = threads / 2; w > 0; w >>= 1) {
      if (t < w) {
        const double ov = best_v[t + w];
        const int oi = best_i[t + w];
        if (ov > best_v[t] || (ov == best_v[t] && oi < best_i[t])) best_v[t] = ov, best_i[t] = oi;
      }
      __syncthreads();
    }
    const int p = best_i[0] < n ? best_i[0] : k;  // only NaNs below: no swap (the pivot check reports it)
    if (t == 0) piv[k] = p;
    if (p != k)
      for (int j = t; j < n; j += threads) {
        const double x = s[k + j * n];
        s[k + j * n] = s[p + j * n];
        s[p + j * n] = x;
      }
    __syncthreads();
    const double d = s[k + k * n];
    if (d == 0.0) {  // an exact zero pivot: recorded, the column left as it is (dgetf2)
      if (t == 0 && *info == 0) *info = k + 1;
      __syncthreads();
      continue;
    }
    for (int i = k + 1 + t; i < n; i += threads) s[i + k * n] = s[i + k * n] / d;
    __syncthreads();
    const int r = n - k - 1;
    for (int e = t; e < r * r; e += threads) {
      const int i = k + 1 + e % r, j = k + 1 + e / r;
      s[i + j * n] = s[i + j * n] - s[i + k * n] * s[k + j * n];
    }
    __syncthreads();
  }
  for (int e = t; e < n * n; e += threads) a[(e % n) + (long long)(e / n) * lda] = s[e];
}

}  // namespace

cudaError_t launch_getrf_small(cudaStream_t stream, int n, double* a, long long lda, int* piv, int* info) {
  const std::size_t shared = std::size_t(n) * std::size_t(n) * sizeof(double);
  const cudaError_t e =
      cudaFuncSetAttribute(getrf_small_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
  if (e != cudaSuccess) return e;
  getrf_small_kernel<<<1, threads, shared, stream>>>(n, a, lda, piv, info);
  return cudaGetLastError();
}

}  // namespace exala::cuda
