// tests/cuda_shim/cublas_v2.h - the cuBLAS calls of gemm_ozaki8.cu on the
// host (test_cuda_drivers): cublasGemmStridedBatchedEx for int8 x int8 ->
// int32 only, with the integer path's documented requirements checked
// (alpha 1 and beta 0, lda and ldb multiples of 4, 32-bit aligned
// operands: CUBLAS_STATUS_NOT_SUPPORTED otherwise, as cuBLAS answers).
#pragma once

#include <cstdint>

#include "cuda_runtime.h"

enum cublasStatus_t { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_SUPPORTED = 15, CUBLAS_STATUS_INVALID_VALUE = 7 };
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum cublasPointerMode_t { CUBLAS_POINTER_MODE_HOST = 0 };
enum cudaDataType { CUDA_R_8I = 3, CUDA_R_32I = 10 };
enum cublasComputeType_t { CUBLAS_COMPUTE_32I = 72 };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1 };
struct cublasContext {};
using cublasHandle_t = cublasContext*;

inline const char* cublasGetStatusString(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "success" : "emulated cuBLAS: not supported";
}
inline cublasStatus_t cublasCreate(cublasHandle_t* h) {
  static cublasContext one;
  *h = &one;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetPointerMode(cublasHandle_t, cublasPointerMode_t) { return CUBLAS_STATUS_SUCCESS; }

// C_t = op(A_t) op(B_t) for t < batch, column-major, int8 inputs, int32 sums.
inline cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m,
                                                 int n, int k, const void* alpha, const void* a, cudaDataType at,
                                                 int lda, long long sa, const void* b, cudaDataType bt, int ldb,
                                                 long long sb, const void* beta, void* c, cudaDataType ct, int ldc,
                                                 long long sc, int batch, cublasComputeType_t comp, cublasGemmAlgo_t) {
  if (at != CUDA_R_8I || bt != CUDA_R_8I || ct != CUDA_R_32I || comp != CUBLAS_COMPUTE_32I)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (*static_cast<const std::int32_t*>(alpha) != 1 || *static_cast<const std::int32_t*>(beta) != 0 || lda % 4 != 0 ||
      ldb % 4 != 0 || reinterpret_cast<std::uintptr_t>(a) % 4 != 0 || reinterpret_cast<std::uintptr_t>(b) % 4 != 0)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (ldc < m || lda < (ta == CUBLAS_OP_N ? m : k) || ldb < (tb == CUBLAS_OP_N ? k : n)) return CUBLAS_STATUS_INVALID_VALUE;
  const auto* A = static_cast<const std::int8_t*>(a);
  const auto* B = static_cast<const std::int8_t*>(b);
  auto* C = static_cast<std::int32_t*>(c);
  for (int t = 0; t < batch; ++t)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        std::int64_t s = 0;
        for (int l = 0; l < k; ++l) {
          const std::int8_t x = ta == CUBLAS_OP_N ? A[t * sa + i + static_cast<long long>(l) * lda]
                                                  : A[t * sa + l + static_cast<long long>(i) * lda];
          const std::int8_t y = tb == CUBLAS_OP_N ? B[t * sb + l + static_cast<long long>(j) * ldb]
                                                  : B[t * sb + j + static_cast<long long>(l) * ldb];
          s += static_cast<std::int64_t>(x) * y;
        }
        C[t * sc + i + static_cast<long long>(j) * ldc] = static_cast<std::int32_t>(s);  // wraps as int32 would
      }
  return CUBLAS_STATUS_SUCCESS;
}
