// gpu/cuda/src/laswp.hpp - the row-interchange kernel of the CUDA engine.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace exala::cuda {

// dlaswp on the device, queued on `stream`: for i = k1 .. k2-1 in order, swap
// rows i and ipiv[i] (0-based, ipiv in device memory) of the ncols columns of
// a (lda). Returns the launch status.
cudaError_t launch_laswp(cudaStream_t stream, std::int64_t ncols, double* a, std::int64_t lda,
                         std::int64_t k1, std::int64_t k2, const std::int64_t* ipiv);

}  // namespace exala::cuda
