// exala/opencl_level23.hpp - device-resident exact gemv, trsv, gemm and trsm
// on the OpenCL device of exala/opencl.hpp.
//
// Same contracts, conventions and argument checks as exala/blas2.hpp and
// exala/blas3.hpp, and the same bits as their `reference` backend for every
// input: every output's exact sum of products is formed on the device
// (per-work-item expansions spilling into a work-group superaccumulator, as
// ExBLAS: Iakymchuk, Collange, Defour, Graillat, 2015) and rounded once,
// on the device where an error bound proves the rounding, else on the host
// with exala::round_axpby. trsv / trsm follow the blocked algorithm of
// Iakymchuk, Defour, Collange, Graillat, "Reproducible triangular solvers for
// high-performance computing" (ITNG 2015): exact panel products on the
// device, each x_i the correctly rounded quotient of its exact numerator
// (proven on the device, else exala::round_div on the host).
//
// Performance notes: every call waits for its device work (timings include
// it); gemv and gemm make one pass over their operands per chunk of 65536
// outputs; trsv launches two kernels per block of 256 rows and needs
// 1.1 KB of device scratch per row; trsm runs up to 16 right-hand sides as
// trsv calls, and with more solves the diagonal blocks on the host (not
// tuned).
//
// Matrices and vectors are exala::opencl::buffer objects (doubles on the
// current device), indexed from element 0 exactly as the host routines index
// their pointers (negative increments walk backwards from the end of the
// vector). Every element an argument must touch has to lie in its buffer, else
// exala::invalid_argument naming it ("a", "b", "c", "x", "y"). Including this
// header also registers the `opencl` backend of blas2 / blas3
// (exala::backend::opencl on host pointers: upload, these routines, download).
#pragma once

#include <cstdint>

#include "exala/blas3.hpp"
#include "exala/opencl.hpp"

namespace exala::opencl {

// y = alpha op(A) x + beta y, each y_i correctly rounded once (exala::gemv).
void gemv(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha, const buffer& a,
          std::int64_t lda, const buffer& x, std::int64_t incx, double beta, buffer& y,
          std::int64_t incy, rounding mode = rounding::to_nearest_even);

// Solves op(A) x = b in place, x_i = round((b_i - sum_j op(A)_ij x_j) / op(A)_ii)
// of the exact numerator (exala::trsv).
void trsv(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, const buffer& a,
          std::int64_t lda, buffer& x, std::int64_t incx, rounding mode = rounding::to_nearest_even);

// C = alpha op(A) op(B) + beta C, each entry correctly rounded once (exala::gemm).
void gemm(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
          double alpha, const buffer& a, std::int64_t lda, const buffer& b, std::int64_t ldb,
          double beta, buffer& c, std::int64_t ldc, rounding mode = rounding::to_nearest_even);

// B := X with op(A) X = alpha B (left) or X op(A) = alpha B (right); every
// column (left) or row (right) of X is what exala::trsv gives (exala::trsm).
void trsm(layout lay, side sd, uplo ul, transpose trans, diag dg, std::int64_t m, std::int64_t n,
          double alpha, const buffer& a, std::int64_t lda, buffer& b, std::int64_t ldb,
          rounding mode = rounding::to_nearest_even);

namespace detail {
// Entries rounded so far (this process) by gemv / gemm on the device and by
// the exact host fallback: for tests and benchmarks (results never depend on it).
struct level23_stats {
  std::int64_t device_rounded = 0, host_rounded = 0;
};
level23_stats level23_counts() noexcept;
// Registers the blas2 / blas3 hooks (exala/detail/opencl_hooks2.hpp and
// opencl_hooks3.hpp); register_backend() calls it too. Idempotent.
void register_level23() noexcept;
inline const bool level23_registered = (register_level23(), true);
}  // namespace detail

}  // namespace exala::opencl
