// gpu/cuda/src/cuda_check.hpp - the CUDA, cuBLAS and cuSOLVER status checks
// (each failure an exala::error naming the call) and the device choice
// (EXALA_CUDA_DEVICE), shared by the stripe engine and the cuda backend.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstdlib>
#include <string>

#include "exala/error.hpp"

namespace exala::cuda::detail {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw exala::error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}
inline void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw exala::error(std::string("cuBLAS: ") + what + ": " + cublasGetStatusString(s));
}
inline void check(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw exala::error(std::string("cuSOLVER: ") + what + ": status " + std::to_string(int(s)));
}

// The device index of EXALA_CUDA_DEVICE (default 0); exala::error when there
// is no device, invalid_argument naming the variable for a bad value.
inline int chosen_device() {
  const char* env = std::getenv("EXALA_CUDA_DEVICE");
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) throw exala::error("CUDA: no device found");
  if (!env || !*env) return 0;
  char* end = nullptr;
  const long d = std::strtol(env, &end, 10);
  if (*end != '\0' || d < 0 || d >= count)
    throw exala::invalid_argument("EXALA_CUDA_DEVICE", "'" + std::string(env) + "' is not a device index in 0.." +
                                                          std::to_string(count - 1));
  return int(d);
}

}  // namespace exala::cuda::detail
