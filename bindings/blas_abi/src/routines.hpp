// routines.hpp - internal to libexala_blas.so: the BLAS routines with
// reference-BLAS (column-major Fortran) semantics, shared by the Fortran
// symbols and the CBLAS wrappers.
//
// Option arguments are single characters compared case-insensitively as
// LSAME does ('N', 'T', 'C', 'U', 'L', 'L'eft, 'R'ight, 'U'nit, 'N'on-unit).
// The level-2/3 routines check their arguments in the reference's order and
// return INFO: 0 after doing the work, or the reference's parameter number
// of the first bad argument, in which case nothing was read or written (the
// caller reports it through XERBLA or cblas_xerbla). Sizes and increments
// are 32-bit ints (LP64 BLAS).
//
// Results: every computed entry is correctly rounded (one rounding of the
// exact value, round to nearest even) by the exala C++ layers, on the
// backend and thread count of abi_exec(), so the bits do not depend on
// either. Quick returns, alpha == 0 and beta == 0 follow the reference.
#pragma once

namespace exala::blas_abi {

// ---------------------------------------------------------------- level 1
// (the reference checks nothing here; n <= 0 returns at once)

// Correctly rounded x.y; increments may be 0 (repeat the element) or
// negative (the reference's backward walk). n <= 0 gives 0; an exact zero
// is +0, as the reference (accumulating from +0) gives.
double dot(int n, const double* x, int incx, const double* y, int incy) noexcept;
// Correctly rounded sum of |x_i|; n <= 0 or incx <= 0 gives 0 (reference).
double asum(int n, const double* x, int incx) noexcept;
// Correctly rounded Euclidean norm; n <= 0 gives 0; any increment as
// LAPACK >= 3.10 dnrm2.f90 (negative walks backwards, 0 repeats x_1).
double nrm2(int n, const double* x, int incx) noexcept;
// y_i = round(alpha x_i + y_i), one rounding (std::fma); n <= 0 or
// alpha == 0 returns at once. incy == 0 with n > 1 applies the updates to
// y_1 one after another in the reference's order, each one rounding.
void axpy(int n, double alpha, const double* x, int incx, double* y, int incy) noexcept;
// x_i = round(alpha x_i); n <= 0 or incx <= 0 does nothing (reference).
void scal(int n, double alpha, double* x, int incx) noexcept;
// y_i = x_i bit for bit; incy == 0 leaves the last element copied in y_1.
void copy(int n, const double* x, int incx, double* y, int incy) noexcept;
// Exchanges x_i and y_i bit for bit; zero increments as the reference's loop.
void swap(int n, double* x, int incx, double* y, int incy) noexcept;
// 1-based index of the first element of largest |x_i| with the reference's
// comparisons (|x_i| > max, so a NaN after the first element is skipped);
// 0 when n < 1 or incx <= 0.
int iamax(int n, const double* x, int incx) noexcept;
// Plane rotation: x_i' = round(c x_i + s y_i), y_i' = round(c y_i - s x_i),
// each correctly rounded (exact products, one rounding). Zero increments are
// applied element after element in the reference's order.
void rot(int n, double* x, int incx, double* y, int incy, double c, double s) noexcept;
// Modified plane rotation with H from param (flag param[0] as the
// reference: < 0 and not -2 the full H, 0, > 0 (or NaN) the (1, -1) form;
// -2 or n <= 0 returns): x_i' = round(h11 x_i + h12 y_i), y_i' =
// round(h21 x_i + h22 y_i), each one rounding of the exact two-term sum
// (exala::rotm). Zero increments as rot (DROTM).
void rotm(int n, double* x, int incx, double* y, int incy, const double* param) noexcept;
// Givens rotation (exala::rotg): the reference 3.10 rules for the special
// cases and z, r the correctly rounded norm with the sign of the larger
// input, c = a / r and s = b / r rounded (DROTG). a := r, b := z.
void rotg(double* a, double* b, double* c, double* s) noexcept;

// ---------------------------------------------------------------- level 2

// Correctly rounded: y_i = round(alpha (op(A) x)_i + beta y_i) (DGEMV).
int gemv(char trans, int m, int n, double alpha, const double* a, int lda, const double* x,
         int incx, double beta, double* y, int incy) noexcept;
// Correctly rounded: a_ij = round(a_ij + alpha x_i y_j), the triple product
// exact (a gemm with k = 1 and beta = 1) (DGER).
int ger(int m, int n, double alpha, const double* x, int incx, const double* y, int incy,
        double* a, int lda) noexcept;
// Correctly rounded: a_ij = round(a_ij + alpha x_i x_j) on the uplo
// triangle only, the triple product exact (exala::syr) (DSYR).
int syr(char uplo, int n, double alpha, const double* x, int incx, double* a, int lda) noexcept;
// Correctly rounded: a_ij = round(a_ij + alpha (x_i y_j + y_i x_j)) on the
// uplo triangle, one rounding (exala::syr2) (DSYR2).
int syr2(char uplo, int n, double alpha, const double* x, int incx, const double* y, int incy,
         double* a, int lda) noexcept;
// Correctly rounded: the gemv of the full symmetric matrix (DSYMV).
int symv(char uplo, int n, double alpha, const double* a, int lda, const double* x, int incx,
         double beta, double* y, int incy) noexcept;
// Correctly rounded: x_i = round((op(T) x)_i), T the triangle with zeros
// elsewhere (ones on a unit diagonal) (DTRMV).
int trmv(char uplo, char trans, char diag, int n, const double* a, int lda, double* x,
         int incx) noexcept;
// Reproducible: each x_i the correctly rounded quotient of its exact
// numerator (exala::trsv); an exact zero pivot gives IEEE inf/NaN through
// the same formula evaluated by exact substitution (DTRSV).
int trsv(char uplo, char trans, char diag, int n, const double* a, int lda, double* x,
         int incx) noexcept;

// ---------------------------------------------------------------- level 3

// Correctly rounded: c_ij = round(alpha (op(A) op(B))_ij + beta c_ij) (DGEMM).
int gemm(char transa, char transb, int m, int n, int k, double alpha, const double* a, int lda,
         const double* b, int ldb, double beta, double* c, int ldc) noexcept;
// Correctly rounded: the gemm with the full symmetric matrix (exala::symm) (DSYMM).
int symm(char side, char uplo, int m, int n, double alpha, const double* a, int lda,
         const double* b, int ldb, double beta, double* c, int ldc) noexcept;
// Correctly rounded: the uplo triangle of alpha op(A) op(A)^T + beta C, each
// entry a gemm entry; the other triangle is not touched; only the triangle
// is computed (exala::syrk) (DSYRK).
int syrk(char uplo, char trans, int n, int k, double alpha, const double* a, int lda, double beta,
         double* c, int ldc) noexcept;
// Correctly rounded: the uplo triangle of alpha (op(A) op(B)^T + op(B)
// op(A)^T) + beta C, each entry ONE rounding of the exact value (the gemm
// with k' = 2k of exala::syr2k); the other triangle is not touched (DSYR2K).
int syr2k(char uplo, char trans, int n, int k, double alpha, const double* a, int lda,
          const double* b, int ldb, double beta, double* c, int ldc) noexcept;
// Correctly rounded: B = alpha op(T) B or alpha B op(T), T as in trmv
// (exala::trmm: only the nonzero slice of T where that changes no bit) (DTRMM).
int trmm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* a,
         int lda, double* b, int ldb) noexcept;
// Reproducible: each column (left) or row (right) of X as trsv on alpha b,
// alpha b_i an exact product (exala::trsm); zero pivots as trsv (DTRSM).
int trsm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* a,
         int lda, double* b, int ldb) noexcept;

}  // namespace exala::blas_abi
