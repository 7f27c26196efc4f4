// gpu/cuda/src/getrf_small.hpp - LU with partial pivoting of a small square
// block on the device (the substripe factorizations of the stripe LU).
#pragma once

#include <cuda_runtime.h>

namespace exala::cuda {

// The largest order launch_getrf_small takes (its block lives in shared memory).
constexpr int getrf_small_max = 128;

// In place on the n x n block a (lda), queued on `stream`: dgetf2 semantics,
// piv[k] the 0-based row swapped with row k, *info = 0 or 1 + the first
// column with an exact zero pivot. piv and info in device memory.
cudaError_t launch_getrf_small(cudaStream_t stream, int n, double* a, long long lda, int* piv, int* info);

}  // namespace exala::cuda
