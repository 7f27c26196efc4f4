// test_blas_abi.cpp - libexala_blas.so against the reference-BLAS semantics
// (Netlib LAPACK 3.x BLAS/SRC and CBLAS/src): argument errors and their
// numbers, quick returns, alpha/beta = 0, increments, IDAMAX, zero pivots,
// row- vs column-major; and its results bit for bit against the exala C++
// routines (themselves checked against MPFR), against exact integer loops,
// and (dger_, drot_) against MPFR directly.
//
// The executable defines xerbla_ and cblas_xerbla (the library defines
// neither and looks the program's up): they record every report, or throw
// when asked to (g_throw).
#define BOOST_TEST_MODULE test_blas_abi
#include <boost/test/unit_test.hpp>

#include <dlfcn.h>

#include <bit>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings/blas_abi/blas_abi_decls.hpp"
#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala_blas_abi.h"

#if defined(EXALA_TEST_HAVE_MPFR)
#include <mpfr.h>
#endif

// ------------------------------------------------------------ recording handlers

namespace {
struct report {
  std::string name;
  int info = 0;
  int calls = 0;
};
report g_xerbla, g_cblas;
// When set, the handlers throw (after recording), as a C++ program's may.
bool g_throw = false;
}  // namespace

extern "C" void xerbla_(const char* srname, const int* info, std::size_t len) {
  g_xerbla.name.assign(srname, len);
  g_xerbla.info = *info;
  ++g_xerbla.calls;
  if (g_throw) throw std::runtime_error("xerbla_: " + g_xerbla.name + std::to_string(*info));
}

// Records the number as passed: Netlib's CBLAS numbering (see expect_cblas).
extern "C" void cblas_xerbla(int p, const char* rout, const char* form, ...) {
  (void)form;
  g_cblas.name = rout;
  g_cblas.info = p;
  ++g_cblas.calls;
  if (g_throw) throw std::runtime_error(std::string("cblas_xerbla: ") + rout);
}

namespace {

using i64 = std::int64_t;
const double nan_ = std::numeric_limits<double>::quiet_NaN();
const double inf_ = std::numeric_limits<double>::infinity();

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Position of logical element i of a reference-BLAS vector.
i64 pos(i64 i, i64 n, i64 inc) { return inc >= 0 ? i * inc : (i - (n - 1)) * inc; }

std::mt19937_64& rng() {
  static std::mt19937_64 g(0x5eed);
  return g;
}
// +-(odd 30-bit integer) * 2^e, e in [emin, emax]: wide data, exact to build.
double wide(int emin = -30, int emax = 30) {
  auto& g = rng();
  const double m = static_cast<double>((g() >> 34) | 1u);
  const int e = emin + static_cast<int>(g() % static_cast<std::uint64_t>(emax - emin + 1));
  const double v = std::ldexp(m, e - 30);
  return (g() & 1u) ? -v : v;
}
std::vector<double> wide_vec(std::size_t n, int emin = -30, int emax = 30) {
  std::vector<double> v(n);
  for (double& x : v) x = wide(emin, emax);
  return v;
}
// Small integers in [-9, 9]: every sum and product of a few is exact.
std::vector<double> int_vec(std::size_t n) {
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<double>(static_cast<int>(rng()() % 19u) - 9);
  return v;
}
// Column-major n x n, off-diagonal in (-1, 1), diagonal +-(n + 2 + ...).
std::vector<double> well_conditioned_triangle(int n, int lda) {
  std::vector<double> a(static_cast<std::size_t>(lda) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < lda; ++i) {
      double v = wide(-20, -1);
      if (i == j) v = (v < 0 ? -1.0 : 1.0) * (n + 2.0 + std::fabs(v));
      a[i + static_cast<std::size_t>(j) * lda] = v;
    }
  return a;
}

// Checks that `call` reports exactly one error through xerbla_ with this
// name and INFO, none through cblas_xerbla, and leaves `watched` untouched.
void expect_xerbla(const char* name, int info, const std::function<void()>& call,
                   const std::vector<std::vector<double>*>& watched, const char* what) {
  std::vector<std::vector<double>> before;
  for (auto* w : watched) before.push_back(*w);
  const int xc = g_xerbla.calls, cc = g_cblas.calls;
  call();
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(g_xerbla.calls == xc + 1);
    BOOST_TEST(g_cblas.calls == cc);
    BOOST_TEST(g_xerbla.name == std::string(name));
    BOOST_TEST(g_xerbla.info == info);
    for (std::size_t i = 0; i < watched.size(); ++i) BOOST_TEST(same_bits(*watched[i], before[i]));
  }
}

// Netlib's CBLAS hands cblas_xerbla the number of the argument in the
// column-major call it makes; for a row-major call its handler maps that
// back to the position in the cblas_ call, as Netlib's testing/c_xerbla.c
// does (this is that mapping, written from it, for the routines here).
int netlib_row_major_map(const std::string& rout, int info) {
  auto has = [&](const char* s) { return rout.find(s) != std::string::npos; };
  auto swap = [&](int a, int b) { return info == a ? b : info == b ? a : info; };
  if (has("gemm")) return info == 4 || info == 5 ? swap(4, 5) : swap(9, 11);
  if (has("symm")) return swap(4, 5);
  if (has("trmm") || has("trsm")) return swap(6, 7);
  if (has("gemv")) return swap(3, 4);
  if (has("ger")) return info == 2 || info == 3 ? swap(2, 3) : swap(6, 8);
  return info;
}
// The layout of the calls expect_cblas checks (cblas_xerbla_numbers sets it).
bool g_row_major_calls = false;

// Checks that `call` reports exactly one error through cblas_xerbla, whose
// number (mapped back as Netlib's handler does for row-major calls) is the
// position p in the cblas_ call, none through xerbla_, and leaves `watched`
// untouched.
void expect_cblas(const char* rout, int p, const std::function<void()>& call,
                  const std::vector<std::vector<double>*>& watched, const std::string& what) {
  std::vector<std::vector<double>> before;
  for (auto* w : watched) before.push_back(*w);
  const int xc = g_xerbla.calls, cc = g_cblas.calls;
  call();
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(g_cblas.calls == cc + 1);
    BOOST_TEST(g_xerbla.calls == xc);
    BOOST_TEST(g_cblas.name == std::string(rout));
    const int mapped = g_row_major_calls ? netlib_row_major_map(rout, g_cblas.info) : g_cblas.info;
    BOOST_TEST(mapped == p);
    for (std::size_t i = 0; i < watched.size(); ++i) BOOST_TEST(same_bits(*watched[i], before[i]));
  }
}

void expect_no_error(const std::function<void()>& call, const char* what) {
  const int xc = g_xerbla.calls, cc = g_cblas.calls;
  call();
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(g_xerbla.calls == xc);
    BOOST_TEST(g_cblas.calls == cc);
  }
}

}  // namespace

// ======================================================================
// Argument errors: the reference's INFO for every checked parameter.
// ======================================================================

BOOST_AUTO_TEST_CASE(xerbla_level2_numbers) {
  std::vector<double> A(64, 1.0), X(16, 1.0), Y(16, 1.0);
  const double one = 1.0, zero = 0.0;
  const int i3 = 3, i2 = 2, i1 = 1, i0 = 0, im1 = -1;
  std::vector<std::vector<double>*> w = {&A, &X, &Y};
  // DGEMV(TRANS, M, N, ALPHA, A, LDA, X, INCX, BETA, Y, INCY)
  auto gemv = [&](const char* t, const int* m, const int* n, const int* lda, const int* incx,
                  const int* incy) {
    return [=, &A, &X, &Y] { dgemv_(t, m, n, &one, A.data(), lda, X.data(), incx, &zero, Y.data(), incy, 1); };
  };
  expect_xerbla("DGEMV ", 1, gemv("X", &i3, &i3, &i3, &i1, &i1), w, "gemv trans");
  expect_xerbla("DGEMV ", 2, gemv("N", &im1, &i3, &i3, &i1, &i1), w, "gemv m");
  expect_xerbla("DGEMV ", 3, gemv("T", &i3, &im1, &i3, &i1, &i1), w, "gemv n");
  expect_xerbla("DGEMV ", 6, gemv("N", &i3, &i3, &i2, &i1, &i1), w, "gemv lda < m");
  expect_xerbla("DGEMV ", 8, gemv("C", &i3, &i3, &i3, &i0, &i1), w, "gemv incx");
  expect_xerbla("DGEMV ", 11, gemv("t", &i3, &i3, &i3, &i1, &i0), w, "gemv incy");
  expect_xerbla("DGEMV ", 1, gemv("X", &im1, &i3, &i0, &i0, &i0), w, "gemv order: trans first");
  expect_xerbla("DGEMV ", 2, gemv("N", &im1, &im1, &i0, &i0, &i0), w, "gemv order: m before n");
  expect_xerbla("DGEMV ", 2, gemv("N", nullptr, &i3, &i3, &i1, &i1), w, "gemv null m");
  expect_no_error(gemv("n", &i3, &i2, &i3, &i1, &i1), "gemv lower-case n is valid");

  // DGER(M, N, ALPHA, X, INCX, Y, INCY, A, LDA)
  auto ger = [&](int m, int n, int incx, int incy, int lda) {
    return [=, &A, &X, &Y] { dger_(&m, &n, &one, X.data(), &incx, Y.data(), &incy, A.data(), &lda); };
  };
  expect_xerbla("DGER  ", 1, ger(-1, 3, 1, 1, 3), w, "ger m");
  expect_xerbla("DGER  ", 2, ger(3, -1, 1, 1, 3), w, "ger n");
  expect_xerbla("DGER  ", 5, ger(3, 3, 0, 1, 3), w, "ger incx");
  expect_xerbla("DGER  ", 7, ger(3, 3, 1, 0, 3), w, "ger incy");
  expect_xerbla("DGER  ", 9, ger(3, 3, 1, 1, 2), w, "ger lda");

  // DSYMV(UPLO, N, ALPHA, A, LDA, X, INCX, BETA, Y, INCY)
  auto symv = [&](const char* u, int n, int lda, int incx, int incy) {
    return [=, &A, &X, &Y] { dsymv_(u, &n, &one, A.data(), &lda, X.data(), &incx, &zero, Y.data(), &incy, 1); };
  };
  expect_xerbla("DSYMV ", 1, symv("X", 3, 3, 1, 1), w, "symv uplo");
  expect_xerbla("DSYMV ", 2, symv("U", -1, 3, 1, 1), w, "symv n");
  expect_xerbla("DSYMV ", 5, symv("L", 3, 2, 1, 1), w, "symv lda");
  expect_xerbla("DSYMV ", 7, symv("U", 3, 3, 0, 1), w, "symv incx");
  expect_xerbla("DSYMV ", 10, symv("U", 3, 3, 1, 0), w, "symv incy");

  // DTRMV / DTRSV(UPLO, TRANS, DIAG, N, A, LDA, X, INCX)
  for (const char* name : {"DTRMV ", "DTRSV "}) {
    const bool mv = name[3] == 'M';
    auto tr = [&, mv](const char* u, const char* t, const char* d, int n, int lda, int incx) {
      return [=, &A, &X] {
        if (mv) dtrmv_(u, t, d, &n, A.data(), &lda, X.data(), &incx, 1, 1, 1);
        else dtrsv_(u, t, d, &n, A.data(), &lda, X.data(), &incx, 1, 1, 1);
      };
    };
    expect_xerbla(name, 1, tr("X", "N", "N", 3, 3, 1), w, "tr uplo");
    expect_xerbla(name, 2, tr("U", "X", "N", 3, 3, 1), w, "tr trans");
    expect_xerbla(name, 3, tr("U", "N", "X", 3, 3, 1), w, "tr diag");
    expect_xerbla(name, 4, tr("L", "T", "U", -1, 3, 1), w, "tr n");
    expect_xerbla(name, 6, tr("L", "C", "N", 3, 2, 1), w, "tr lda");
    expect_xerbla(name, 8, tr("u", "t", "u", 3, 3, 0), w, "tr incx");
  }
}

BOOST_AUTO_TEST_CASE(xerbla_level3_numbers) {
  std::vector<double> A(64, 1.0), B(64, 1.0), C(64, 1.0);
  std::vector<std::vector<double>*> w = {&A, &B, &C};
  const double one = 1.0;
  // DGEMM(TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC); m=3, n=4, k=5
  auto gemm = [&](const char* ta, const char* tb, int m, int n, int k, int lda, int ldb, int ldc) {
    return [=, &A, &B, &C] {
      dgemm_(ta, tb, &m, &n, &k, &one, A.data(), &lda, B.data(), &ldb, &one, C.data(), &ldc, 1, 1);
    };
  };
  expect_xerbla("DGEMM ", 1, gemm("X", "N", 3, 4, 5, 5, 5, 3), w, "gemm transa");
  expect_xerbla("DGEMM ", 2, gemm("N", "X", 3, 4, 5, 5, 5, 3), w, "gemm transb");
  expect_xerbla("DGEMM ", 3, gemm("N", "N", -1, 4, 5, 5, 5, 3), w, "gemm m");
  expect_xerbla("DGEMM ", 4, gemm("N", "N", 3, -1, 5, 5, 5, 3), w, "gemm n");
  expect_xerbla("DGEMM ", 5, gemm("N", "N", 3, 4, -1, 5, 5, 3), w, "gemm k");
  expect_xerbla("DGEMM ", 8, gemm("N", "N", 3, 4, 5, 2, 5, 3), w, "gemm lda < m (N)");
  expect_xerbla("DGEMM ", 8, gemm("T", "N", 3, 4, 5, 4, 5, 3), w, "gemm lda < k (T)");
  expect_xerbla("DGEMM ", 10, gemm("N", "N", 3, 4, 5, 3, 4, 3), w, "gemm ldb < k (N)");
  expect_xerbla("DGEMM ", 10, gemm("N", "C", 3, 4, 5, 3, 3, 3), w, "gemm ldb < n (C)");
  expect_xerbla("DGEMM ", 13, gemm("N", "N", 3, 4, 5, 3, 5, 2), w, "gemm ldc");
  expect_no_error(gemm("T", "T", 3, 4, 5, 5, 4, 3), "gemm T,T valid");

  // DSYMM(SIDE, UPLO, M, N, ALPHA, A, LDA, B, LDB, BETA, C, LDC); m=3, n=4
  auto symm = [&](const char* s, const char* u, int m, int n, int lda, int ldb, int ldc) {
    return [=, &A, &B, &C] {
      dsymm_(s, u, &m, &n, &one, A.data(), &lda, B.data(), &ldb, &one, C.data(), &ldc, 1, 1);
    };
  };
  expect_xerbla("DSYMM ", 1, symm("X", "U", 3, 4, 4, 3, 3), w, "symm side");
  expect_xerbla("DSYMM ", 2, symm("L", "X", 3, 4, 4, 3, 3), w, "symm uplo");
  expect_xerbla("DSYMM ", 3, symm("L", "U", -1, 4, 4, 3, 3), w, "symm m");
  expect_xerbla("DSYMM ", 4, symm("R", "L", 3, -1, 4, 3, 3), w, "symm n");
  expect_xerbla("DSYMM ", 7, symm("L", "U", 3, 4, 2, 3, 3), w, "symm lda < m (L)");
  expect_xerbla("DSYMM ", 7, symm("R", "U", 3, 4, 3, 3, 3), w, "symm lda < n (R)");
  expect_xerbla("DSYMM ", 9, symm("L", "U", 3, 4, 4, 2, 3), w, "symm ldb");
  expect_xerbla("DSYMM ", 12, symm("L", "U", 3, 4, 4, 3, 2), w, "symm ldc");

  // DSYRK(UPLO, TRANS, N, K, ALPHA, A, LDA, BETA, C, LDC); n=3, k=5
  auto syrk = [&](const char* u, const char* t, int n, int k, int lda, int ldc) {
    return [=, &A, &C] {
      dsyrk_(u, t, &n, &k, &one, A.data(), &lda, &one, C.data(), &ldc, 1, 1);
    };
  };
  expect_xerbla("DSYRK ", 1, syrk("X", "N", 3, 5, 5, 3), w, "syrk uplo");
  expect_xerbla("DSYRK ", 2, syrk("U", "X", 3, 5, 5, 3), w, "syrk trans");
  expect_xerbla("DSYRK ", 3, syrk("U", "N", -1, 5, 5, 3), w, "syrk n");
  expect_xerbla("DSYRK ", 4, syrk("L", "T", 3, -1, 5, 3), w, "syrk k");
  expect_xerbla("DSYRK ", 7, syrk("U", "N", 3, 5, 2, 3), w, "syrk lda < n (N)");
  expect_xerbla("DSYRK ", 7, syrk("U", "T", 3, 5, 4, 3), w, "syrk lda < k (T)");
  expect_xerbla("DSYRK ", 10, syrk("U", "N", 3, 5, 3, 2), w, "syrk ldc");

  // DTRMM / DTRSM(SIDE, UPLO, TRANSA, DIAG, M, N, ALPHA, A, LDA, B, LDB); m=3, n=4
  for (const char* name : {"DTRMM ", "DTRSM "}) {
    const bool mm = name[3] == 'M';
    auto tr = [&, mm](const char* s, const char* u, const char* t, const char* d, int m, int n,
                      int lda, int ldb) {
      return [=, &A, &B] {
        if (mm) dtrmm_(s, u, t, d, &m, &n, &one, A.data(), &lda, B.data(), &ldb, 1, 1, 1, 1);
        else dtrsm_(s, u, t, d, &m, &n, &one, A.data(), &lda, B.data(), &ldb, 1, 1, 1, 1);
      };
    };
    expect_xerbla(name, 1, tr("X", "U", "N", "N", 3, 4, 4, 3), w, "tr side");
    expect_xerbla(name, 2, tr("L", "X", "N", "N", 3, 4, 4, 3), w, "tr uplo");
    expect_xerbla(name, 3, tr("L", "U", "X", "N", 3, 4, 4, 3), w, "tr transa");
    expect_xerbla(name, 4, tr("L", "U", "N", "X", 3, 4, 4, 3), w, "tr diag");
    expect_xerbla(name, 5, tr("R", "L", "T", "U", -1, 4, 4, 3), w, "tr m");
    expect_xerbla(name, 6, tr("R", "L", "C", "N", 3, -1, 4, 3), w, "tr n");
    expect_xerbla(name, 9, tr("L", "U", "N", "N", 3, 4, 2, 3), w, "tr lda < m (L)");
    expect_xerbla(name, 9, tr("R", "U", "N", "N", 3, 4, 3, 3), w, "tr lda < n (R)");
    expect_xerbla(name, 11, tr("l", "u", "n", "u", 3, 4, 4, 2), w, "tr ldb");
  }
}

BOOST_AUTO_TEST_CASE(xerbla_null_scalar_pointer) {
  std::vector<double> X(4, 1.0), Y(4, 2.0);
  std::vector<std::vector<double>*> w = {&X, &Y};
  const int n = 4, one = 1;
  expect_xerbla("DDOT  ", 1, [&] { (void)ddot_(nullptr, X.data(), &one, Y.data(), &one); }, w, "ddot n");
  expect_xerbla("DAXPY ", 2, [&] { daxpy_(&n, nullptr, X.data(), &one, Y.data(), &one); }, w, "daxpy alpha");
  expect_xerbla("IDAMAX", 3, [&] { BOOST_TEST(idamax_(&n, X.data(), nullptr) == 0); }, w, "idamax incx");
}

// The reference CBLAS numbers: positions in the cblas_ call, for both
// layouts (for row-major, after the handler's mapping; see expect_cblas).
BOOST_AUTO_TEST_CASE(cblas_xerbla_numbers) {
  std::vector<double> A(64, 1.0), B(64, 1.0), C(64, 1.0), X(16, 1.0), Y(16, 1.0);
  std::vector<std::vector<double>*> w = {&A, &B, &C, &X, &Y};
  for (int lay : {CblasColMajor, CblasRowMajor}) {
    const bool row = lay == CblasRowMajor;
    g_row_major_calls = row;
    const std::string L = row ? "row " : "col ";
    // cblas_dgemv(layout 1, trans 2, M 3, N 4, alpha 5, A 6, lda 7, X 8, incX 9, beta 10, Y 11, incY 12); M=3, N=4
    auto gemv = [&](int l, int t, int m, int n, int lda, int incx, int incy) {
      return [=, &A, &X, &Y] { cblas_dgemv(l, t, m, n, 1.0, A.data(), lda, X.data(), incx, 0.0, Y.data(), incy); };
    };
    const int gemv_lda = row ? 4 : 3;
    expect_cblas("cblas_dgemv", 1, gemv(0, CblasNoTrans, 3, 4, gemv_lda, 1, 1), w, L + "gemv layout");
    expect_cblas("cblas_dgemv", 2, gemv(lay, 0, 3, 4, gemv_lda, 1, 1), w, L + "gemv trans");
    expect_cblas("cblas_dgemv", 3, gemv(lay, CblasNoTrans, -1, 4, gemv_lda, 1, 1), w, L + "gemv M");
    expect_cblas("cblas_dgemv", 4, gemv(lay, CblasTrans, 3, -1, gemv_lda, 1, 1), w, L + "gemv N");
    expect_cblas("cblas_dgemv", 7, gemv(lay, CblasNoTrans, 3, 4, gemv_lda - 1, 1, 1), w, L + "gemv lda");
    expect_cblas("cblas_dgemv", 9, gemv(lay, CblasConjTrans, 3, 4, gemv_lda, 0, 1), w, L + "gemv incX");
    expect_cblas("cblas_dgemv", 12, gemv(lay, CblasNoTrans, 3, 4, gemv_lda, 1, 0), w, L + "gemv incY");
    // Both M and N bad: the Fortran routine checks its M first, which is N in row-major.
    expect_cblas("cblas_dgemv", row ? 4 : 3, gemv(lay, CblasNoTrans, -1, -1, gemv_lda, 1, 1), w,
                 L + "gemv M and N");

    // cblas_dger(layout 1, M 2, N 3, alpha 4, X 5, incX 6, Y 7, incY 8, A 9, lda 10); M=3, N=4
    auto ger = [&](int m, int n, int incx, int incy, int lda) {
      return [=, &A, &X, &Y] { cblas_dger(lay, m, n, 1.0, X.data(), incx, Y.data(), incy, A.data(), lda); };
    };
    const int ger_lda = row ? 4 : 3;
    expect_cblas("cblas_dger", 1, [&] { cblas_dger(0, 3, 4, 1.0, X.data(), 1, Y.data(), 1, A.data(), 4); }, w, L + "ger layout");
    expect_cblas("cblas_dger", 2, ger(-1, 4, 1, 1, ger_lda), w, L + "ger M");
    expect_cblas("cblas_dger", 3, ger(3, -1, 1, 1, ger_lda), w, L + "ger N");
    expect_cblas("cblas_dger", 6, ger(3, 4, 0, 1, ger_lda), w, L + "ger incX");
    expect_cblas("cblas_dger", 8, ger(3, 4, 1, 0, ger_lda), w, L + "ger incY");
    expect_cblas("cblas_dger", 10, ger(3, 4, 1, 1, ger_lda - 1), w, L + "ger lda");

    // cblas_dsymv(layout 1, uplo 2, N 3, alpha 4, A 5, lda 6, X 7, incX 8, beta 9, Y 10, incY 11)
    auto symv = [&](int u, int n, int lda, int incx, int incy) {
      return [=, &A, &X, &Y] { cblas_dsymv(lay, u, n, 1.0, A.data(), lda, X.data(), incx, 0.0, Y.data(), incy); };
    };
    expect_cblas("cblas_dsymv", 1, [&] { cblas_dsymv(100, CblasUpper, 3, 1.0, A.data(), 3, X.data(), 1, 0.0, Y.data(), 1); }, w, L + "symv layout");
    expect_cblas("cblas_dsymv", 2, symv(0, 3, 3, 1, 1), w, L + "symv uplo");
    expect_cblas("cblas_dsymv", 3, symv(CblasUpper, -1, 3, 1, 1), w, L + "symv N");
    expect_cblas("cblas_dsymv", 6, symv(CblasLower, 3, 2, 1, 1), w, L + "symv lda");
    expect_cblas("cblas_dsymv", 8, symv(CblasUpper, 3, 3, 0, 1), w, L + "symv incX");
    expect_cblas("cblas_dsymv", 11, symv(CblasUpper, 3, 3, 1, 0), w, L + "symv incY");

    // cblas_dtrmv / dtrsv(layout 1, uplo 2, trans 3, diag 4, N 5, A 6, lda 7, X 8, incX 9)
    for (const char* rout : {"cblas_dtrmv", "cblas_dtrsv"}) {
      const bool mv = rout[9] == 'm';
      auto tr = [&, mv](int u, int t, int d, int n, int lda, int incx) {
        return [=, &A, &X] {
          if (mv) cblas_dtrmv(lay, u, t, d, n, A.data(), lda, X.data(), incx);
          else cblas_dtrsv(lay, u, t, d, n, A.data(), lda, X.data(), incx);
        };
      };
      expect_cblas(rout, 1, [&, mv] {
        if (mv) cblas_dtrmv(7, CblasUpper, CblasNoTrans, CblasNonUnit, 3, A.data(), 3, X.data(), 1);
        else cblas_dtrsv(7, CblasUpper, CblasNoTrans, CblasNonUnit, 3, A.data(), 3, X.data(), 1);
      }, w, L + "tr layout");
      expect_cblas(rout, 2, tr(0, CblasNoTrans, CblasNonUnit, 3, 3, 1), w, L + "tr uplo");
      expect_cblas(rout, 3, tr(CblasUpper, 0, CblasNonUnit, 3, 3, 1), w, L + "tr trans");
      expect_cblas(rout, 4, tr(CblasUpper, CblasNoTrans, 0, 3, 3, 1), w, L + "tr diag");
      expect_cblas(rout, 5, tr(CblasLower, CblasTrans, CblasUnit, -1, 3, 1), w, L + "tr N");
      expect_cblas(rout, 7, tr(CblasLower, CblasConjTrans, CblasNonUnit, 3, 2, 1), w, L + "tr lda");
      expect_cblas(rout, 9, tr(CblasUpper, CblasNoTrans, CblasUnit, 3, 3, 0), w, L + "tr incX");
    }

    // cblas_dgemm(layout 1, TA 2, TB 3, M 4, N 5, K 6, alpha 7, A 8, lda 9, B 10, ldb 11, beta 12, C 13, ldc 14)
    // M=3, N=4, K=5, NoTrans: A is M x K, B is K x N, C is M x N.
    auto gemm = [&](int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc) {
      return [=, &A, &B, &C] {
        cblas_dgemm(lay, ta, tb, m, n, k, 1.0, A.data(), lda, B.data(), ldb, 1.0, C.data(), ldc);
      };
    };
    const int lda_nn = row ? 5 : 3, ldb_nn = row ? 4 : 5, ldc_ok = row ? 4 : 3;
    const int N = CblasNoTrans, T = CblasTrans;
    expect_cblas("cblas_dgemm", 1, [&] { cblas_dgemm(103, N, N, 3, 4, 5, 1.0, A.data(), 5, B.data(), 5, 1.0, C.data(), 4); }, w, L + "gemm layout");
    expect_cblas("cblas_dgemm", 2, gemm(0, N, 3, 4, 5, lda_nn, ldb_nn, ldc_ok), w, L + "gemm TA");
    expect_cblas("cblas_dgemm", 3, gemm(N, 0, 3, 4, 5, lda_nn, ldb_nn, ldc_ok), w, L + "gemm TB");
    expect_cblas("cblas_dgemm", 4, gemm(N, N, -1, 4, 5, lda_nn, ldb_nn, ldc_ok), w, L + "gemm M");
    expect_cblas("cblas_dgemm", 5, gemm(N, N, 3, -1, 5, lda_nn, ldb_nn, ldc_ok), w, L + "gemm N");
    expect_cblas("cblas_dgemm", 6, gemm(N, N, 3, 4, -1, lda_nn, ldb_nn, ldc_ok), w, L + "gemm K");
    expect_cblas("cblas_dgemm", 9, gemm(N, N, 3, 4, 5, lda_nn - 1, ldb_nn, ldc_ok), w, L + "gemm lda");
    expect_cblas("cblas_dgemm", 11, gemm(N, N, 3, 4, 5, lda_nn, ldb_nn - 1, ldc_ok), w, L + "gemm ldb");
    expect_cblas("cblas_dgemm", 14, gemm(N, N, 3, 4, 5, lda_nn, ldb_nn, ldc_ok - 1), w, L + "gemm ldc");
    // Transposed A is K x M: lda >= M row-major, >= K column-major.
    expect_cblas("cblas_dgemm", 9, gemm(T, N, 3, 4, 5, row ? 2 : 4, ldb_nn, ldc_ok), w, L + "gemm lda (T)");
    expect_no_error(gemm(T, T, 3, 4, 5, row ? 3 : 5, row ? 5 : 4, ldc_ok), "gemm T,T valid");

    // cblas_dsymm(layout 1, side 2, uplo 3, M 4, N 5, alpha 6, A 7, lda 8, B 9, ldb 10, beta 11, C 12, ldc 13)
    auto symm = [&](int s, int u, int m, int n, int lda, int ldb, int ldc) {
      return [=, &A, &B, &C] {
        cblas_dsymm(lay, s, u, m, n, 1.0, A.data(), lda, B.data(), ldb, 1.0, C.data(), ldc);
      };
    };
    const int ldbc = row ? 4 : 3;  // B, C are 3 x 4
    expect_cblas("cblas_dsymm", 1, [&] { cblas_dsymm(0, CblasLeft, CblasUpper, 3, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4); }, w, L + "symm layout");
    expect_cblas("cblas_dsymm", 2, symm(0, CblasUpper, 3, 4, 3, ldbc, ldbc), w, L + "symm side");
    expect_cblas("cblas_dsymm", 3, symm(CblasLeft, 0, 3, 4, 3, ldbc, ldbc), w, L + "symm uplo");
    expect_cblas("cblas_dsymm", 4, symm(CblasLeft, CblasUpper, -1, 4, 3, ldbc, ldbc), w, L + "symm M");
    expect_cblas("cblas_dsymm", 5, symm(CblasRight, CblasLower, 3, -1, 4, ldbc, ldbc), w, L + "symm N");
    expect_cblas("cblas_dsymm", 8, symm(CblasLeft, CblasUpper, 3, 4, 2, ldbc, ldbc), w, L + "symm lda (L)");
    expect_cblas("cblas_dsymm", 8, symm(CblasRight, CblasUpper, 3, 4, 3, ldbc, ldbc), w, L + "symm lda (R)");
    expect_cblas("cblas_dsymm", 10, symm(CblasLeft, CblasUpper, 3, 4, 3, ldbc - 1, ldbc), w, L + "symm ldb");
    expect_cblas("cblas_dsymm", 13, symm(CblasLeft, CblasUpper, 3, 4, 3, ldbc, ldbc - 1), w, L + "symm ldc");

    // cblas_dsyrk(layout 1, uplo 2, trans 3, N 4, K 5, alpha 6, A 7, lda 8, beta 9, C 10, ldc 11); N=3, K=5
    auto syrk = [&](int u, int t, int n, int k, int lda, int ldc) {
      return [=, &A, &C] { cblas_dsyrk(lay, u, t, n, k, 1.0, A.data(), lda, 1.0, C.data(), ldc); };
    };
    const int lda_n = row ? 5 : 3, lda_t = row ? 3 : 5;  // NoTrans A is N x K; Trans A is K x N
    expect_cblas("cblas_dsyrk", 1, [&] { cblas_dsyrk(0, CblasUpper, N, 3, 5, 1.0, A.data(), 5, 1.0, C.data(), 3); }, w, L + "syrk layout");
    expect_cblas("cblas_dsyrk", 2, syrk(0, N, 3, 5, lda_n, 3), w, L + "syrk uplo");
    expect_cblas("cblas_dsyrk", 3, syrk(CblasUpper, 0, 3, 5, lda_n, 3), w, L + "syrk trans");
    expect_cblas("cblas_dsyrk", 4, syrk(CblasUpper, N, -1, 5, lda_n, 3), w, L + "syrk N");
    expect_cblas("cblas_dsyrk", 5, syrk(CblasLower, T, 3, -1, lda_t, 3), w, L + "syrk K");
    expect_cblas("cblas_dsyrk", 8, syrk(CblasUpper, N, 3, 5, lda_n - 1, 3), w, L + "syrk lda (N)");
    expect_cblas("cblas_dsyrk", 8, syrk(CblasUpper, T, 3, 5, lda_t - 1, 3), w, L + "syrk lda (T)");
    expect_cblas("cblas_dsyrk", 11, syrk(CblasUpper, N, 3, 5, lda_n, 2), w, L + "syrk ldc");

    // cblas_dtrmm / dtrsm(layout 1, side 2, uplo 3, trans 4, diag 5, M 6, N 7, alpha 8, A 9, lda 10, B 11, ldb 12); M=3, N=4
    for (const char* rout : {"cblas_dtrmm", "cblas_dtrsm"}) {
      const bool mm = rout[9] == 'm';
      auto tr = [&, mm](int s, int u, int t, int d, int m, int n, int lda, int ldb) {
        return [=, &A, &B] {
          if (mm) cblas_dtrmm(lay, s, u, t, d, m, n, 1.0, A.data(), lda, B.data(), ldb);
          else cblas_dtrsm(lay, s, u, t, d, m, n, 1.0, A.data(), lda, B.data(), ldb);
        };
      };
      const int ldb = row ? 4 : 3;
      const int Lf = CblasLeft, R = CblasRight, U = CblasUpper, Lo = CblasLower;
      expect_cblas(rout, 1, [&, mm] {
        if (mm) cblas_dtrmm(0, Lf, U, N, CblasNonUnit, 3, 4, 1.0, A.data(), 4, B.data(), 4);
        else cblas_dtrsm(0, Lf, U, N, CblasNonUnit, 3, 4, 1.0, A.data(), 4, B.data(), 4);
      }, w, L + "trmm layout");
      expect_cblas(rout, 2, tr(0, U, N, CblasNonUnit, 3, 4, 3, ldb), w, L + "trmm side");
      expect_cblas(rout, 3, tr(Lf, 0, N, CblasNonUnit, 3, 4, 3, ldb), w, L + "trmm uplo");
      expect_cblas(rout, 4, tr(Lf, U, 0, CblasNonUnit, 3, 4, 3, ldb), w, L + "trmm trans");
      expect_cblas(rout, 5, tr(Lf, U, N, 0, 3, 4, 3, ldb), w, L + "trmm diag");
      expect_cblas(rout, 6, tr(R, Lo, T, CblasUnit, -1, 4, 4, ldb), w, L + "trmm M");
      expect_cblas(rout, 7, tr(R, Lo, CblasConjTrans, CblasUnit, 3, -1, 4, ldb), w, L + "trmm N");
      expect_cblas(rout, 10, tr(Lf, U, N, CblasNonUnit, 3, 4, 2, ldb), w, L + "trmm lda (L)");
      expect_cblas(rout, 10, tr(R, U, N, CblasNonUnit, 3, 4, 3, ldb), w, L + "trmm lda (R)");
      expect_cblas(rout, 12, tr(Lf, U, N, CblasUnit, 3, 4, 3, ldb - 1), w, L + "trmm ldb");
    }
  }
  g_row_major_calls = false;
}

// The numbers as handed to cblas_xerbla for row-major calls are Netlib's
// (those of the column-major call on the transposed problem), not yet
// mapped: Netlib's testers (xdcblat2/3) map them themselves and failed with
// "XERBLA WAS CALLED WITH INFO = 4 INSTEAD OF 3" when they were (issue 15,
// row 14). Netlib's RowMajorStrg does not exist in this process (OpenBLAS).
BOOST_AUTO_TEST_CASE(cblas_xerbla_gets_netlib_numbers) {
  std::vector<double> A(64, 1.0), B(64, 1.0), C(64, 1.0), X(16, 1.0), Y(16, 1.0);
  const int R = CblasRowMajor, N = CblasNoTrans;
  auto raw = [&](const std::function<void()>& call) {
    const int cc = g_cblas.calls;
    call();
    return g_cblas.calls == cc + 1 ? g_cblas.info : -1;
  };
  // M (position 3) is the Fortran N (3): 3 + 1.
  BOOST_TEST(raw([&] { cblas_dgemv(R, N, -1, 4, 1.0, A.data(), 4, X.data(), 1, 0.0, Y.data(), 1); }) == 4);
  // N (4) is the Fortran M (2): 2 + 1.
  BOOST_TEST(raw([&] { cblas_dgemv(R, N, 3, -1, 1.0, A.data(), 4, X.data(), 1, 0.0, Y.data(), 1); }) == 3);
  // M (2) is the Fortran N (2): 3; incY (8) is the Fortran INCX (5): 6.
  BOOST_TEST(raw([&] { cblas_dger(R, -1, 4, 1.0, X.data(), 1, Y.data(), 1, A.data(), 4); }) == 3);
  BOOST_TEST(raw([&] { cblas_dger(R, 3, 4, 1.0, X.data(), 1, Y.data(), 0, A.data(), 4); }) == 6);
  // gemm lda (9) is the Fortran LDB (10): 11; M (4) is the Fortran N (4): 5.
  BOOST_TEST(raw([&] { cblas_dgemm(R, N, N, 3, 4, 5, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4); }) == 11);
  BOOST_TEST(raw([&] { cblas_dgemm(R, N, N, -1, 4, 5, 1.0, A.data(), 5, B.data(), 4, 1.0, C.data(), 4); }) == 5);
  // symm M (4) is the Fortran N (4): 5.
  BOOST_TEST(raw([&] { cblas_dsymm(R, CblasLeft, CblasUpper, -1, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4); }) == 5);
  // trsm M (6) is the Fortran N (6): 7.
  BOOST_TEST(raw([&] { cblas_dtrsm(R, CblasLeft, CblasUpper, N, CblasNonUnit, -1, 4, 1.0, A.data(), 4, B.data(), 4); }) == 7);
  // Column-major and options: the position itself.
  BOOST_TEST(raw([&] { cblas_dgemv(CblasColMajor, N, -1, 4, 1.0, A.data(), 3, X.data(), 1, 0.0, Y.data(), 1); }) == 3);
  BOOST_TEST(raw([&] { cblas_dgemm(R, 0, N, 3, 4, 5, 1.0, A.data(), 5, B.data(), 4, 1.0, C.data(), 4); }) == 2);
}

// A program's handler may throw (a C++ program's xerbla_ often does): the
// exception reaches the program, as through the reference BLAS, instead of
// ending it in std::terminate at a noexcept frame; nothing was touched.
BOOST_AUTO_TEST_CASE(handler_exceptions_reach_the_program) {
  std::vector<double> A(16, 1.0), X(4, 1.0), Y(4, 1.0);
  const auto A0 = A, X0 = X, Y0 = Y;
  const int m = 2, n = 2, lda = 2, zero = 0, one = 1;
  const double alpha = 1.0, beta = 0.0;
  g_throw = true;
  BOOST_CHECK_THROW(dgemv_("N", &m, &n, &alpha, A.data(), &lda, X.data(), &zero, &beta, Y.data(),
                           &one, 1),
                    std::runtime_error);
  BOOST_CHECK_THROW(dgemv_("N", nullptr, &n, &alpha, A.data(), &lda, X.data(), &one, &beta,
                           Y.data(), &one, 1),
                    std::runtime_error);
  BOOST_CHECK_THROW(cblas_dgemv(CblasRowMajor, CblasNoTrans, -1, 2, 1.0, A.data(), 2, X.data(), 1,
                                0.0, Y.data(), 1),
                    std::runtime_error);
  BOOST_CHECK_THROW(cblas_dtrsv(CblasColMajor, 0, CblasNoTrans, CblasNonUnit, 2, A.data(), 2,
                                X.data(), 1),
                    std::runtime_error);
  BOOST_CHECK_THROW(cblas_dgemm(5, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A.data(), 2,
                                A.data(), 2, 0.0, Y.data(), 2),
                    std::runtime_error);
  g_throw = false;
  BOOST_TEST(same_bits(A, A0));
  BOOST_TEST(same_bits(X, X0));
  BOOST_TEST(same_bits(Y, Y0));
  // The library still works after the exceptions.
  dgemv_("N", &m, &n, &alpha, A.data(), &lda, X.data(), &one, &beta, Y.data(), &one, 1);
  BOOST_TEST(same_bits(Y, std::vector<double>{2.0, 2.0, 1.0, 1.0}));
}

// ======================================================================
// Quick returns and the alpha / beta = 0 branches of the reference.
// ======================================================================

BOOST_AUTO_TEST_CASE(quick_returns_and_zero_scalars) {
  const int i0 = 0, i1 = 1, i3 = 3;
  std::vector<double> A(9, nan_), X(3, nan_), Y = {1.5, -2.0, 3.25}, Y0 = Y;
  // dgemv: n == 0 returns at once (the C++ gemv would compute round(beta*y)).
  double alpha = 1.0, beta = 2.0;
  dgemv_("N", &i3, &i0, &alpha, A.data(), &i3, X.data(), &i1, &beta, Y.data(), &i1, 1);
  BOOST_TEST(same_bits(Y, Y0));
  // alpha == 0 and beta == 1: nothing read, nothing written.
  alpha = 0.0, beta = 1.0;
  dgemv_("T", &i3, &i3, &alpha, A.data(), &i3, X.data(), &i1, &beta, Y.data(), &i1, 1);
  BOOST_TEST(same_bits(Y, Y0));
  // alpha == 0, beta == 2: y = 2y, A and x (NaN) not read.
  beta = 2.0;
  dgemv_("N", &i3, &i3, &alpha, A.data(), &i3, X.data(), &i1, &beta, Y.data(), &i1, 1);
  BOOST_TEST(same_bits(Y, std::vector<double>{3.0, -4.0, 6.5}));
  // alpha == 0, beta == 0: y = +0 whatever it held (NaN not propagated).
  Y = {nan_, -inf_, -1.0};
  beta = 0.0;
  dgemv_("N", &i3, &i3, &alpha, A.data(), &i3, X.data(), &i1, &beta, Y.data(), &i1, 1);
  BOOST_TEST(same_bits(Y, std::vector<double>{0.0, 0.0, 0.0}));
  // beta == 0, alpha != 0: y not read; y = A x exactly here (integers).
  A = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  X = {1, -1, 2};
  Y = {nan_, nan_, nan_};
  alpha = 1.0;
  dgemv_("N", &i3, &i3, &alpha, A.data(), &i3, X.data(), &i1, &beta, Y.data(), &i1, 1);
  BOOST_TEST(same_bits(Y, std::vector<double>{1 - 4 + 14, 2 - 5 + 16, 3 - 6 + 18}));

  // dgemm: k == 0 with beta == 1 returns; with beta == 0.5 scales C.
  std::vector<double> C = {1.0, 2.0, 3.0, 4.0}, C0 = C;
  const int i2 = 2;
  alpha = 3.0, beta = 1.0;
  dgemm_("N", "N", &i2, &i2, &i0, &alpha, nullptr, &i2, nullptr, &i1, &beta, C.data(), &i2, 1, 1);
  BOOST_TEST(same_bits(C, C0));
  beta = 0.5;
  dgemm_("N", "N", &i2, &i2, &i0, &alpha, nullptr, &i2, nullptr, &i1, &beta, C.data(), &i2, 1, 1);
  BOOST_TEST(same_bits(C, std::vector<double>{0.5, 1.0, 1.5, 2.0}));
  // alpha == 0, beta == 0: C = +0, A, B (NaN) not read.
  std::vector<double> NA(4, nan_);
  C = {nan_, inf_, -0.0, 7.0};
  alpha = 0.0, beta = 0.0;
  dgemm_("T", "N", &i2, &i2, &i2, &alpha, NA.data(), &i2, NA.data(), &i2, &beta, C.data(), &i2, 1, 1);
  BOOST_TEST(same_bits(C, std::vector<double>{0.0, 0.0, 0.0, 0.0}));
  // beta == 0, alpha != 0: C not read (NaN there does not propagate).
  std::vector<double> P = {1, 2, 3, 4};
  C = {nan_, nan_, nan_, nan_};
  alpha = 1.0;
  dgemm_("N", "N", &i2, &i2, &i2, &alpha, P.data(), &i2, P.data(), &i2, &beta, C.data(), &i2, 1, 1);
  BOOST_TEST(same_bits(C, std::vector<double>{1 + 6, 2 + 8, 3 + 12, 6 + 16}));
  // m == 0: nothing, even with bad data.
  C = C0;
  alpha = 1.0, beta = 0.0;
  dgemm_("N", "N", &i0, &i2, &i2, &alpha, NA.data(), &i1, NA.data(), &i2, &beta, C.data(), &i1, 1, 1);
  BOOST_TEST(same_bits(C, C0));

  // dtrsm alpha == 0: B = 0, A not read (NaN and a zero diagonal there).
  std::vector<double> T(4, nan_), B = {nan_, 1.0, 2.0, 3.0};
  T[0] = 0.0;
  alpha = 0.0;
  dtrsm_("L", "U", "N", "N", &i2, &i2, &alpha, T.data(), &i2, B.data(), &i2, 1, 1, 1, 1);
  BOOST_TEST(same_bits(B, std::vector<double>{0.0, 0.0, 0.0, 0.0}));
  // dtrmm alpha == 0 likewise.
  B = {nan_, 1.0, 2.0, 3.0};
  dtrmm_("R", "L", "T", "U", &i2, &i2, &alpha, T.data(), &i2, B.data(), &i2, 1, 1, 1, 1);
  BOOST_TEST(same_bits(B, std::vector<double>{0.0, 0.0, 0.0, 0.0}));

  // dsyrk alpha == 0, beta == 0: the triangle becomes 0, the other one is untouched.
  C = {nan_, 5.0, nan_, nan_};
  alpha = 0.0, beta = 0.0;
  dsyrk_("U", "N", &i2, &i2, &alpha, NA.data(), &i2, &beta, C.data(), &i2, 1, 1);
  BOOST_TEST(same_bits(C, std::vector<double>{0.0, 5.0, 0.0, 0.0}));
  // dsymv / dsymm with alpha == 0: beta * y / beta * C.
  Y = {1.0, 2.0};
  beta = -3.0;
  dsymv_("L", &i2, &alpha, NA.data(), &i2, NA.data(), &i1, &beta, Y.data(), &i1, 1);
  BOOST_TEST(same_bits(Y, std::vector<double>{-3.0, -6.0}));
  C = {1.0, 2.0, 3.0, 4.0};
  dsymm_("R", "U", &i2, &i2, &alpha, NA.data(), &i2, NA.data(), &i2, &beta, C.data(), &i2, 1, 1);
  BOOST_TEST(same_bits(C, std::vector<double>{-3.0, -6.0, -9.0, -12.0}));
  // dger with alpha == 0: A untouched; daxpy with alpha == 0: y untouched even with NaN x.
  C = C0;
  const double zero = 0.0;
  dger_(&i2, &i2, &zero, NA.data(), &i1, NA.data(), &i1, C.data(), &i2);
  BOOST_TEST(same_bits(C, C0));
  Y = {1.0, 2.0};
  daxpy_(&i2, &zero, NA.data(), &i1, Y.data(), &i1);
  BOOST_TEST(same_bits(Y, std::vector<double>{1.0, 2.0}));
  // n <= 0 in level 1: results 0, nothing written.
  const int im1 = -1;
  BOOST_TEST(bits(ddot_(&i0, NA.data(), &i1, NA.data(), &i1)) == bits(0.0));
  BOOST_TEST(bits(dasum_(&im1, NA.data(), &i1)) == bits(0.0));
  BOOST_TEST(bits(dnrm2_(&i0, NA.data(), &i1)) == bits(0.0));
  BOOST_TEST(idamax_(&i0, NA.data(), &i1) == 0);
  BOOST_TEST(cblas_idamax(0, NA.data(), 1) == 0u);
}

// ======================================================================
// Increments: zero and negative ones against the reference's own loops on
// integer data (every operation exact, so the loop is an exact oracle).
// ======================================================================

namespace {
// The reference's index walk: start at (1-n)*inc when inc < 0, then add inc.
template <class F>
void walk(int n, int incx, int incy, F&& f) {
  i64 ix = incx < 0 ? static_cast<i64>(1 - n) * incx : 0;
  i64 iy = incy < 0 ? static_cast<i64>(1 - n) * incy : 0;
  for (int i = 0; i < n; ++i, ix += incx, iy += incy) f(ix, iy);
}
}  // namespace

BOOST_AUTO_TEST_CASE(level1_increments_exact_loops) {
  for (int n : {1, 2, 7})
    for (int incx : {-3, -1, 0, 1, 2})
      for (int incy : {-2, 0, 1, 3}) {
        BOOST_TEST_CONTEXT("n " << n << " incx " << incx << " incy " << incy) {
          const std::size_t len = 3 * 8 + 1;
          const auto x = int_vec(len), y0 = int_vec(len);
          // ddot
          double d = 0.0;
          walk(n, incx, incy, [&](i64 ix, i64 iy) { d += x[ix] * y0[iy]; });
          BOOST_TEST(bits(ddot_(&n, x.data(), &incx, y0.data(), &incy)) == bits(d));
          BOOST_TEST(bits(cblas_ddot(n, x.data(), incx, y0.data(), incy)) == bits(d));
          // daxpy (alpha = 3): y(iy) = y(iy) + alpha*x(ix), sequentially
          auto ya = y0, yr = y0;
          const double alpha = 3.0;
          walk(n, incx, incy, [&](i64 ix, i64 iy) { yr[iy] = yr[iy] + alpha * x[ix]; });
          daxpy_(&n, &alpha, x.data(), &incx, ya.data(), &incy);
          BOOST_TEST(same_bits(ya, yr));
          // dcopy
          auto yc = y0, ycr = y0;
          walk(n, incx, incy, [&](i64 ix, i64 iy) { ycr[iy] = x[ix]; });
          dcopy_(&n, x.data(), &incx, yc.data(), &incy);
          BOOST_TEST(same_bits(yc, ycr));
          // dswap
          auto xs = x, ys = y0, xsr = x, ysr = y0;
          walk(n, incx, incy, [&](i64 ix, i64 iy) { std::swap(xsr[ix], ysr[iy]); });
          dswap_(&n, xs.data(), &incx, ys.data(), &incy);
          BOOST_TEST(same_bits(xs, xsr));
          BOOST_TEST(same_bits(ys, ysr));
          // drot (c = 2, s = -3): exact on small integers
          auto xr = x, yrr = y0, xro = x, yro = y0;
          const double c = 2.0, s = -3.0;
          walk(n, incx, incy, [&](i64 ix, i64 iy) {
            const double t = c * xro[ix] + s * yro[iy];
            yro[iy] = c * yro[iy] - s * xro[ix];
            xro[ix] = t;
          });
          drot_(&n, xr.data(), &incx, yrr.data(), &incy, &c, &s);
          BOOST_TEST(same_bits(xr, xro));
          BOOST_TEST(same_bits(yrr, yro));
          // dscal, dasum, idamax: incx <= 0 does nothing / gives 0
          auto xsc = x, xscr = x;
          const double two = 2.0;
          if (incx > 0) walk(n, incx, 1, [&](i64 ix, i64) { xscr[ix] = two * xscr[ix]; });
          dscal_(&n, &two, xsc.data(), &incx);
          BOOST_TEST(same_bits(xsc, xscr));
          double as = 0.0;
          if (incx > 0) walk(n, incx, 1, [&](i64 ix, i64) { as += std::fabs(x[ix]); });
          BOOST_TEST(bits(dasum_(&n, x.data(), &incx)) == bits(as));
          int best = 0;
          if (incx > 0) {
            double dmax = -1.0;
            int i = 0;
            walk(n, incx, 1, [&](i64 ix, i64) {
              ++i;
              if (std::fabs(x[ix]) > dmax) dmax = std::fabs(x[ix]), best = i;
            });
          }
          BOOST_TEST(idamax_(&n, x.data(), &incx) == best);
        }
      }
}

BOOST_AUTO_TEST_CASE(level1_bits_match_exala) {
  // Wide data (no exact loop): the same bits as the C++ routines, whose
  // conventions for negative and zero increments are the reference's.
  const int n = 777;
  const auto x = wide_vec(3 * n), y = wide_vec(3 * n);
  for (int incx : {-3, -1, 1, 2})
    for (int incy : {-2, 1, 3}) {
      BOOST_TEST_CONTEXT("incx " << incx << " incy " << incy) {
        BOOST_TEST(bits(ddot_(&n, x.data(), &incx, y.data(), &incy)) ==
                   bits(exala::dot(n, x.data(), incx, y.data(), incy)));
        BOOST_TEST(bits(cblas_ddot(n, x.data(), incx, y.data(), incy)) ==
                   bits(exala::dot(n, x.data(), incx, y.data(), incy)));
        auto ya = y, ye = y;
        const double alpha = wide();
        daxpy_(&n, &alpha, x.data(), &incx, ya.data(), &incy);
        exala::axpy(n, alpha, x.data(), incx, ye.data(), incy);
        BOOST_TEST(same_bits(ya, ye));
      }
    }
  const int zero = 0, one = 1, m2 = -2, two = 2;
  BOOST_TEST(bits(ddot_(&n, x.data(), &zero, y.data(), &one)) ==
             bits(exala::dot(n, x.data(), 0, y.data(), 1)));
  BOOST_TEST(bits(dasum_(&n, x.data(), &two)) == bits(exala::asum(n, x.data(), 2)));
  BOOST_TEST(bits(cblas_dasum(n, x.data(), 1)) == bits(exala::asum(n, x.data(), 1)));
  // dnrm2 as LAPACK >= 3.10 (dnrm2.f90): a negative increment walks
  // backwards (same norm), 0 repeats x_1 n times.
  BOOST_TEST(bits(dnrm2_(&n, x.data(), &m2)) == bits(exala::nrm2(n, x.data(), 2)));
  BOOST_TEST(bits(dnrm2_(&n, x.data(), &zero)) == bits(exala::nrm2(n, x.data(), 0)));
  BOOST_TEST(bits(cblas_dnrm2(n, x.data(), 1)) == bits(exala::nrm2(n, x.data(), 1)));
  auto xs = x, xe = x;
  const double alpha = wide();
  dscal_(&n, &alpha, xs.data(), &two);
  exala::scal(n, alpha, xe.data(), 2);
  BOOST_TEST(same_bits(xs, xe));
  xs = x, xe = x;
  cblas_dscal(n, alpha, xs.data(), 3);
  exala::scal(n, alpha, xe.data(), 3);
  BOOST_TEST(same_bits(xs, xe));
}

BOOST_AUTO_TEST_CASE(idamax_reference_comparisons) {
  const int one = 1, two = 2;
  auto ida = [&](std::vector<double> v, int inc = 1) {
    const int n = static_cast<int>((v.size() + inc - 1) / inc);
    return idamax_(&n, v.data(), &inc);
  };
  BOOST_TEST(ida({nan_, 1.0, 5.0}) == 1);        // DMAX = NaN: nothing is greater
  BOOST_TEST(ida({1.0, nan_, 5.0}) == 3);        // a later NaN is skipped
  BOOST_TEST(ida({1.0, 5.0, nan_, 7.0}) == 4);
  BOOST_TEST(ida({-0.0, 0.0}) == 1);             // ties: the first
  BOOST_TEST(ida({2.0, -3.0, 3.0}) == 2);
  BOOST_TEST(ida({-inf_, inf_}) == 1);
  BOOST_TEST(ida({1.0, 9.0, 2.0, -10.0, 3.0}, 2) == 3);  // elements 1, 2, 3 -> 1, 2, 3
  const std::vector<double> v = {1.0, nan_, -7.0};
  BOOST_TEST(cblas_idamax(3, v.data(), 1) == 2u);
  BOOST_TEST(cblas_idamax(3, v.data(), -1) == 0u);  // incx <= 0: IDAMAX = 0 -> 0
  BOOST_TEST(idamax_(&one, v.data(), &two) == 1);
  // Longer vectors (the contiguous case runs as two vectorized passes):
  // NaNs, infinities, ties and signed zeros anywhere, against the
  // reference's loop.
  std::mt19937_64 g(761);
  for (int n = 1; n <= 70; ++n)
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<double> w(static_cast<std::size_t>(n));
      for (double& e : w) {
        const auto pick = g() % 16;
        e = pick == 0 ? nan_ : pick == 1 ? -inf_ : pick == 2 ? -0.0 : pick < 6 ? 4.0 : static_cast<double>(g() % 9) - 4.0;
      }
      int want = 1;
      double dmax = std::fabs(w[0]);
      for (int i = 1; i < n; ++i)
        if (std::fabs(w[i]) > dmax) dmax = std::fabs(w[i]), want = i + 1;
      BOOST_TEST(idamax_(&n, w.data(), &one) == want, "n = " << n << " rep " << rep);
    }
}

// ======================================================================
// Level 2/3 against the exala C++ routines, bit for bit.
// ======================================================================

BOOST_AUTO_TEST_CASE(gemv_gemm_trsv_trsm_bits) {
  using exala::layout;
  using exala::transpose;
  const int m = 37, n = 29, k = 45;
  for (const char* t : {"N", "T"}) {
    const bool tr = *t == 'T';
    for (int incx : {-2, 1, 3})
      for (int incy : {-1, 2}) {
        const int lda = m + 2;
        const auto a = wide_vec(static_cast<std::size_t>(lda) * n);
        const auto x = wide_vec(3 * (tr ? m : n) + 3);
        const auto y0 = wide_vec(2 * (tr ? n : m) + 2);
        const double alpha = wide(-3, 3), beta = wide(-3, 3);
        auto y = y0, ye = y0;
        dgemv_(t, &m, &n, &alpha, a.data(), &lda, x.data(), &incx, &beta, y.data(), &incy, 1);
        exala::gemv(layout::col_major, tr ? transpose::trans : transpose::none, m, n, alpha,
                    a.data(), lda, x.data(), incx, beta, ye.data(), incy);
        BOOST_TEST(same_bits(y, ye), "dgemv " << t << " incx " << incx << " incy " << incy);
      }
  }
  for (const char* ta : {"N", "T"})
    for (const char* tb : {"N", "C"}) {
      const bool at = *ta == 'T', bt = *tb != 'N';
      const int lda = (at ? k : m) + 1, ldb = (bt ? n : k) + 2, ldc = m + 3;
      const auto a = wide_vec(static_cast<std::size_t>(lda) * (at ? m : k));
      const auto b = wide_vec(static_cast<std::size_t>(ldb) * (bt ? k : n));
      const auto c0 = wide_vec(static_cast<std::size_t>(ldc) * n);
      const double alpha = wide(-3, 3), beta = wide(-3, 3);
      auto c = c0, ce = c0;
      dgemm_(ta, tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc, 1, 1);
      exala::gemm(layout::col_major, at ? transpose::trans : transpose::none,
                  bt ? transpose::trans : transpose::none, m, n, k, alpha, a.data(), lda, b.data(),
                  ldb, beta, ce.data(), ldc);
      BOOST_TEST(same_bits(c, ce), "dgemm " << ta << tb);
    }
  const int nt = 33, ldt = 35;
  const auto t = well_conditioned_triangle(nt, ldt);
  for (const char* u : {"U", "L"})
    for (const char* tr : {"N", "T"})
      for (const char* d : {"N", "U"})
        for (int incx : {-2, 1}) {
          const auto b0 = wide_vec(2 * nt, -10, 10);
          auto x = b0, xe = b0;
          dtrsv_(u, tr, d, &nt, t.data(), &ldt, x.data(), &incx, 1, 1, 1);
          exala::trsv(exala::layout::col_major, *u == 'U' ? exala::uplo::upper : exala::uplo::lower,
                      *tr == 'N' ? transpose::none : transpose::trans,
                      *d == 'U' ? exala::diag::unit : exala::diag::non_unit, nt, t.data(), ldt,
                      xe.data(), incx);
          BOOST_TEST(same_bits(x, xe), "dtrsv " << u << tr << d << " incx " << incx);
        }
  const int ms = 21, ns = 13;
  for (const char* s : {"L", "R"})
    for (const char* u : {"U", "L"})
      for (const char* tr : {"N", "T"}) {
        const bool left = *s == 'L';
        const int order = left ? ms : ns, lda = order + 1, ldb = ms + 2;
        const auto a = well_conditioned_triangle(order, lda);
        const auto b0 = wide_vec(static_cast<std::size_t>(ldb) * ns, -10, 10);
        const double alpha = wide(-3, 3);
        auto b = b0, be = b0;
        dtrsm_(s, u, tr, "N", &ms, &ns, &alpha, a.data(), &lda, b.data(), &ldb, 1, 1, 1, 1);
        exala::trsm(exala::layout::col_major, left ? exala::side::left : exala::side::right,
                    *u == 'U' ? exala::uplo::upper : exala::uplo::lower,
                    *tr == 'N' ? transpose::none : transpose::trans, exala::diag::non_unit, ms, ns,
                    alpha, a.data(), lda, be.data(), ldb);
        BOOST_TEST(same_bits(b, be), "dtrsm " << s << u << tr);
      }
}

// The extras: symmetric and triangular inputs expanded to full matrices, then
// the exact gemv/gemm; dsyrk writes only its triangle.
BOOST_AUTO_TEST_CASE(symv_symm_trmv_trmm_syrk_bits) {
  using exala::layout;
  using exala::transpose;
  const int n = 23, lda = 25, m = 17;
  const auto a = wide_vec(static_cast<std::size_t>(lda) * lda);
  auto full_sym = [&](bool upper, int order) {
    std::vector<double> f(static_cast<std::size_t>(order) * order);
    for (int j = 0; j < order; ++j)
      for (int i = 0; i < order; ++i) {
        const bool stored = upper ? i <= j : i >= j;
        f[i + j * order] = stored ? a[i + j * lda] : a[j + i * lda];
      }
    return f;
  };
  auto full_tri = [&](bool upper, bool unit, int order) {
    std::vector<double> f(static_cast<std::size_t>(order) * order, 0.0);
    for (int j = 0; j < order; ++j)
      for (int i = 0; i < order; ++i)
        if (i == j) f[i + j * order] = unit ? 1.0 : a[i + j * lda];
        else if (upper ? i < j : i > j) f[i + j * order] = a[i + j * lda];
    return f;
  };
  for (bool upper : {true, false}) {
    const char* u = upper ? "U" : "L";
    const double alpha = wide(-3, 3), beta = wide(-3, 3);
    // dsymv, incx = -2, incy = 3
    const int incx = -2, incy = 3;
    const auto x = wide_vec(2 * n), y0 = wide_vec(3 * n);
    auto y = y0, ye = y0;
    dsymv_(u, &n, &alpha, a.data(), &lda, x.data(), &incx, &beta, y.data(), &incy, 1);
    const auto fs = full_sym(upper, n);
    exala::gemv(layout::col_major, transpose::none, n, n, alpha, fs.data(), n, x.data(), incx, beta,
                ye.data(), incy);
    BOOST_TEST(same_bits(y, ye), "dsymv " << u);
    // dsymm, both sides: C is m x n
    for (const char* s : {"L", "R"}) {
      const bool left = *s == 'L';
      const int ldb = m + 1, ldc = m + 2;
      const auto b = wide_vec(static_cast<std::size_t>(ldb) * n);
      const auto c0 = wide_vec(static_cast<std::size_t>(ldc) * n);
      auto c = c0, ce = c0;
      dsymm_(s, u, &m, &n, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc, 1, 1);
      const auto f = full_sym(upper, left ? m : n);
      if (left)
        exala::gemm(layout::col_major, transpose::none, transpose::none, m, n, m, alpha, f.data(), m,
                    b.data(), ldb, beta, ce.data(), ldc);
      else
        exala::gemm(layout::col_major, transpose::none, transpose::none, m, n, n, alpha, b.data(),
                    ldb, f.data(), n, beta, ce.data(), ldc);
      BOOST_TEST(same_bits(c, ce), "dsymm " << s << u);
    }
    for (bool unit : {false, true})
      for (const char* tr : {"N", "T"}) {
        const char* d = unit ? "U" : "N";
        const transpose op = *tr == 'N' ? transpose::none : transpose::trans;
        // dtrmv, incx = -3
        const int ix = -3;
        const auto x0 = wide_vec(3 * n);
        auto xv = x0, xe = x0, xin = x0;
        dtrmv_(u, tr, d, &n, a.data(), &lda, xv.data(), &ix, 1, 1, 1);
        const auto ft = full_tri(upper, unit, n);
        exala::gemv(layout::col_major, op, n, n, 1.0, ft.data(), n, xin.data(), ix, 0.0, xe.data(), ix);
        BOOST_TEST(same_bits(xv, xe), "dtrmv " << u << tr << d);
        // dtrmm, both sides: B is m x n
        for (const char* s : {"L", "R"}) {
          const bool left = *s == 'L';
          const int ldb = m + 1;
          const auto b0 = wide_vec(static_cast<std::size_t>(ldb) * n);
          auto bv = b0, be = b0;
          dtrmm_(s, u, tr, d, &m, &n, &alpha, a.data(), &lda, bv.data(), &ldb, 1, 1, 1, 1);
          const auto f = full_tri(upper, unit, left ? m : n);
          if (left)
            exala::gemm(layout::col_major, op, transpose::none, m, n, m, alpha, f.data(), m,
                        b0.data(), ldb, 0.0, be.data(), ldb);
          else
            exala::gemm(layout::col_major, transpose::none, op, m, n, n, alpha, b0.data(), ldb,
                        f.data(), n, 0.0, be.data(), ldb);
          BOOST_TEST(same_bits(bv, be), "dtrmm " << s << u << tr << d);
        }
      }
    // dsyrk: n = 150 (more than one 128-column block), both transposes
    for (const char* tr : {"N", "T"}) {
      const bool nt = *tr == 'N';
      const int ns = 150, ks = 31, la = (nt ? ns : ks) + 1, ldc = ns + 1;
      const auto as = wide_vec(static_cast<std::size_t>(la) * (nt ? ks : ns));
      const auto c0 = wide_vec(static_cast<std::size_t>(ldc) * ns);
      auto c = c0, ce = c0;
      dsyrk_(u, tr, &ns, &ks, &alpha, as.data(), &la, &beta, c.data(), &ldc, 1, 1);
      exala::gemm(layout::col_major, nt ? transpose::none : transpose::trans,
                  nt ? transpose::trans : transpose::none, ns, ns, ks, alpha, as.data(), la,
                  as.data(), la, beta, ce.data(), ldc);
      for (int j = 0; j < ns; ++j)
        for (int i = 0; i < ldc; ++i)
          if (i >= ns || (upper ? i > j : i < j)) ce[i + j * ldc] = c0[i + j * ldc];
      BOOST_TEST(same_bits(c, ce), "dsyrk " << u << tr);
    }
  }
}

// dsyr_, dsyr2_, dsyr2k_, drotm_, drotg_ and their cblas_ forms (issue 17):
// their INFO / CBLAS numbers, and their bits against the exala C++
// routines (checked against MPFR in test_blas3_family), the other triangle
// untouched, row-major equal to column-major on the transposed storage.
BOOST_AUTO_TEST_CASE(syr_syr2_syr2k_rotm_rotg) {
  using exala::layout;
  using exala::transpose;
  using exala::uplo;
  {
    std::vector<double> A(64, 1.0), X(16, 1.0), Y(16, 1.0);
    std::vector<std::vector<double>*> w = {&A, &X, &Y};
    const double one = 1.0;
    auto syr = [&](const char* u, int n, int incx, int lda) {
      return [=, &A, &X] { dsyr_(u, &n, &one, X.data(), &incx, A.data(), &lda, 1); };
    };
    expect_xerbla("DSYR  ", 1, syr("X", 3, 1, 3), w, "syr uplo");
    expect_xerbla("DSYR  ", 2, syr("U", -1, 1, 3), w, "syr n");
    expect_xerbla("DSYR  ", 5, syr("U", 3, 0, 3), w, "syr incx");
    expect_xerbla("DSYR  ", 7, syr("L", 3, 1, 2), w, "syr lda");
    auto syr2 = [&](const char* u, int n, int incx, int incy, int lda) {
      return [=, &A, &X, &Y] {
        dsyr2_(u, &n, &one, X.data(), &incx, Y.data(), &incy, A.data(), &lda, 1);
      };
    };
    expect_xerbla("DSYR2 ", 1, syr2("X", 3, 1, 1, 3), w, "syr2 uplo");
    expect_xerbla("DSYR2 ", 2, syr2("U", -1, 1, 1, 3), w, "syr2 n");
    expect_xerbla("DSYR2 ", 5, syr2("U", 3, 0, 1, 3), w, "syr2 incx");
    expect_xerbla("DSYR2 ", 7, syr2("U", 3, 1, 0, 3), w, "syr2 incy");
    expect_xerbla("DSYR2 ", 9, syr2("L", 3, 1, 1, 2), w, "syr2 lda");
    // DSYR2K(UPLO, TRANS, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC); n=3, k=5
    auto syr2k = [&](const char* u, const char* t, int n, int k, int lda, int ldb, int ldc) {
      return [=, &A, &X, &Y] {
        dsyr2k_(u, t, &n, &k, &one, X.data(), &lda, Y.data(), &ldb, &one, A.data(), &ldc, 1, 1);
      };
    };
    expect_xerbla("DSYR2K", 1, syr2k("X", "N", 3, 5, 3, 3, 3), w, "syr2k uplo");
    expect_xerbla("DSYR2K", 2, syr2k("U", "X", 3, 5, 3, 3, 3), w, "syr2k trans");
    expect_xerbla("DSYR2K", 3, syr2k("U", "N", -1, 5, 3, 3, 3), w, "syr2k n");
    expect_xerbla("DSYR2K", 4, syr2k("U", "N", 3, -1, 3, 3, 3), w, "syr2k k");
    expect_xerbla("DSYR2K", 7, syr2k("U", "N", 3, 5, 2, 3, 3), w, "syr2k lda (N)");
    expect_xerbla("DSYR2K", 7, syr2k("U", "T", 3, 5, 4, 5, 3), w, "syr2k lda (T)");
    expect_xerbla("DSYR2K", 9, syr2k("U", "C", 3, 5, 5, 4, 3), w, "syr2k ldb");
    expect_xerbla("DSYR2K", 12, syr2k("L", "N", 3, 5, 3, 3, 2), w, "syr2k ldc");
    expect_no_error(syr2k("l", "t", 3, 5, 5, 5, 3), "syr2k valid");
    // CBLAS: a bad layout 1, options their positions, Fortran errors INFO + 1
    // (no row-major swaps for these in Netlib's cblas_xerbla).
    for (int lay : {CblasColMajor, CblasRowMajor}) {
      g_row_major_calls = lay == CblasRowMajor;
      expect_cblas("cblas_dsyr", 1, [&] { cblas_dsyr(0, CblasUpper, 3, 1.0, X.data(), 1, A.data(), 3); }, w, "dsyr layout");
      expect_cblas("cblas_dsyr", 2, [&] { cblas_dsyr(lay, 0, 3, 1.0, X.data(), 1, A.data(), 3); }, w, "dsyr uplo");
      expect_cblas("cblas_dsyr", 3, [&] { cblas_dsyr(lay, CblasUpper, -1, 1.0, X.data(), 1, A.data(), 3); }, w, "dsyr n");
      expect_cblas("cblas_dsyr", 6, [&] { cblas_dsyr(lay, CblasLower, 3, 1.0, X.data(), 0, A.data(), 3); }, w, "dsyr incx");
      expect_cblas("cblas_dsyr", 8, [&] { cblas_dsyr(lay, CblasLower, 3, 1.0, X.data(), 1, A.data(), 2); }, w, "dsyr lda");
      expect_cblas("cblas_dsyr2", 8, [&] { cblas_dsyr2(lay, CblasUpper, 3, 1.0, X.data(), 1, Y.data(), 0, A.data(), 3); }, w, "dsyr2 incy");
      expect_cblas("cblas_dsyr2", 10, [&] { cblas_dsyr2(lay, CblasUpper, 3, 1.0, X.data(), 1, Y.data(), 1, A.data(), 2); }, w, "dsyr2 lda");
      expect_cblas("cblas_dsyr2k", 3, [&] { cblas_dsyr2k(lay, CblasUpper, 0, 3, 5, 1.0, X.data(), 5, Y.data(), 5, 1.0, A.data(), 3); }, w, "dsyr2k trans");
      expect_cblas("cblas_dsyr2k", 13, [&] { cblas_dsyr2k(lay, CblasUpper, CblasNoTrans, 3, 5, 1.0, X.data(), 5, Y.data(), 5, 1.0, A.data(), 2); }, w, "dsyr2k ldc");
    }
    g_row_major_calls = false;
  }
  // Bits: the drop-in against the C++ routines; cblas row-major against
  // column-major on the transposed storage (the same memory, other uplo).
  const int n = 37, k = 9, lda = 40;
  for (bool up : {true, false}) {
    const char* u = up ? "U" : "L";
    const uplo ul = up ? uplo::upper : uplo::lower;
    const double alpha = wide(-3, 3), beta = wide(-3, 3);
    const auto x = wide_vec(3 * n), y = wide_vec(2 * n), a0 = wide_vec(static_cast<std::size_t>(lda) * n);
    {
      const int ix = -3, iy = 2;
      auto a = a0, ae = a0, ar = a0;
      dsyr_(u, &n, &alpha, x.data(), &ix, a.data(), &lda, 1);
      exala::syr(layout::col_major, ul, n, alpha, x.data(), ix, ae.data(), lda);
      BOOST_TEST(same_bits(a, ae), "dsyr " << u);
      cblas_dsyr(CblasRowMajor, up ? CblasLower : CblasUpper, n, alpha, x.data(), ix, ar.data(), lda);
      BOOST_TEST(same_bits(ar, ae), "cblas_dsyr row-major " << u);
      a = a0, ae = a0;
      dsyr2_(u, &n, &alpha, x.data(), &ix, y.data(), &iy, a.data(), &lda, 1);
      exala::syr2(layout::col_major, ul, n, alpha, x.data(), ix, y.data(), iy, ae.data(), lda);
      BOOST_TEST(same_bits(a, ae), "dsyr2 " << u);
      for (int j = 0; j < n; ++j)  // the other triangle and the padding untouched
        for (int i = 0; i < lda; ++i)
          if (i >= n || (up ? i > j : i < j)) BOOST_TEST(bits(a[i + j * lda]) == bits(a0[i + j * lda]));
    }
    for (const char* tr : {"N", "T"}) {
      const bool nt = *tr == 'N';
      const int la = (nt ? n : k) + 2;
      const auto av = wide_vec(static_cast<std::size_t>(la) * (nt ? k : n));
      const auto bv = wide_vec(static_cast<std::size_t>(la) * (nt ? k : n));
      auto c = a0, ce = a0, cr = a0;
      dsyr2k_(u, tr, &n, &k, &alpha, av.data(), &la, bv.data(), &la, &beta, c.data(), &lda, 1, 1);
      exala::syr2k(layout::col_major, ul, nt ? transpose::none : transpose::trans, n, k, alpha,
                   av.data(), la, bv.data(), la, beta, ce.data(), lda);
      BOOST_TEST(same_bits(c, ce), "dsyr2k " << u << tr);
      cblas_dsyr2k(CblasRowMajor, up ? CblasLower : CblasUpper, nt ? CblasTrans : CblasNoTrans, n, k,
                   alpha, av.data(), la, bv.data(), la, beta, cr.data(), lda);
      BOOST_TEST(same_bits(cr, ce), "cblas_dsyr2k row-major " << u << tr);
      // beta = 0 does not read C; alpha = 0 scales the triangle only
      auto cn = a0;
      for (int j = 0; j < n; ++j) cn[static_cast<std::size_t>(j) * lda + (up ? 0 : n - 1)] = nan_;
      const double zero = 0.0;
      dsyr2k_(u, tr, &n, &k, &alpha, av.data(), &la, bv.data(), &la, &zero, cn.data(), &lda, 1, 1);
      bool finite = true;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if (up ? i <= j : i >= j) finite = finite && std::isfinite(cn[i + j * lda]);
      BOOST_TEST(finite, "dsyr2k beta = 0 reads C " << u << tr);
      auto cz = a0, cze = a0;
      dsyr2k_(u, tr, &n, &k, &zero, nullptr, &la, nullptr, &la, &beta, cz.data(), &lda, 1, 1);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if (up ? i <= j : i >= j) cze[i + j * lda] = beta * a0[i + j * lda];
      BOOST_TEST(same_bits(cz, cze), "dsyr2k alpha = 0 " << u << tr);
    }
  }
  // drotm: every flag (and the reference's reading of others) against exala::rotm.
  for (double flag : {-2.0, -1.0, 0.0, 1.0, -5.0, 3.0}) {
    const int nr = 11, ix = 2, iy = -1;
    const double param[5] = {flag, wide(-2, 2), wide(-2, 2), wide(-2, 2), wide(-2, 2)};
    const auto x0 = wide_vec(2 * nr), y0 = wide_vec(nr);
    auto xv = x0, yv = y0, xe = x0, ye = y0, xc = x0, yc = y0;
    drotm_(&nr, xv.data(), &ix, yv.data(), &iy, param);
    double canon[5] = {flag < 0 && flag != -2.0 ? -1.0 : (flag > 0 ? 1.0 : flag), param[1], param[2],
                       param[3], param[4]};
    exala::rotm(nr, xe.data(), ix, ye.data(), iy, canon);
    BOOST_TEST((same_bits(xv, xe) && same_bits(yv, ye)), "drotm flag " << flag);
    cblas_drotm(nr, xc.data(), ix, yc.data(), iy, param);
    BOOST_TEST((same_bits(xc, xe) && same_bits(yc, ye)), "cblas_drotm flag " << flag);
  }
  {  // zero increment: the updates one after another on x_1, as the reference loop
    const int nr = 3, zero = 0, one = 1;
    const double param[5] = {-1.0, 2.0, 0.5, -1.0, 3.0};
    double x = 1.0;
    std::vector<double> yv = {1.0, 2.0, 4.0};
    drotm_(&nr, &x, &zero, yv.data(), &one, param);
    double xe = 1.0;
    std::vector<double> ye = {1.0, 2.0, 4.0};
    for (int i = 0; i < 3; ++i) exala::rotm(1, &xe, 1, &ye[i], 1, param);
    BOOST_TEST((bits(x) == bits(xe) && same_bits(yv, ye)), "drotm incx = 0");
  }
  // drotg: the special cases of reference 3.10 and a few values against exala::rotg.
  for (auto [a, b] : std::vector<std::pair<double, double>>{
           {0.0, 0.0}, {2.0, 0.0}, {0.0, -3.0}, {3.0, 4.0}, {-4.0, 3.0}, {1e300, 1e300},
           {wide(), wide()}, {wide(), wide()}}) {
    double fa = a, fb = b, fc = nan_, fs = nan_, ea = a, eb = b, ec, es, ca = a, cb = b, cc, cs;
    drotg_(&fa, &fb, &fc, &fs);
    exala::rotg(ea, eb, ec, es);
    cblas_drotg(&ca, &cb, &cc, &cs);
    BOOST_TEST((bits(fa) == bits(ea) && bits(fb) == bits(eb) && bits(fc) == bits(ec) &&
                bits(fs) == bits(es)), "drotg " << a << " " << b);
    BOOST_TEST((bits(ca) == bits(ea) && bits(cb) == bits(eb) && bits(cc) == bits(ec) &&
                bits(cs) == bits(es)), "cblas_drotg " << a << " " << b);
  }
  {
    double a = 3.0, b = 4.0, c = 0.0, s = 0.0;
    drotg_(&a, &b, &c, &s);
    BOOST_TEST((a == 5.0 && c == 0.6 && s == 0.8 && b == 1.0 / 0.6));
    a = 0.0, b = -2.0;
    drotg_(&a, &b, &c, &s);  // reference: c = 0, s = 1, r = b, z = 1
    BOOST_TEST((a == -2.0 && b == 1.0 && c == 0.0 && s == 1.0));
  }
}

#if defined(EXALA_TEST_HAVE_MPFR)
namespace {
// round(a + b*c*d) or round(b*c + d*e) computed exactly by MPFR (1200 bits
// hold any of these for exponents within +-100), then rounded once.
double mpfr_a_plus_bcd(double a, double b, double c, double d) {
  mpfr_t r, t;
  mpfr_inits2(1200, r, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(r, b, MPFR_RNDN);
  mpfr_mul_d(r, r, c, MPFR_RNDN);
  mpfr_mul_d(r, r, d, MPFR_RNDN);
  mpfr_add_d(r, r, a, MPFR_RNDN);
  const double out = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clears(r, t, static_cast<mpfr_ptr>(nullptr));
  return out;
}
double mpfr_bc_plus_de(double b, double c, double d, double e) {
  mpfr_t r, t;
  mpfr_inits2(1200, r, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(r, b, MPFR_RNDN);
  mpfr_mul_d(r, r, c, MPFR_RNDN);
  mpfr_set_d(t, d, MPFR_RNDN);
  mpfr_mul_d(t, t, e, MPFR_RNDN);
  mpfr_add(r, r, t, MPFR_RNDN);
  const double out = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clears(r, t, static_cast<mpfr_ptr>(nullptr));
  return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(ger_and_rot_correctly_rounded_mpfr) {
  const int m = 19, n = 11;
  for (int incx : {-2, 1})
    for (int incy : {3, -1}) {
      const int lda = m + 1;
      const auto x = wide_vec(2 * m), y = wide_vec(3 * n);
      auto a = wide_vec(static_cast<std::size_t>(lda) * n);
      const auto a0 = a;
      const double alpha = wide();
      dger_(&m, &n, &alpha, x.data(), &incx, y.data(), &incy, a.data(), &lda);
      bool ok = true;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < lda; ++i) {
          const double want = i < m ? mpfr_a_plus_bcd(a0[i + j * lda], alpha, x[pos(i, m, incx)],
                                                      y[pos(j, n, incy)])
                                    : a0[i + j * lda];
          ok = ok && bits(a[i + j * lda]) == bits(want);
        }
      BOOST_TEST(ok, "dger incx " << incx << " incy " << incy);
      // Row-major cblas_dger: A^T (n x m row-major) gets the same entries.
      std::vector<double> at(static_cast<std::size_t>(lda) * n);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) at[j + i * static_cast<std::size_t>(n)] = a0[i + j * lda];
      at.resize(static_cast<std::size_t>(m) * n);
      cblas_dger(CblasRowMajor, m, n, alpha, x.data(), incx, y.data(), incy, at.data(), n);
      bool row_ok = true;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) row_ok = row_ok && bits(at[i * n + j]) == bits(a[i + j * lda]);
      BOOST_TEST(row_ok);
    }
  for (int incx : {-1, 0, 2})
    for (int incy : {1, -3}) {
      const int nr = 50;
      const auto x0 = wide_vec(2 * nr + 1), y0 = wide_vec(3 * nr + 1);
      auto x = x0, y = y0, xr = x0, yr = y0;
      const double c = wide(-2, 0), s = wide(-2, 0);
      drot_(&nr, x.data(), &incx, y.data(), &incy, &c, &s);
      walk(nr, incx, incy, [&](i64 ix, i64 iy) {
        const double t = mpfr_bc_plus_de(c, xr[ix], s, yr[iy]);
        yr[iy] = mpfr_bc_plus_de(c, yr[iy], -s, xr[ix]);
        xr[ix] = t;
      });
      BOOST_TEST(same_bits(x, xr), "drot incx " << incx << " incy " << incy);
      BOOST_TEST(same_bits(y, yr), "drot incx " << incx << " incy " << incy);
      auto xc = x0, yc = y0;
      cblas_drot(nr, xc.data(), incx, yc.data(), incy, c, s);
      BOOST_TEST(same_bits(xc, xr));
      BOOST_TEST(same_bits(yc, yr));
    }
}
#endif

// ======================================================================
// Zero pivots: the documented IEEE results, no crash, no exception.
// ======================================================================

BOOST_AUTO_TEST_CASE(zero_diagonal_gives_ieee_results) {
  // Upper 3x3, A(1,1) = 0 (0-based). Column-major.
  const int n = 3, one = 1;
  const std::vector<double> a = {3.0, 0.0, 0.0,   // column 0
                                 1.0, 0.0, 0.0,   // column 1: a01 = 1, a11 = 0
                                 2.0, 5.0, 7.0};  // column 2
  // b = (1, 2, 3): x2 = 3/7 (correctly rounded); x1 = (2 - 5 x2)/0 = +inf
  // (numerator 2 - 15/7 < 0 -> -inf); x0 = (1 - 1*x1 - 2*x2)/3 = +inf.
  std::vector<double> x = {1.0, 2.0, 3.0};
  dtrsv_("U", "N", "N", &n, a.data(), &n, x.data(), &one, 1, 1, 1);
  BOOST_TEST(bits(x[2]) == bits(3.0 / 7.0));
  BOOST_TEST((std::isinf(x[1]) && x[1] < 0));
  BOOST_TEST((std::isinf(x[0]) && x[0] > 0));
  // 0/0: b1 = 5 x2 exactly (x2 = 1 with b2 = 7), so x1 = NaN and x0 = NaN.
  x = {1.0, 5.0, 7.0};
  dtrsv_("U", "N", "N", &n, a.data(), &n, x.data(), &one, 1, 1, 1);
  BOOST_TEST(bits(x[2]) == bits(1.0));
  BOOST_TEST(std::isnan(x[1]));
  BOOST_TEST(std::isnan(x[0]));
  // A unit diagonal is not read: no zero pivot then, the C++ path.
  x = {1.0, 2.0, 3.0};
  auto xe = x;
  dtrsv_("U", "N", "U", &n, a.data(), &n, x.data(), &one, 1, 1, 1);
  exala::trsv(exala::layout::col_major, exala::uplo::upper, exala::transpose::none,
              exala::diag::unit, n, a.data(), n, xe.data(), 1);
  BOOST_TEST(same_bits(x, xe));

  // Larger: the rows solved before the zero pivot have exactly the bits of
  // exala::trsv on the leading subsystem (lower, solved top-down; pivot at 20).
  const int nn = 40, zero_at = 20;
  auto t = well_conditioned_triangle(nn, nn);
  t[zero_at + zero_at * nn] = 0.0;
  const auto b0 = wide_vec(nn, -5, 5);
  for (const char* tr : {"N", "T"}) {
    // op(A) lower for (L, N) and for (U, T): the rows before the pivot come first.
    const char* u = *tr == 'N' ? "L" : "U";
    auto xs = b0, lead = b0;
    dtrsv_(u, tr, "N", &nn, t.data(), &nn, xs.data(), &one, 1, 1, 1);
    exala::trsv(exala::layout::col_major, *u == 'L' ? exala::uplo::lower : exala::uplo::upper,
                *tr == 'N' ? exala::transpose::none : exala::transpose::trans,
                exala::diag::non_unit, zero_at, t.data(), nn, lead.data(), 1);
    BOOST_TEST(std::memcmp(xs.data(), lead.data(), zero_at * sizeof(double)) == 0);
    BOOST_TEST(!std::isfinite(xs[zero_at]));
    // dtrsm, left side, the same system in each of 3 columns, alpha = 2:
    // column j equals dtrsv on 2*b.
    std::vector<double> B(3 * nn), X1(nn);
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < nn; ++i) B[i + j * nn] = b0[i];
    for (int i = 0; i < nn; ++i) X1[i] = 2.0 * b0[i];
    const double two = 2.0;
    const int three = 3;
    dtrsm_("L", u, tr, "N", &nn, &three, &two, t.data(), &nn, B.data(), &nn, 1, 1, 1, 1);
    dtrsv_(u, tr, "N", &nn, t.data(), &nn, X1.data(), &one, 1, 1, 1);
    for (int j = 0; j < 3; ++j)
      BOOST_TEST(std::memcmp(&B[j * nn], X1.data(), nn * sizeof(double)) == 0);
    // Right side: each row of X solves X op(A) = alpha B, i.e. op(A)^T x = alpha b.
    std::vector<double> R(2 * nn);  // 2 x nn, ldb = 2
    for (int i = 0; i < nn; ++i) R[0 + 2 * i] = R[1 + 2 * i] = b0[i];
    const int two_rows = 2;
    const char* flipped = *tr == 'N' ? "T" : "N";
    dtrsm_("R", u, flipped, "N", &two_rows, &nn, &two, t.data(), &nn, R.data(), &two_rows, 1, 1, 1, 1);
    bool rows_ok = true;
    for (int i = 0; i < nn; ++i)
      rows_ok = rows_ok && bits(R[2 * i]) == bits(X1[i]) && bits(R[2 * i + 1]) == bits(X1[i]);
    BOOST_TEST(rows_ok);
  }
}

// ======================================================================
// Row-major CBLAS equals column-major CBLAS on the transposed data, and the
// exala C++ row-major routines, bit for bit.
// ======================================================================

namespace {
std::vector<double> transposed(const std::vector<double>& a, int rows, int cols, int lda_col) {
  // a: rows x cols column-major (lda_col) -> the same matrix row-major (ld = cols)
  std::vector<double> r(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) r[i * static_cast<std::size_t>(cols) + j] = a[i + j * static_cast<std::size_t>(lda_col)];
  return r;
}
}  // namespace

BOOST_AUTO_TEST_CASE(row_major_equals_column_major) {
  using exala::layout;
  using exala::transpose;
  const int m = 14, n = 11, k = 9;
  const double alpha = wide(-3, 3), beta = wide(-3, 3);
  // gemv
  for (int t : {CblasNoTrans, CblasTrans, CblasConjTrans}) {
    const bool tr = t != CblasNoTrans;
    const auto a = wide_vec(static_cast<std::size_t>(m) * n);  // m x n column-major, lda m
    const auto ar = transposed(a, m, n, m);
    const auto x = wide_vec(tr ? m : n);
    const auto y0 = wide_vec(tr ? n : m);
    auto yc = y0, yr = y0, ye = y0;
    cblas_dgemv(CblasColMajor, t, m, n, alpha, a.data(), m, x.data(), 1, beta, yc.data(), 1);
    cblas_dgemv(CblasRowMajor, t, m, n, alpha, ar.data(), n, x.data(), 1, beta, yr.data(), 1);
    exala::gemv(layout::row_major, tr ? transpose::trans : transpose::none, m, n, alpha, ar.data(),
                n, x.data(), 1, beta, ye.data(), 1);
    BOOST_TEST(same_bits(yc, yr), "gemv " << t);
    BOOST_TEST(same_bits(yr, ye), "gemv " << t);
  }
  // gemm: all four transpose pairs
  for (int ta : {CblasNoTrans, CblasTrans})
    for (int tb : {CblasNoTrans, CblasTrans}) {
      const bool at = ta == CblasTrans, bt = tb == CblasTrans;
      const int ar_ = at ? k : m, ac_ = at ? m : k, br_ = bt ? n : k, bc_ = bt ? k : n;
      const auto a = wide_vec(static_cast<std::size_t>(ar_) * ac_);
      const auto b = wide_vec(static_cast<std::size_t>(br_) * bc_);
      const auto c0 = wide_vec(static_cast<std::size_t>(m) * n);
      auto cc = c0;
      cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha, a.data(), ar_, b.data(), br_, beta,
                  cc.data(), m);
      auto cr = transposed(c0, m, n, m), ce = cr;
      const auto ra = transposed(a, ar_, ac_, ar_), rb = transposed(b, br_, bc_, br_);
      cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, ra.data(), ac_, rb.data(), bc_, beta,
                  cr.data(), n);
      exala::gemm(layout::row_major, at ? transpose::trans : transpose::none,
                  bt ? transpose::trans : transpose::none, m, n, k, alpha, ra.data(), ac_,
                  rb.data(), bc_, beta, ce.data(), n);
      BOOST_TEST(same_bits(transposed(cc, m, n, m), cr), "gemm " << ta << tb);
      BOOST_TEST(same_bits(cr, ce), "gemm " << ta << tb);
    }
  // trsv, trmv, symv, ger
  const int nt = 17;
  const auto t = well_conditioned_triangle(nt, nt);
  const auto tr = transposed(t, nt, nt, nt);
  for (int u : {CblasUpper, CblasLower})
    for (int op : {CblasNoTrans, CblasTrans})
      for (int d : {CblasNonUnit, CblasUnit}) {
        const auto b = wide_vec(nt, -5, 5);
        auto xc = b, xr = b, xe = b;
        cblas_dtrsv(CblasColMajor, u, op, d, nt, t.data(), nt, xc.data(), 1);
        cblas_dtrsv(CblasRowMajor, u, op, d, nt, tr.data(), nt, xr.data(), 1);
        exala::trsv(layout::row_major, u == CblasUpper ? exala::uplo::upper : exala::uplo::lower,
                    op == CblasNoTrans ? transpose::none : transpose::trans,
                    d == CblasUnit ? exala::diag::unit : exala::diag::non_unit, nt, tr.data(), nt,
                    xe.data(), 1);
        BOOST_TEST(same_bits(xc, xr), "trsv " << u << op << d);
        BOOST_TEST(same_bits(xr, xe), "trsv " << u << op << d);
        auto mc = b, mr = b;
        cblas_dtrmv(CblasColMajor, u, op, d, nt, t.data(), nt, mc.data(), 1);
        cblas_dtrmv(CblasRowMajor, u, op, d, nt, tr.data(), nt, mr.data(), 1);
        BOOST_TEST(same_bits(mc, mr), "trmv " << u << op << d);
      }
  for (int u : {CblasUpper, CblasLower}) {
    const auto x = wide_vec(nt), y0 = wide_vec(nt);
    auto yc = y0, yr = y0;
    cblas_dsymv(CblasColMajor, u, nt, alpha, t.data(), nt, x.data(), 1, beta, yc.data(), 1);
    cblas_dsymv(CblasRowMajor, u, nt, alpha, tr.data(), nt, x.data(), 1, beta, yr.data(), 1);
    BOOST_TEST(same_bits(yc, yr), "symv " << u);
  }
  // trsm, trmm, symm: B / C are m x n
  for (int s : {CblasLeft, CblasRight})
    for (int u : {CblasUpper, CblasLower})
      for (int op : {CblasNoTrans, CblasTrans}) {
        const int order = s == CblasLeft ? m : n;
        const auto a = well_conditioned_triangle(order, order);
        const auto ar = transposed(a, order, order, order);
        const auto b0 = wide_vec(static_cast<std::size_t>(m) * n, -5, 5);
        auto bc = b0, br = transposed(b0, m, n, m), be = br;
        cblas_dtrsm(CblasColMajor, s, u, op, CblasNonUnit, m, n, alpha, a.data(), order, bc.data(), m);
        cblas_dtrsm(CblasRowMajor, s, u, op, CblasNonUnit, m, n, alpha, ar.data(), order, br.data(), n);
        exala::trsm(layout::row_major, s == CblasLeft ? exala::side::left : exala::side::right,
                    u == CblasUpper ? exala::uplo::upper : exala::uplo::lower,
                    op == CblasNoTrans ? transpose::none : transpose::trans, exala::diag::non_unit,
                    m, n, alpha, ar.data(), order, be.data(), n);
        BOOST_TEST(same_bits(transposed(bc, m, n, m), br), "trsm " << s << u << op);
        BOOST_TEST(same_bits(br, be), "trsm " << s << u << op);
        auto mc = b0, mr = transposed(b0, m, n, m);
        cblas_dtrmm(CblasColMajor, s, u, op, CblasUnit, m, n, alpha, a.data(), order, mc.data(), m);
        cblas_dtrmm(CblasRowMajor, s, u, op, CblasUnit, m, n, alpha, ar.data(), order, mr.data(), n);
        BOOST_TEST(same_bits(transposed(mc, m, n, m), mr), "trmm " << s << u << op);
        if (op == CblasNoTrans) {
          const auto c0 = wide_vec(static_cast<std::size_t>(m) * n);
          auto cc = c0, cr = transposed(c0, m, n, m);
          const auto bb = transposed(b0, m, n, m);
          cblas_dsymm(CblasColMajor, s, u, m, n, alpha, a.data(), order, b0.data(), m, beta, cc.data(), m);
          cblas_dsymm(CblasRowMajor, s, u, m, n, alpha, ar.data(), order, bb.data(), n, beta, cr.data(), n);
          BOOST_TEST(same_bits(transposed(cc, m, n, m), cr), "symm " << s << u);
        }
      }
  // syrk: C is n x n; NoTrans A is n x k
  for (int u : {CblasUpper, CblasLower})
    for (int op : {CblasNoTrans, CblasTrans}) {
      const bool nt_ = op == CblasNoTrans;
      const int ar_ = nt_ ? n : k, ac_ = nt_ ? k : n;
      const auto a = wide_vec(static_cast<std::size_t>(ar_) * ac_);
      const auto c0 = wide_vec(static_cast<std::size_t>(n) * n);
      auto cc = c0, cr = transposed(c0, n, n, n);
      cblas_dsyrk(CblasColMajor, u, op, n, k, alpha, a.data(), ar_, beta, cc.data(), n);
      const auto ra = transposed(a, ar_, ac_, ar_);
      cblas_dsyrk(CblasRowMajor, u, op, n, k, alpha, ra.data(), ac_, beta, cr.data(), n);
      BOOST_TEST(same_bits(transposed(cc, n, n, n), cr), "syrk " << u << op);
    }
}

// ======================================================================
// The ExaLA-specific symbols and the handler lookup.
// ======================================================================

BOOST_AUTO_TEST_CASE(next_and_version) {
  const std::string v = exala_blas_abi_version();
  BOOST_TEST(v.find("ExaLA drop-in BLAS") == 0u);
  BOOST_TEST(exala_blas_abi_next(nullptr) == nullptr);
  BOOST_TEST(exala_blas_abi_next("no_such_blas_symbol_") == nullptr);
  // This executable links the system BLAS after libexala_blas.so: the next
  // dgemm_ is the system's, not the one calls bind to here (ours).
  void* next = exala_blas_abi_next("dgemm_");
  void* ours = dlsym(RTLD_DEFAULT, "dgemm_");
  BOOST_TEST(next != nullptr);
  BOOST_TEST(ours != nullptr);
  BOOST_TEST(next != ours);
  Dl_info info{};
  BOOST_TEST(dladdr(ours, &info) != 0);
  BOOST_TEST(std::string(info.dli_fname).find("libexala_blas") != std::string::npos);
  // The program's xerbla_ is the one found first (this executable's).
  BOOST_TEST(dlsym(RTLD_DEFAULT, "xerbla_") == reinterpret_cast<void*>(&xerbla_));
}

// ======================================================================
// Long: a sweep of shapes, options and leading dimensions (ctest -L long).
// ======================================================================

BOOST_AUTO_TEST_CASE(shape_sweep, *boost::unit_test::label("long")) {
  using exala::layout;
  using exala::transpose;
  const int sizes[] = {1, 2, 7, 31, 64, 129};
  int cases = 0;
  for (int m : sizes)
    for (int n : sizes) {
      for (const char* t : {"N", "T"})
        for (int incx : {-2, 1})
          for (int incy : {-1, 3}) {
            const bool tr = *t == 'T';
            const int lda = m + 1;
            const auto a = wide_vec(static_cast<std::size_t>(lda) * n);
            const auto x = wide_vec(2 * (tr ? m : n));
            const auto y0 = wide_vec(3 * (tr ? n : m));
            const double alpha = wide(-3, 3), beta = wide(-3, 3);
            auto y = y0, ye = y0;
            dgemv_(t, &m, &n, &alpha, a.data(), &lda, x.data(), &incx, &beta, y.data(), &incy, 1);
            exala::gemv(layout::col_major, tr ? transpose::trans : transpose::none, m, n, alpha,
                        a.data(), lda, x.data(), incx, beta, ye.data(), incy);
            BOOST_TEST(same_bits(y, ye), "dgemv " << t << " " << m << "x" << n);
            ++cases;
          }
      for (int k : {1, 17, 100})
        for (const char* ta : {"N", "T"})
          for (const char* tb : {"N", "T"}) {
            const bool at = *ta == 'T', bt = *tb == 'T';
            const int lda = (at ? k : m) + 2, ldb = (bt ? n : k) + 1, ldc = m + 1;
            const auto a = wide_vec(static_cast<std::size_t>(lda) * (at ? m : k));
            const auto b = wide_vec(static_cast<std::size_t>(ldb) * (bt ? k : n));
            const auto c0 = wide_vec(static_cast<std::size_t>(ldc) * n);
            const double alpha = wide(-3, 3), beta = (k == 17) ? 0.0 : wide(-3, 3);
            auto c = c0, ce = c0;
            dgemm_(ta, tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(),
                   &ldc, 1, 1);
            exala::gemm(layout::col_major, at ? transpose::trans : transpose::none,
                        bt ? transpose::trans : transpose::none, m, n, k, alpha, a.data(), lda,
                        b.data(), ldb, beta, ce.data(), ldc);
            BOOST_TEST(same_bits(c, ce), "dgemm " << ta << tb << " " << m << "x" << n << "x" << k);
            ++cases;
          }
      for (const char* s : {"L", "R"})
        for (const char* u : {"U", "L"})
          for (const char* tr : {"N", "T"})
            for (const char* d : {"N", "U"}) {
              const bool left = *s == 'L';
              const int order = left ? m : n, lda = order + 1, ldb = m + 2;
              const auto a = well_conditioned_triangle(order, lda);
              const auto b0 = wide_vec(static_cast<std::size_t>(ldb) * n, -10, 10);
              const double alpha = wide(-3, 3);
              auto b = b0, be = b0;
              dtrsm_(s, u, tr, d, &m, &n, &alpha, a.data(), &lda, b.data(), &ldb, 1, 1, 1, 1);
              exala::trsm(layout::col_major, left ? exala::side::left : exala::side::right,
                          *u == 'U' ? exala::uplo::upper : exala::uplo::lower,
                          *tr == 'N' ? transpose::none : transpose::trans,
                          *d == 'U' ? exala::diag::unit : exala::diag::non_unit, m, n, alpha,
                          a.data(), lda, be.data(), ldb);
              BOOST_TEST(same_bits(b, be), "dtrsm " << s << u << tr << d << " " << m << "x" << n);
              ++cases;
            }
    }
  for (int n : sizes)
    for (const char* u : {"U", "L"})
      for (const char* tr : {"N", "T"})
        for (int k : {1, 40}) {
          const bool nt = *tr == 'N';
          const int la = (nt ? n : k) + 3, ldc = n + 1;
          const auto a = wide_vec(static_cast<std::size_t>(la) * (nt ? k : n));
          const auto c0 = wide_vec(static_cast<std::size_t>(ldc) * n);
          const double alpha = wide(-3, 3), beta = wide(-3, 3);
          auto c = c0, ce = c0;
          dsyrk_(u, tr, &n, &k, &alpha, a.data(), &la, &beta, c.data(), &ldc, 1, 1);
          exala::gemm(layout::col_major, nt ? transpose::none : transpose::trans,
                      nt ? transpose::trans : transpose::none, n, n, k, alpha, a.data(), la,
                      a.data(), la, beta, ce.data(), ldc);
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < ldc; ++i)
              if (i >= n || (*u == 'U' ? i > j : i < j)) ce[i + j * ldc] = c0[i + j * ldc];
          BOOST_TEST(same_bits(c, ce), "dsyrk " << u << tr << " n " << n << " k " << k);
          ++cases;
        }
  BOOST_TEST_MESSAGE(cases << " shape cases");
}
