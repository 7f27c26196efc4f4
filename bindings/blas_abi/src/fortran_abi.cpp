// fortran_abi.cpp - the Fortran BLAS symbols of libexala_blas.so, gfortran
// conventions: lower-case name with a trailing underscore, every argument by
// reference, 32-bit INTEGER (LP64), DOUBLE PRECISION functions returning a
// double, the hidden CHARACTER lengths (size_t) after the explicit
// arguments (declared, never read: only the first character matters, as in
// LSAME). Argument errors go to XERBLA with the reference's routine name and
// parameter number (see abi_common.hpp for which xerbla_ is called: the
// lookup needs the caller's address, EXALA_BLAS_CALLER, taken in each
// exported function).
//
// A NULL pointer for a scalar argument (which Fortran never passes) is
// reported through XERBLA with that argument's position, before the
// reference's own checks; the call then does nothing.
#include <cstddef>

#include "abi_common.hpp"
#include "routines.hpp"

namespace {

namespace abi = exala::blas_abi;

char ch(const char* p) noexcept { return p != nullptr ? *p : '\0'; }

// Reads scalar arguments, remembering the position of the first null one.
struct scalars {
  int bad = 0;
  int i(const int* p, int pos) noexcept {
    if (p == nullptr) {
      if (bad == 0) bad = pos;
      return 0;
    }
    return *p;
  }
  double d(const double* p, int pos) noexcept {
    if (p == nullptr) {
      if (bad == 0) bad = pos;
      return 0.0;
    }
    return *p;
  }
  // True (after reporting) when some scalar was null. (Not noexcept, here
  // and in check: a program's handler may throw, and the exception goes to
  // the program, as it would through the reference BLAS.)
  bool failed(const char* srname, const void* caller) const {
    if (bad != 0) abi::report_xerbla(srname, bad, caller);
    return bad != 0;
  }
};

void check(const char* srname, int info, const void* caller) {
  if (info != 0) abi::report_xerbla(srname, info, caller);
}

}  // namespace

#define EXALA_BLAS_EXPORT __attribute__((visibility("default")))

extern "C" {

// ------------------------------------------------------------------ level 1

EXALA_BLAS_EXPORT double ddot_(const int* n, const double* x, const int* incx, const double* y,
                               const int* incy) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3), iy = s.i(incy, 5);
  if (s.failed("DDOT  ", EXALA_BLAS_CALLER)) return 0.0;
  EXALA_BLAS_COUNT("ddot_", abi::nominal(2, nn));
  return abi::dot(nn, x, ix, y, iy);
}

EXALA_BLAS_EXPORT double dasum_(const int* n, const double* x, const int* incx) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3);
  if (s.failed("DASUM ", EXALA_BLAS_CALLER)) return 0.0;
  EXALA_BLAS_COUNT("dasum_", abi::nominal(1, nn));
  return abi::asum(nn, x, ix);
}

EXALA_BLAS_EXPORT double dnrm2_(const int* n, const double* x, const int* incx) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3);
  if (s.failed("DNRM2 ", EXALA_BLAS_CALLER)) return 0.0;
  EXALA_BLAS_COUNT("dnrm2_", abi::nominal(2, nn));
  return abi::nrm2(nn, x, ix);
}

EXALA_BLAS_EXPORT void daxpy_(const int* n, const double* alpha, const double* x, const int* incx,
                              double* y, const int* incy) {
  scalars s;
  const int nn = s.i(n, 1);
  const double al = s.d(alpha, 2);
  const int ix = s.i(incx, 4), iy = s.i(incy, 6);
  if (s.failed("DAXPY ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("daxpy_", abi::nominal(2, nn));
  abi::axpy(nn, al, x, ix, y, iy);
}

EXALA_BLAS_EXPORT void dscal_(const int* n, const double* alpha, double* x, const int* incx) {
  scalars s;
  const int nn = s.i(n, 1);
  const double al = s.d(alpha, 2);
  const int ix = s.i(incx, 4);
  if (s.failed("DSCAL ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dscal_", abi::nominal(1, nn));
  abi::scal(nn, al, x, ix);
}

EXALA_BLAS_EXPORT void dcopy_(const int* n, const double* x, const int* incx, double* y,
                              const int* incy) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3), iy = s.i(incy, 5);
  if (s.failed("DCOPY ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dcopy_", 0);
  abi::copy(nn, x, ix, y, iy);
}

EXALA_BLAS_EXPORT void dswap_(const int* n, double* x, const int* incx, double* y,
                              const int* incy) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3), iy = s.i(incy, 5);
  if (s.failed("DSWAP ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dswap_", 0);
  abi::swap(nn, x, ix, y, iy);
}

EXALA_BLAS_EXPORT int idamax_(const int* n, const double* x, const int* incx) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3);
  if (s.failed("IDAMAX", EXALA_BLAS_CALLER)) return 0;
  EXALA_BLAS_COUNT("idamax_", 0);
  return abi::iamax(nn, x, ix);
}

EXALA_BLAS_EXPORT void drot_(const int* n, double* x, const int* incx, double* y,
                             const int* incy, const double* c, const double* sn) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3), iy = s.i(incy, 5);
  const double cc = s.d(c, 6), ss = s.d(sn, 7);
  if (s.failed("DROT  ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("drot_", abi::nominal(6, nn));
  abi::rot(nn, x, ix, y, iy, cc, ss);
}

EXALA_BLAS_EXPORT void drotm_(const int* n, double* x, const int* incx, double* y,
                              const int* incy, const double* param) {
  scalars s;
  const int nn = s.i(n, 1), ix = s.i(incx, 3), iy = s.i(incy, 5);
  if (s.failed("DROTM ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("drotm_", abi::nominal(6, nn));
  abi::rotm(nn, x, ix, y, iy, param);
}

// Every argument is read and written (no scalars to check here): a null one
// is reported as a null array (see routines.hpp).
EXALA_BLAS_EXPORT void drotg_(double* a, double* b, double* c, double* sn) {
  EXALA_BLAS_COUNT("drotg_", 0);
  abi::rotg(a, b, c, sn);
}

// ------------------------------------------------------------------ level 2

EXALA_BLAS_EXPORT void dgemv_(const char* trans, const int* m, const int* n, const double* alpha,
                              const double* a, const int* lda, const double* x, const int* incx,
                              const double* beta, double* y, const int* incy, std::size_t) {
  scalars s;
  const int mm = s.i(m, 2), nn = s.i(n, 3);
  const double al = s.d(alpha, 4);
  const int la = s.i(lda, 6), ix = s.i(incx, 8);
  const double be = s.d(beta, 9);
  const int iy = s.i(incy, 11);
  if (s.failed("DGEMV ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dgemv_", abi::nominal(2, mm, nn));
  check("DGEMV ", abi::gemv(ch(trans), mm, nn, al, a, la, x, ix, be, y, iy), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dger_(const int* m, const int* n, const double* alpha, const double* x,
                             const int* incx, const double* y, const int* incy, double* a,
                             const int* lda) {
  scalars s;
  const int mm = s.i(m, 1), nn = s.i(n, 2);
  const double al = s.d(alpha, 3);
  const int ix = s.i(incx, 5), iy = s.i(incy, 7), la = s.i(lda, 9);
  if (s.failed("DGER  ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dger_", abi::nominal(2, mm, nn));
  check("DGER  ", abi::ger(mm, nn, al, x, ix, y, iy, a, la), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dsyr_(const char* uplo, const int* n, const double* alpha, const double* x,
                             const int* incx, double* a, const int* lda, std::size_t) {
  scalars s;
  const int nn = s.i(n, 2);
  const double al = s.d(alpha, 3);
  const int ix = s.i(incx, 5), la = s.i(lda, 7);
  if (s.failed("DSYR  ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dsyr_", abi::nominal(1, nn, nn));
  check("DSYR  ", abi::syr(ch(uplo), nn, al, x, ix, a, la), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dsyr2_(const char* uplo, const int* n, const double* alpha, const double* x,
                              const int* incx, const double* y, const int* incy, double* a,
                              const int* lda, std::size_t) {
  scalars s;
  const int nn = s.i(n, 2);
  const double al = s.d(alpha, 3);
  const int ix = s.i(incx, 5), iy = s.i(incy, 7), la = s.i(lda, 9);
  if (s.failed("DSYR2 ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dsyr2_", abi::nominal(2, nn, nn));
  check("DSYR2 ", abi::syr2(ch(uplo), nn, al, x, ix, y, iy, a, la), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dsymv_(const char* uplo, const int* n, const double* alpha, const double* a,
                              const int* lda, const double* x, const int* incx,
                              const double* beta, double* y, const int* incy, std::size_t) {
  scalars s;
  const int nn = s.i(n, 2);
  const double al = s.d(alpha, 3);
  const int la = s.i(lda, 5), ix = s.i(incx, 7);
  const double be = s.d(beta, 8);
  const int iy = s.i(incy, 10);
  if (s.failed("DSYMV ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dsymv_", abi::nominal(2, nn, nn));
  check("DSYMV ", abi::symv(ch(uplo), nn, al, a, la, x, ix, be, y, iy), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dtrmv_(const char* uplo, const char* trans, const char* diag, const int* n,
                              const double* a, const int* lda, double* x, const int* incx,
                              std::size_t, std::size_t, std::size_t) {
  scalars s;
  const int nn = s.i(n, 4), la = s.i(lda, 6), ix = s.i(incx, 8);
  if (s.failed("DTRMV ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dtrmv_", abi::nominal(1, nn, nn));
  check("DTRMV ", abi::trmv(ch(uplo), ch(trans), ch(diag), nn, a, la, x, ix), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dtrsv_(const char* uplo, const char* trans, const char* diag, const int* n,
                              const double* a, const int* lda, double* x, const int* incx,
                              std::size_t, std::size_t, std::size_t) {
  scalars s;
  const int nn = s.i(n, 4), la = s.i(lda, 6), ix = s.i(incx, 8);
  if (s.failed("DTRSV ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dtrsv_", abi::nominal(1, nn, nn));
  check("DTRSV ", abi::trsv(ch(uplo), ch(trans), ch(diag), nn, a, la, x, ix), EXALA_BLAS_CALLER);
}

// ------------------------------------------------------------------ level 3

EXALA_BLAS_EXPORT void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                              const int* k, const double* alpha, const double* a, const int* lda,
                              const double* b, const int* ldb, const double* beta, double* c,
                              const int* ldc, std::size_t, std::size_t) {
  scalars s;
  const int mm = s.i(m, 3), nn = s.i(n, 4), kk = s.i(k, 5);
  const double al = s.d(alpha, 6);
  const int la = s.i(lda, 8), lb = s.i(ldb, 10);
  const double be = s.d(beta, 11);
  const int lc = s.i(ldc, 13);
  if (s.failed("DGEMM ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dgemm_", abi::nominal(2, mm, nn, kk));
  check("DGEMM ",
        abi::gemm(ch(transa), ch(transb), mm, nn, kk, al, a, la, b, lb, be, c, lc),
        EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dsymm_(const char* side, const char* uplo, const int* m, const int* n,
                              const double* alpha, const double* a, const int* lda,
                              const double* b, const int* ldb, const double* beta, double* c,
                              const int* ldc, std::size_t, std::size_t) {
  scalars s;
  const int mm = s.i(m, 3), nn = s.i(n, 4);
  const double al = s.d(alpha, 5);
  const int la = s.i(lda, 7), lb = s.i(ldb, 9);
  const double be = s.d(beta, 10);
  const int lc = s.i(ldc, 12);
  if (s.failed("DSYMM ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dsymm_", abi::nominal(2, mm, nn, abi::left_side(side) ? mm : nn));
  check("DSYMM ",
        abi::symm(ch(side), ch(uplo), mm, nn, al, a, la, b, lb, be, c, lc), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k,
                              const double* alpha, const double* a, const int* lda,
                              const double* beta, double* c, const int* ldc, std::size_t,
                              std::size_t) {
  scalars s;
  const int nn = s.i(n, 3), kk = s.i(k, 4);
  const double al = s.d(alpha, 5);
  const int la = s.i(lda, 7);
  const double be = s.d(beta, 8);
  const int lc = s.i(ldc, 10);
  if (s.failed("DSYRK ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dsyrk_", abi::nominal(1, nn, nn, kk));
  check("DSYRK ", abi::syrk(ch(uplo), ch(trans), nn, kk, al, a, la, be, c, lc), EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dsyr2k_(const char* uplo, const char* trans, const int* n, const int* k,
                               const double* alpha, const double* a, const int* lda,
                               const double* b, const int* ldb, const double* beta, double* c,
                               const int* ldc, std::size_t, std::size_t) {
  scalars s;
  const int nn = s.i(n, 3), kk = s.i(k, 4);
  const double al = s.d(alpha, 5);
  const int la = s.i(lda, 7), lb = s.i(ldb, 9);
  const double be = s.d(beta, 10);
  const int lc = s.i(ldc, 12);
  if (s.failed("DSYR2K", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dsyr2k_", abi::nominal(2, nn, nn, kk));
  check("DSYR2K", abi::syr2k(ch(uplo), ch(trans), nn, kk, al, a, la, b, lb, be, c, lc),
        EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dtrmm_(const char* side, const char* uplo, const char* transa,
                              const char* diag, const int* m, const int* n, const double* alpha,
                              const double* a, const int* lda, double* b, const int* ldb,
                              std::size_t, std::size_t, std::size_t, std::size_t) {
  scalars s;
  const int mm = s.i(m, 5), nn = s.i(n, 6);
  const double al = s.d(alpha, 7);
  const int la = s.i(lda, 9), lb = s.i(ldb, 11);
  if (s.failed("DTRMM ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dtrmm_", abi::nominal(1, mm, nn, abi::left_side(side) ? mm : nn));
  check("DTRMM ",
        abi::trmm(ch(side), ch(uplo), ch(transa), ch(diag), mm, nn, al, a, la, b, lb),
        EXALA_BLAS_CALLER);
}

EXALA_BLAS_EXPORT void dtrsm_(const char* side, const char* uplo, const char* transa,
                              const char* diag, const int* m, const int* n, const double* alpha,
                              const double* a, const int* lda, double* b, const int* ldb,
                              std::size_t, std::size_t, std::size_t, std::size_t) {
  scalars s;
  const int mm = s.i(m, 5), nn = s.i(n, 6);
  const double al = s.d(alpha, 7);
  const int la = s.i(lda, 9), lb = s.i(ldb, 11);
  if (s.failed("DTRSM ", EXALA_BLAS_CALLER)) return;
  EXALA_BLAS_COUNT("dtrsm_", abi::nominal(1, mm, nn, abi::left_side(side) ? mm : nn));
  check("DTRSM ",
        abi::trsm(ch(side), ch(uplo), ch(transa), ch(diag), mm, nn, al, a, la, b, lb),
        EXALA_BLAS_CALLER);
}

}  // extern "C"
