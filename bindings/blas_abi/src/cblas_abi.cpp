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
//
// Errors are numbered exactly as Netlib's CBLAS numbers them, so that its
// testers (xdcblat2/3) and handlers written for it work unchanged: a bad
// layout is 1, a bad option its own position, and an error of the Fortran
// routine (INFO) is INFO + 1: for a row-major call, the position in the
// column-major call on the transposed problem. Netlib's cblas_xerbla maps
// that back to the cblas_ position itself, reading the global RowMajorStrg
// (gemv 3<->4, ger 2<->3 and 6<->8, gemm 4<->5 and 9<->11, symm 4<->5,
// trmm/trsm 6<->7); so does our default message (abi::cblas_error keeps both
// numbers). One deliberate difference: row-major cblas_dsyrk / cblas_dsyr2k with a
// bad Uplo is 2, its position (Netlib says 3; its own tester does not check it).
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

using swap_list = std::initializer_list<std::pair<int, int>>;

// Netlib's cblas_xerbla mapping of number p for a row-major call: the
// routine's swapped pairs (the arguments the transposed call exchanges).
int row_major_position(int p, swap_list swaps) {
  for (const auto& [u, v] : swaps) {
    if (p == u) return v;
    if (p == v) return u;
  }
  return p;
}

// Reports INFO of the Fortran routine (0: nothing to report).
void fortran_error(const char* rout, int info, bool row_major, const void* caller,
                   swap_list swaps = {}) {
  if (info == 0) return;
  const int netlib = info + 1;
  const int position = row_major ? row_major_position(netlib, swaps) : netlib;
  abi::report_cblas({rout, netlib, position, row_major, "", false, 0}, caller);
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

bool bad_layout(int layout, const char* rout, const void* caller) {
  if (layout == kRowMajor || layout == kColMajor) return false;
  abi::report_cblas({rout, 1, 1, false, "Illegal layout setting, %d\n", true, layout}, caller);
  return true;
}

// Reports an invalid option (translated to '\0') as parameter `pos` (no
// option position is one that Netlib's row-major mapping moves).
bool bad_option(char c, int pos, bool row_major, const char* rout, const char* form, int value,
                const void* caller) {
  if (c != '\0') return false;
  abi::report_cblas({rout, pos, pos, row_major, form, true, value}, caller);
  return true;
}

// cblas_dtrmv / cblas_dtrsv: the same options and numbering.
template <class F>
void triangular_vector(const char* R, int layout, int uplo, int trans, int diag,
                       const void* caller, F&& fortran) {
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  const char t = row ? trans_row(trans) : trans_col(trans);
  if (bad_option(t, 3, row, R, "Illegal TransA setting, %d\n", trans, caller)) return;
  const char d = diag_of(diag);
  if (bad_option(d, 4, row, R, "Illegal Diag setting, %d\n", diag, caller)) return;
  fortran_error(R, fortran(u, t, d), row, caller);
}

// cblas_dtrmm / cblas_dtrsm: the same options and numbering.
template <class F>
void triangular_matrix(const char* R, int layout, int side, int uplo, int trans, int diag, int m,
                       int n, const void* caller, F&& fortran) {
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char s = row ? side_row(side) : side_col(side);
  if (bad_option(s, 2, row, R, "Illegal Side setting, %d\n", side, caller)) return;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 3, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  const char t = trans_col(trans);
  if (bad_option(t, 4, row, R, "Illegal Trans setting, %d\n", trans, caller)) return;
  const char d = diag_of(diag);
  if (bad_option(d, 5, row, R, "Illegal Diag setting, %d\n", diag, caller)) return;
  const int info = row ? fortran(s, u, t, d, n, m) : fortran(s, u, t, d, m, n);
  fortran_error(R, info, row, caller, {{6, 7}});
}

}  // namespace

#define EXALA_BLAS_EXPORT __attribute__((visibility("default")))

extern "C" {

// ------------------------------------------------------------------ level 1
// No argument errors exist here (as in the reference); see routines.hpp.

EXALA_BLAS_EXPORT double cblas_ddot(const int n, const double* x, const int incx, const double* y,
                                    const int incy) {
  EXALA_BLAS_COUNT("cblas_ddot", abi::nominal(2, n));
  return abi::dot(n, x, incx, y, incy);
}
EXALA_BLAS_EXPORT double cblas_dasum(const int n, const double* x, const int incx) {
  EXALA_BLAS_COUNT("cblas_dasum", abi::nominal(1, n));
  return abi::asum(n, x, incx);
}
EXALA_BLAS_EXPORT double cblas_dnrm2(const int n, const double* x, const int incx) {
  EXALA_BLAS_COUNT("cblas_dnrm2", abi::nominal(2, n));
  return abi::nrm2(n, x, incx);
}
EXALA_BLAS_EXPORT void cblas_daxpy(const int n, const double alpha, const double* x,
                                   const int incx, double* y, const int incy) {
  EXALA_BLAS_COUNT("cblas_daxpy", abi::nominal(2, n));
  abi::axpy(n, alpha, x, incx, y, incy);
}
EXALA_BLAS_EXPORT void cblas_dscal(const int n, const double alpha, double* x, const int incx) {
  EXALA_BLAS_COUNT("cblas_dscal", abi::nominal(1, n));
  abi::scal(n, alpha, x, incx);
}
EXALA_BLAS_EXPORT void cblas_dcopy(const int n, const double* x, const int incx, double* y,
                                   const int incy) {
  EXALA_BLAS_COUNT("cblas_dcopy", 0);
  abi::copy(n, x, incx, y, incy);
}
EXALA_BLAS_EXPORT void cblas_dswap(const int n, double* x, const int incx, double* y,
                                   const int incy) {
  EXALA_BLAS_COUNT("cblas_dswap", 0);
  abi::swap(n, x, incx, y, incy);
}
// 0-based index (the reference's IDAMAX - 1), and 0 when IDAMAX is 0.
EXALA_BLAS_EXPORT std::size_t cblas_idamax(const int n, const double* x, const int incx) {
  EXALA_BLAS_COUNT("cblas_idamax", 0);
  const int i = abi::iamax(n, x, incx);
  return i > 0 ? static_cast<std::size_t>(i - 1) : 0;
}
EXALA_BLAS_EXPORT void cblas_drot(const int n, double* x, const int incx, double* y,
                                  const int incy, const double c, const double s) {
  EXALA_BLAS_COUNT("cblas_drot", abi::nominal(6, n));
  abi::rot(n, x, incx, y, incy, c, s);
}

EXALA_BLAS_EXPORT void cblas_drotm(const int n, double* x, const int incx, double* y,
                                   const int incy, const double* p) {
  EXALA_BLAS_COUNT("cblas_drotm", abi::nominal(6, n));
  abi::rotm(n, x, incx, y, incy, p);
}
EXALA_BLAS_EXPORT void cblas_drotg(double* a, double* b, double* c, double* s) {
  EXALA_BLAS_COUNT("cblas_drotg", 0);
  abi::rotg(a, b, c, s);
}

// ------------------------------------------------------------------ level 2

EXALA_BLAS_EXPORT void cblas_dgemv(const int layout, const int trans, const int m, const int n,
                                   const double alpha, const double* a, const int lda,
                                   const double* x, const int incx, const double beta, double* y,
                                   const int incy) {
  EXALA_BLAS_COUNT("cblas_dgemv", abi::nominal(2, m, n));
  constexpr const char* R = "cblas_dgemv";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char t = row ? trans_row(trans) : trans_col(trans);
  if (bad_option(t, 2, row, R, "Illegal TransA setting, %d\n", trans, caller)) return;
  const int info = row ? abi::gemv(t, n, m, alpha, a, lda, x, incx, beta, y, incy)
                       : abi::gemv(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  fortran_error(R, info, row, caller, {{3, 4}});
}

EXALA_BLAS_EXPORT void cblas_dger(const int layout, const int m, const int n, const double alpha,
                                  const double* x, const int incx, const double* y,
                                  const int incy, double* a, const int lda) {
  EXALA_BLAS_COUNT("cblas_dger", abi::nominal(2, m, n));
  constexpr const char* R = "cblas_dger";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const int info = row ? abi::ger(n, m, alpha, y, incy, x, incx, a, lda)
                       : abi::ger(m, n, alpha, x, incx, y, incy, a, lda);
  fortran_error(R, info, row, caller, {{2, 3}, {6, 8}});
}

EXALA_BLAS_EXPORT void cblas_dsymv(const int layout, const int uplo, const int n,
                                   const double alpha, const double* a, const int lda,
                                   const double* x, const int incx, const double beta, double* y,
                                   const int incy) {
  EXALA_BLAS_COUNT("cblas_dsymv", abi::nominal(2, n, n));
  constexpr const char* R = "cblas_dsymv";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  fortran_error(R, abi::symv(u, n, alpha, a, lda, x, incx, beta, y, incy), row, caller);
}

EXALA_BLAS_EXPORT void cblas_dsyr(const int layout, const int uplo, const int n,
                                  const double alpha, const double* x, const int incx, double* a,
                                  const int lda) {
  EXALA_BLAS_COUNT("cblas_dsyr", abi::nominal(1, n, n));
  constexpr const char* R = "cblas_dsyr";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  fortran_error(R, abi::syr(u, n, alpha, x, incx, a, lda), row, caller);
}

EXALA_BLAS_EXPORT void cblas_dsyr2(const int layout, const int uplo, const int n,
                                   const double alpha, const double* x, const int incx,
                                   const double* y, const int incy, double* a, const int lda) {
  EXALA_BLAS_COUNT("cblas_dsyr2", abi::nominal(2, n, n));
  constexpr const char* R = "cblas_dsyr2";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  fortran_error(R, abi::syr2(u, n, alpha, x, incx, y, incy, a, lda), row, caller);
}

EXALA_BLAS_EXPORT void cblas_dtrmv(const int layout, const int uplo, const int trans,
                                   const int diag, const int n, const double* a, const int lda,
                                   double* x, const int incx) {
  EXALA_BLAS_COUNT("cblas_dtrmv", abi::nominal(1, n, n));
  triangular_vector("cblas_dtrmv", layout, uplo, trans, diag, EXALA_BLAS_CALLER,
                    [&](char u, char t, char d) { return abi::trmv(u, t, d, n, a, lda, x, incx); });
}

EXALA_BLAS_EXPORT void cblas_dtrsv(const int layout, const int uplo, const int trans,
                                   const int diag, const int n, const double* a, const int lda,
                                   double* x, const int incx) {
  EXALA_BLAS_COUNT("cblas_dtrsv", abi::nominal(1, n, n));
  triangular_vector("cblas_dtrsv", layout, uplo, trans, diag, EXALA_BLAS_CALLER,
                    [&](char u, char t, char d) { return abi::trsv(u, t, d, n, a, lda, x, incx); });
}

// ------------------------------------------------------------------ level 3

EXALA_BLAS_EXPORT void cblas_dgemm(const int layout, const int transa, const int transb,
                                   const int m, const int n, const int k, const double alpha,
                                   const double* a, const int lda, const double* b, const int ldb,
                                   const double beta, double* c, const int ldc) {
  EXALA_BLAS_COUNT("cblas_dgemm", abi::nominal(2, m, n, k));
  constexpr const char* R = "cblas_dgemm";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char ta = trans_col(transa);
  if (bad_option(ta, 2, row, R, "Illegal TransA setting, %d\n", transa, caller)) return;
  const char tb = trans_col(transb);
  if (bad_option(tb, 3, row, R, "Illegal TransB setting, %d\n", transb, caller)) return;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  const int info = row ? abi::gemm(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc)
                       : abi::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  fortran_error(R, info, row, caller, {{4, 5}, {9, 11}});
}

EXALA_BLAS_EXPORT void cblas_dsymm(const int layout, const int side, const int uplo, const int m,
                                   const int n, const double alpha, const double* a,
                                   const int lda, const double* b, const int ldb,
                                   const double beta, double* c, const int ldc) {
  EXALA_BLAS_COUNT("cblas_dsymm", abi::nominal(2, m, n, side == kLeft ? m : n));
  constexpr const char* R = "cblas_dsymm";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char s = row ? side_row(side) : side_col(side);
  if (bad_option(s, 2, row, R, "Illegal Side setting, %d\n", side, caller)) return;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 3, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  const int info = row ? abi::symm(s, u, n, m, alpha, a, lda, b, ldb, beta, c, ldc)
                       : abi::symm(s, u, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
  fortran_error(R, info, row, caller, {{4, 5}});
}

EXALA_BLAS_EXPORT void cblas_dsyrk(const int layout, const int uplo, const int trans, const int n,
                                   const int k, const double alpha, const double* a,
                                   const int lda, const double beta, double* c, const int ldc) {
  EXALA_BLAS_COUNT("cblas_dsyrk", abi::nominal(1, n, n, k));
  constexpr const char* R = "cblas_dsyrk";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  const char t = row ? trans_row(trans) : trans_col(trans);
  if (bad_option(t, 3, row, R, "Illegal Trans setting, %d\n", trans, caller)) return;
  fortran_error(R, abi::syrk(u, t, n, k, alpha, a, lda, beta, c, ldc), row, caller);
}

EXALA_BLAS_EXPORT void cblas_dsyr2k(const int layout, const int uplo, const int trans,
                                    const int n, const int k, const double alpha, const double* a,
                                    const int lda, const double* b, const int ldb,
                                    const double beta, double* c, const int ldc) {
  EXALA_BLAS_COUNT("cblas_dsyr2k", abi::nominal(2, n, n, k));
  constexpr const char* R = "cblas_dsyr2k";
  const void* caller = EXALA_BLAS_CALLER;
  if (bad_layout(layout, R, caller)) return;
  const bool row = layout == kRowMajor;
  const char u = row ? uplo_row(uplo) : uplo_col(uplo);
  if (bad_option(u, 2, row, R, "Illegal Uplo setting, %d\n", uplo, caller)) return;
  const char t = row ? trans_row(trans) : trans_col(trans);
  if (bad_option(t, 3, row, R, "Illegal Trans setting, %d\n", trans, caller)) return;
  fortran_error(R, abi::syr2k(u, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc), row, caller);
}

EXALA_BLAS_EXPORT void cblas_dtrmm(const int layout, const int side, const int uplo,
                                   const int trans, const int diag, const int m, const int n,
                                   const double alpha, const double* a, const int lda, double* b,
                                   const int ldb) {
  EXALA_BLAS_COUNT("cblas_dtrmm", abi::nominal(1, m, n, side == kLeft ? m : n));
  triangular_matrix("cblas_dtrmm", layout, side, uplo, trans, diag, m, n, EXALA_BLAS_CALLER,
                    [&](char s, char u, char t, char d, int mm, int nn) {
                      return abi::trmm(s, u, t, d, mm, nn, alpha, a, lda, b, ldb);
                    });
}

EXALA_BLAS_EXPORT void cblas_dtrsm(const int layout, const int side, const int uplo,
                                   const int trans, const int diag, const int m, const int n,
                                   const double alpha, const double* a, const int lda, double* b,
                                   const int ldb) {
  EXALA_BLAS_COUNT("cblas_dtrsm", abi::nominal(1, m, n, side == kLeft ? m : n));
  triangular_matrix("cblas_dtrsm", layout, side, uplo, trans, diag, m, n, EXALA_BLAS_CALLER,
                    [&](char s, char u, char t, char d, int mm, int nn) {
                      return abi::trsm(s, u, t, d, mm, nn, alpha, a, lda, b, ldb);
                    });
}

}  // extern "C"
