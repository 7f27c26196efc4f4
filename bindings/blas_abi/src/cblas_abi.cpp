// cblas_abi.cpp - the CBLAS symbols of libexala_blas.so, with the standard
// signatures (the enum arguments as int: CblasRowMajor = 101, CblasColMajor =
// 102, CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 (= Trans
// for real data), CblasUpper = 121, CblasLower = 122, CblasNonUnit = 131,
// CblasUnit = 132, CblasLeft = 141, CblasRight = 142; BLAS integers 32-bit).
//
// As in the reference CBLAS (Netlib LAPACK CBLAS/src), a row-major call is
// the column-major Fortran routine on the transposed problem (swapped
// dimensions, flipped uplo/side/transpose), so results are those of
// routines.hpp: correctly rounded entries, the same bits for both layouts.
// Errors: a bad layout or option is reported as parameter 1 or its own
// position; an error of the Fortran routine (INFO) as INFO + 1, then, for
// row-major, mapped to the position in the cblas_ call exactly as the
// reference's cblas_xerbla does (gemv 3<->4, ger 2<->3 and 6<->8, gemm 4<->5
// and 9<->11, symm 4<->5, trmm/trsm 6<->7). Unlike the reference, the number
// handed to cblas_xerbla is already that position (the reference passes the
// column-major number and remaps it inside cblas_xerbla from a global flag).
#include <cstddef>
#include <initializer_list>
#include <utility>

#include "abi_common.hpp"
#include "routines.hpp"

namespace {

namespace abi = exala::blas_abi;

constexpr int kRowMajor = 101, kColMajor = 102;
constexpr int kNoTrans = 111, kTrans = 112, kConjTrans = 113;
constexpr int kUpper = 121, kLower = 122;
constexpr int kNonUnit = 131, kUnit = 132;
constexpr int kLeft = 141, kRight = 142;

// INFO of the Fortran routine -> the reported cblas_ parameter number.
int position(int info, bool row_major, std::initializer_list<std::pair<int, int>> swaps) {
  const int p = info + 1;
  if (row_major)
    for (const auto& [u, v] : swaps) {
      if (p == u) return v;
      if (p == v) return u;
    }
  return p;
}

void fortran_error(const char* rout, int info, bool row_major,
                   std::initializer_list<std::pair<int, int>> swaps = {}) {
  if (info != 0) abi::report_cblas(position(info, row_major, swaps), rout, "");
}

// Option translations; '\0' marks a value that is not a valid enum.
char trans_col(int t) {
  return t == kNoTrans ? 'N' : t == kTrans ? 'T' : t == kConjTrans ? 'C' : '\0';
}
char trans_row(int t) {  // row-major gemv/trmv/trsv/syrk: op flips
  return t == kNoTrans ? 'T' : (t == kTrans || t == kConjTrans) ? 'N' : '\0';
}
char uplo_col(int u) { return u == kUpper ? 'U' : u == kLower ? 'L' : '\0'; }
char uplo_row(int u) { return u == kUpper ? 'L' : u == kLower ? 'U' : '\0'; }
char diag_of(int d) { return d == kUnit ? 'U' : d == kNonUnit ? 'N' : '\0'; }
char side_col(int s) { return s == kLeft ? 'L' : s == kRight ? 'R' : '\0'; }
char side_row(int s) { return s == kLeft ? 'R' : s == kRight ? 'L' : '\0'; }

bool bad_layout(int layout, const char* rout) {
  if (layout == kRowMajor || layout == kColMajor) return false;
  abi::report_cblas(1, rout, "Illegal layout setting, %d\n", layout);
  return true;
}

// Reports an invalid option (translated to '\0') as parameter `pos`.
bool bad_option(char c, int pos, const char* rout, const char* form, int value) {
  if (c != '\0') return false;
  abi::report_cblas(pos, rout, form, value);
  return true;
}

// cblas_dtrmv / cblas_dtrsv: the same options and numbering.
template <class F>
void triangular_vector(const char* R, int layout, int uplo, int trans, int diag, F&& fortran) {
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, R, "Illegal Uplo setting, %d\n", uplo)) return;
  const char t = row ? trans_row(trans) : trans_col(trans);
  if (bad_option(t, 3, R, "Illegal TransA setting, %d\n", trans)) return;
  const char d = diag_of(diag);
  if (bad_option(d, 4, R, "Illegal Diag setting, %d\n", diag)) return;
  fortran_error(R, fortran(u, t, d), row);
}

// cblas_dtrmm / cblas_dtrsm: the same options and numbering.
template <class F>
void triangular_matrix(const char* R, int layout, int side, int uplo, int trans, int diag, int m,
                       int n, F&& fortran) {
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const char s = row ? side_row(side) : side_col(side);
  if (bad_option(s, 2, R, "Illegal Side setting, %d\n", side)) return;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 3, R, "Illegal Uplo setting, %d\n", uplo)) return;
  const char t = trans_col(trans);
  if (bad_option(t, 4, R, "Illegal Trans setting, %d\n", trans)) return;
  const char d = diag_of(diag);
  if (bad_option(d, 5, R, "Illegal Diag setting, %d\n", diag)) return;
  const int info = row ? fortran(s, u, t, d, n, m) : fortran(s, u, t, d, m, n);
  fortran_error(R, info, row, {{6, 7}});
}

}  // namespace

#define EXALA_BLAS_EXPORT __attribute__((visibility("default")))

extern "C" {

// ------------------------------------------------------------------ level 1
// No argument errors exist here (as in the reference); see routines.hpp.

EXALA_BLAS_EXPORT double cblas_ddot(const int n, const double* x, const int incx, const double* y,
                                    const int incy) {
  return abi::dot(n, x, incx, y, incy);
}
EXALA_BLAS_EXPORT double cblas_dasum(const int n, const double* x, const int incx) {
  return abi::asum(n, x, incx);
}
EXALA_BLAS_EXPORT double cblas_dnrm2(const int n, const double* x, const int incx) {
  return abi::nrm2(n, x, incx);
}
EXALA_BLAS_EXPORT void cblas_daxpy(const int n, const double alpha, const double* x,
                                   const int incx, double* y, const int incy) {
  abi::axpy(n, alpha, x, incx, y, incy);
}
EXALA_BLAS_EXPORT void cblas_dscal(const int n, const double alpha, double* x, const int incx) {
  abi::scal(n, alpha, x, incx);
}
EXALA_BLAS_EXPORT void cblas_dcopy(const int n, const double* x, const int incx, double* y,
                                   const int incy) {
  abi::copy(n, x, incx, y, incy);
}
EXALA_BLAS_EXPORT void cblas_dswap(const int n, double* x, const int incx, double* y,
                                   const int incy) {
  abi::swap(n, x, incx, y, incy);
}
// 0-based index (the reference's IDAMAX - 1), and 0 when IDAMAX is 0.
EXALA_BLAS_EXPORT std::size_t cblas_idamax(const int n, const double* x, const int incx) {
  const int i = abi::iamax(n, x, incx);
  return i > 0 ? static_cast<std::size_t>(i - 1) : 0;
}
EXALA_BLAS_EXPORT void cblas_drot(const int n, double* x, const int incx, double* y,
                                  const int incy, const double c, const double s) {
  abi::rot(n, x, incx, y, incy, c, s);
}

// ------------------------------------------------------------------ level 2

EXALA_BLAS_EXPORT void cblas_dgemv(const int layout, const int trans, const int m, const int n,
                                   const double alpha, const double* a, const int lda,
                                   const double* x, const int incx, const double beta, double* y,
                                   const int incy) {
  constexpr const char* R = "cblas_dgemv";
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const char t = row ? trans_row(trans) : trans_col(trans);
  if (bad_option(t, 2, R, "Illegal TransA setting, %d\n", trans)) return;
  const int info = row ? abi::gemv(t, n, m, alpha, a, lda, x, incx, beta, y, incy)
                       : abi::gemv(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  fortran_error(R, info, row, {{3, 4}});
}

EXALA_BLAS_EXPORT void cblas_dger(const int layout, const int m, const int n, const double alpha,
                                  const double* x, const int incx, const double* y,
                                  const int incy, double* a, const int lda) {
  constexpr const char* R = "cblas_dger";
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const int info = row ? abi::ger(n, m, alpha, y, incy, x, incx, a, lda)
                       : abi::ger(m, n, alpha, x, incx, y, incy, a, lda);
  fortran_error(R, info, row, {{2, 3}, {6, 8}});
}

EXALA_BLAS_EXPORT void cblas_dsymv(const int layout, const int uplo, const int n,
                                   const double alpha, const double* a, const int lda,
                                   const double* x, const int incx, const double beta, double* y,
                                   const int incy) {
  constexpr const char* R = "cblas_dsymv";
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, R, "Illegal Uplo setting, %d\n", uplo)) return;
  fortran_error(R, abi::symv(u, n, alpha, a, lda, x, incx, beta, y, incy), row);
}

EXALA_BLAS_EXPORT void cblas_dtrmv(const int layout, const int uplo, const int trans,
                                   const int diag, const int n, const double* a, const int lda,
                                   double* x, const int incx) {
  triangular_vector("cblas_dtrmv", layout, uplo, trans, diag, [&](char u, char t, char d) {
    return abi::trmv(u, t, d, n, a, lda, x, incx);
  });
}

EXALA_BLAS_EXPORT void cblas_dtrsv(const int layout, const int uplo, const int trans,
                                   const int diag, const int n, const double* a, const int lda,
                                   double* x, const int incx) {
  triangular_vector("cblas_dtrsv", layout, uplo, trans, diag, [&](char u, char t, char d) {
    return abi::trsv(u, t, d, n, a, lda, x, incx);
  });
}

// ------------------------------------------------------------------ level 3

EXALA_BLAS_EXPORT void cblas_dgemm(const int layout, const int transa, const int transb,
                                   const int m, const int n, const int k, const double alpha,
                                   const double* a, const int lda, const double* b, const int ldb,
                                   const double beta, double* c, const int ldc) {
  constexpr const char* R = "cblas_dgemm";
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const char ta = trans_col(transa);
  if (bad_option(ta, 2, R, "Illegal TransA setting, %d\n", transa)) return;
  const char tb = trans_col(transb);
  if (bad_option(tb, 3, R, "Illegal TransB setting, %d\n", transb)) return;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  const int info = row ? abi::gemm(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
                       : abi::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  fortran_error(R, info, row, {{4, 5}, {9, 11}});
}

EXALA_BLAS_EXPORT void cblas_dsymm(const int layout, const int side, const int uplo, const int m,
                                   const int n, const double alpha, const double* a,
                                   const int lda, const double* b, const int ldb,
                                   const double beta, double* c, const int ldc) {
  constexpr const char* R = "cblas_dsymm";
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const char s = row ? side_row(side) : side_col(side);
  if (bad_option(s, 2, R, "Illegal Side setting, %d\n", side)) return;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 3, R, "Illegal Uplo setting, %d\n", uplo)) return;
  const int info = row ? abi::symm(s, u, n, m, alpha, a, lda, b, ldb, beta, c, ldc)
                       : abi::symm(s, u, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
  fortran_error(R, info, row, {{4, 5}});
}

EXALA_BLAS_EXPORT void cblas_dsyrk(const int layout, const int uplo, const int trans, const int n,
                                   const int k, const double alpha, const double* a,
                                   const int lda, const double beta, double* c, const int ldc) {
  constexpr const char* R = "cblas_dsyrk";
  if (bad_layout(layout, R)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, R, "Illegal Uplo setting, %d\n", uplo)) return;
  const char t = row ? trans_row(trans) : trans_col(trans);
  if (bad_option(t, 3, R, "Illegal Trans setting, %d\n", trans)) return;
  fortran_error(R, abi::syrk(u, t, n, k, alpha, a, lda, beta, c, ldc), row);
}

EXALA_BLAS_EXPORT void cblas_dtrmm(const int layout, const int side, const int uplo,
                                   const int trans, const int diag, const int m, const int n,
                                   const double alpha, const double* a, const int lda, double* b,
                                   const int ldb) {
  triangular_matrix("cblas_dtrmm", layout, side, uplo, trans, diag, m, n,
                    [&](char s, char u, char t, char d, int mm, int nn) {
                      return abi::trmm(s, u, t, d, mm, nn, alpha, a, lda, b, ldb);
                    });
}

EXALA_BLAS_EXPORT void cblas_dtrsm(const int layout, const int side, const int uplo,
                                   const int trans, const int diag, const int m, const int n,
                                   const double alpha, const double* a, const int lda, double* b,
                                   const int ldb) {
  triangular_matrix("cblas_dtrsm", layout, side, uplo, trans, diag, m, n,
                    [&](char s, char u, char t, char d, int mm, int nn) {
                      return abi::trsm(s, u, t, d, mm, nn, alpha, a, lda, b, ldb);
                    });
}

}  // extern "C"
