// exala/cuda.hpp - ExaLA on CUDA devices: the cuda backend (the exact gemm
// on INT8 tensor cores), correctly rounded dot and gemv on device pointers,
// and the CUDA engine of the stripe LU (cuBLAS
// DGEMM/DTRSM, cuSOLVER DGETRF, selected with stripe_lu_options::engine =
// "cuda" or `exala solve --engine cuda`).
//
// A program that includes this header (and links exala::gpu_cuda) has both
// registered before main(); register_backend() and register_stripe_engine()
// do the same explicitly. The device is EXALA_CUDA_DEVICE (an index;
// default 0).
#pragma once

#include <cstdint>

#include "exala/blas2.hpp"
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

// The correctly rounded dot product of device vectors x and y (BLAS
// increments, negative ones included): Dot2 chains in one pass at memory
// speed, decided from a proven bound; when the bound cannot decide (inf or
// NaN, heavy cancellation, a tie) the vectors are copied to the host and the
// dot formed exactly. The bits of exala::dot. Arguments as exala::dot.
double dot(std::int64_t n, const double* x, std::int64_t incx, const double* y, std::int64_t incy,
           rounding mode = rounding::to_nearest_even);
// The same pass for the correctly rounded sum, sum of magnitudes and
// Euclidean norm (the correctly rounded square root of the exact sum of
// squares) of a device vector: the bits of exala::sum / asum / nrm2.
double sum(std::int64_t n, const double* x, std::int64_t incx, rounding mode = rounding::to_nearest_even);
double asum(std::int64_t n, const double* x, std::int64_t incx, rounding mode = rounding::to_nearest_even);
double nrm2(std::int64_t n, const double* x, std::int64_t incx, rounding mode = rounding::to_nearest_even);

// y = alpha op(A) x + beta y on device memory, each y_i the correctly
// rounded value of the exact alpha sum + beta y_i (the bits of exala::gemv):
// Dot2 per output with a proven bound in one pass over A; undecided outputs
// are formed exactly on the host from their line of A. Arguments as
// exala::gemv (beta == 0: y is not read).
void gemv(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha, const double* a,
          std::int64_t lda, const double* x, std::int64_t incx, double beta, double* y, std::int64_t incy,
          rounding mode = rounding::to_nearest_even);

// Solves op(A) x = b in place on device memory, each x_i the correctly
// rounded quotient of its exact numerator (the bits of exala::trsv):
// blocks of 128 rows, the known part of every later row's numerator as a
// Dot2 chain updated by one kernel per block (memory speed), the diagonal
// block by one CUDA block in 128 steps; a row its bound cannot decide is
// formed exactly on the host from its row of A, and the solve goes on.
// Arguments as exala::trsv (a zero diagonal: exala::singular_matrix).
void trsv(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, const double* a, std::int64_t lda,
          double* x, std::int64_t incx, rounding mode = rounding::to_nearest_even);

// What the last dot or gemv of this thread did (tests and benchmarks).
struct blas12_stats {
  int chains = 0;                 // Dot2 chains per chunk (dot) or per output (gemv)
  std::int64_t host_outputs = 0;  // results formed exactly on the host
};
blas12_stats last_blas12_stats() noexcept;

namespace detail {
inline const bool stripe_engine_registered = register_stripe_engine();
inline const bool backend_registered = register_backend();
}  // namespace detail

}  // namespace exala::cuda
