// exala/cuda.hpp - ExaLA on CUDA devices: the cuda backend (the exact gemm
// on INT8 tensor cores) and the CUDA engine of the stripe LU (cuBLAS
// DGEMM/DTRSM, cuSOLVER DGETRF, selected with stripe_lu_options::engine =
// "cuda" or `exala solve --engine cuda`).
//
// A program that includes this header (and links exala::gpu_cuda) has both
// registered before main(); register_backend() and register_stripe_engine()
// do the same explicitly. The device is EXALA_CUDA_DEVICE (an index;
// default 0).
#pragma once

#include <cstdint>

#include "exala/blas3.hpp"

namespace exala::cuda {

// Registers the "cuda" stripe LU engine (idempotent); false if that failed.
bool register_stripe_engine() noexcept;
// Registers backend::cuda's gemm with the blas3 front end (idempotent).
bool register_backend() noexcept;
// The number of CUDA devices (0 when there is none or no driver).
int device_count() noexcept;

// C = alpha op(A) op(B) + beta C on device memory (a, b, c are device
// pointers: cudaMalloc'd or managed), every entry the correctly rounded
// alpha S_ij + beta C_ij of the exact S_ij in direction `mode`: the same
// bits as exala::gemm on every backend. Method: the 8-bit Ozaki scheme II
// (exala/detail/ozaki8.hpp): residue products on INT8 tensor cores
// (cublasGemmStridedBatchedEx, int32 sums), reconstruction and rounding in
// CUDA kernels; the entries the device cannot decide (inf/NaN lines, exact
// zero results, results outside [2^-960, 2^1022], undecided roundings) are
// formed exactly on the host. Arguments as exala::gemm (CBLAS order and
// conventions); exala::invalid_argument names a bad one. Synchronous: the
// call returns when C is final.
void gemm(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
          double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
          double beta, double* c, std::int64_t ldc, rounding mode = rounding::to_nearest_even);

// What the last gemm of this thread did (tests and benchmarks).
struct gemm_stats {
  int moduli = 0;                 // INT8 GEMMs per k-chunk and panel
  int wa = 0, wb = 0;             // integer widths of the rows / columns
  int chunks = 0, panels = 0;     // k-chunks, C panels
  bool truncated = false;         // some line was truncated (bounded path)
  std::int64_t host_entries = 0;  // entries formed exactly on the host
};
gemm_stats last_gemm_stats() noexcept;

namespace detail {
inline const bool stripe_engine_registered = register_stripe_engine();
inline const bool backend_registered = register_backend();
}  // namespace detail

}  // namespace exala::cuda
