// exala/blas2.hpp - correctly rounded gemv and reproducible trsv.
//
// gemv: y_i = round(alpha * sum_j op(A)_ij x_j + beta * y_i), each y_i
// rounded once from the exact value (every product and sum held without
// error, then exala::round_axpby), so every backend, thread count and block
// size gives the same bits. After Iakymchuk, Collange, Defour, Graillat,
// "ExBLAS: reproducible and accurate BLAS library" (2015).
//
// trsv: solves op(A) x = b in place (x holds b on entry), each x_i the
// correctly rounded quotient round((b_i - sum_{j before i} op(A)_ij x_j) / op(A)_ii)
// of the exact numerator (or the rounded numerator itself for a unit
// diagonal), computed by the blocked algorithm of Iakymchuk, Defour,
// Collange, Graillat, "Reproducible triangular solvers for high-performance
// computing" (ITNG 2015): diagonal-block substitution plus exact panel
// updates, with the seed's two-division correction as the first guess of the
// quotient, made exact by comparisons (exala::round_div). Since each x_i is a
// function of the exact numerator only, the bits do not depend on the
// backend, the thread count or exec.block.
//
// Conventions follow CBLAS (cblas_dgemv / cblas_dtrsv argument order, strides
// as in exala/blas1.hpp: a negative increment walks backwards, written vectors
// may not have increment 0 unless they have one element). Differences from
// reference BLAS, chosen so that the contract above holds exactly:
//  * an empty sum (n == 0 for op N) still gives y_i = round(beta * y_i);
//  * alpha == 0: A and x are not read (y_i = round(beta * y_i));
//  * beta == 0: y is not read on entry (NaN there does not propagate).
// Bad arguments throw exala::invalid_argument naming the argument; an exact
// zero on a non-unit diagonal throws exala::singular_matrix naming the row.
// Among them, before anything is read or written (also on the paths that
// read neither A nor x): a matrix with more than 2^60 - 1 entries (naming
// "a"), a leading dimension or an increment whose largest address would
// pass 2^60 - 1 elements (naming lda, incx or incy; exala/checked.hpp).
// exec.mode selects the rounding direction of every result entry.
// Aliasing: gemv's y must not overlap A or x (the result is then undefined;
// the Eigen adapters copy an overlapping input first).
#pragma once

#include <cstdint>

#include "exala/backend.hpp"
#include "exala/error.hpp"

namespace exala {

enum class layout { row_major, col_major };
enum class transpose { none, trans };  // real data: conjugate transpose = transpose
enum class uplo { upper, lower };
enum class diag { non_unit, unit };

// y = alpha * op(A) * x + beta * y; A is m x n in `lay` with leading dimension
// lda (>= max(1, n) row-major, >= max(1, m) column-major); op(A) is m x n
// (trans == none: x has n elements, y has m) or n x m (x has m, y has n).
void gemv(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha,
          const double* a, std::int64_t lda, const double* x, std::int64_t incx, double beta,
          double* y, std::int64_t incy, const exec& ex = {});

// Solves op(A) x = b for triangular n x n A (only the `ul` triangle is read;
// with diag::unit the diagonal is not read and taken as 1). x holds b on entry.
void trsv(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, const double* a,
          std::int64_t lda, double* x, std::int64_t incx, const exec& ex = {});

namespace detail {
// exala::gemv's argument checks (each error names the argument; the exec
// aside), shared with the device-pointer API exala::cuda::gemv.
void check_gemv_arguments(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha,
                          const double* a, std::int64_t lda, const double* x, std::int64_t incx,
                          const double* y, std::int64_t incy);
// exala::trsv's argument checks (each error names the argument; A's
// pointer only when reads_a), shared with exala::cuda::trsv.
void check_trsv_arguments(layout lay, std::int64_t n, const double* a, std::int64_t lda, const double* x,
                          std::int64_t incx, bool reads_a);
// trsv with the right-hand side scaled exactly: solves op(A) x = alpha b,
// x_i = round((alpha b_i - sum_j op(A)_ij x_j) / op(A)_ii), alpha * b_i an
// exact product (the building block of trsm; alpha == 1 is trsv). `routine`
// names the caller in error messages.
void trsv_scaled(const char* routine, layout lay, uplo ul, transpose trans, diag dg,
                 std::int64_t n, double alpha, const double* a, std::int64_t lda, double* x,
                 std::int64_t incx, const exec& ex);
// Block blk of a blocked triangular solve over n rows in blocks of nb, in
// solve order (forward: from row 0; backward: from row n - 1): its rows
// [i0, i1) and the rows [k0, k1) solved before it (trsv and blocked trsm).
struct solve_block {
  std::int64_t i0, i1, k0, k1;
};
inline solve_block block_of(std::int64_t blk, std::int64_t nb, std::int64_t n, bool forward) noexcept {
  const std::int64_t i0 = forward ? blk * nb : (n - (blk + 1) * nb > 0 ? n - (blk + 1) * nb : 0);
  const std::int64_t i1 = forward ? (i0 + nb < n ? i0 + nb : n) : n - blk * nb;
  return {i0, i1, forward ? 0 : i1, forward ? i0 : n};
}
// Row i of that solve from its exact numerator: x_i = round((alpha b_i +
// sum_j op(A)_ij xneg_j) / op(A)_ii) over the j solved before i (j < i when
// the solve runs forward: lower with N, upper with T; j > i otherwise), with
// xneg_j = -x_j (xneg has n elements, only those j are read). Zero signs as
// trsv's exact path (a zero numerator takes the IEEE sign of the exact sum).
// The fallback of every bounded fast path (trsv, blocked trsm): no checks.
double trsv_entry_exact(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, double alpha,
                        double bi, const double* a, std::int64_t lda, const double* xneg,
                        std::int64_t i, const exec& ex);
}  // namespace detail

}  // namespace exala
