// routines.cpp - the BLAS routines of libexala_blas.so (reference-BLAS
// argument checks, quick returns and special cases; the arithmetic of the
// exala C++ layers). See routines.hpp and ../README.md.
#include "routines.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include "abi_common.hpp"
#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/exact_ops.hpp"
#include "exala/superaccumulator.hpp"

namespace exala::blas_abi {
namespace {

using i64 = std::int64_t;
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();

// LSAME: case-insensitive comparison of one character with an upper-case letter.
bool lsame(char c, char ref) noexcept {
  const char u = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  return u == ref;
}
bool valid_trans(char t) noexcept { return lsame(t, 'N') || lsame(t, 'T') || lsame(t, 'C'); }
transpose to_trans(char t) noexcept { return lsame(t, 'N') ? transpose::none : transpose::trans; }

std::size_t idx(i64 i, i64 j, i64 ld) noexcept { return static_cast<std::size_t>(i + j * ld); }

void copy_bits(double* dst, const double* src) noexcept { std::memcpy(dst, src, sizeof(double)); }

// A zeroed scratch block of a x b doubles. The count is checked (it is at
// most (2^31-1)^2 from 32-bit BLAS sizes, more than the 2^60 elements ExaLA
// addresses): too large, it throws exala::invalid_argument naming the size,
// which the caller's guard reports (the routine then sets its output to NaN).
std::vector<double> scratch(const char* name, i64 a, i64 b) {
  return std::vector<double>(static_cast<std::size_t>(exala::detail::checked_count(name, a, b)));
}

// Outputs of a call that failed unexpectedly (see report_failure).
void fill_vec(int n, double* x, int inc) noexcept {
  for (i64 i = 0; i < n; ++i) x[elem(i, n, inc)] = qnan;
}
void fill_mat(int m, int n, double* c, int ldc) noexcept {
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) c[idx(i, j, ldc)] = qnan;
}

void fill_triangle(bool upper, int n, double* c, int ldc) noexcept {
  for (i64 j = 0; j < n; ++j)
    for (i64 i = upper ? 0 : j; i < (upper ? j + 1 : n); ++i) c[idx(i, j, ldc)] = qnan;
}
// The reference's alpha == 0 branch of the symmetric updates, on the triangle only.
void scale_triangle(bool upper, int n, double beta, double* c, int ldc) noexcept {
  for (i64 j = 0; j < n; ++j)
    for (i64 i = upper ? 0 : j; i < (upper ? j + 1 : n); ++i) {
      double& v = c[idx(i, j, ldc)];
      v = beta == 0.0 ? 0.0 : beta * v;
    }
}
exala::uplo to_uplo(bool upper) noexcept { return upper ? exala::uplo::upper : exala::uplo::lower; }

// The reference's alpha == 0 branches: y := beta*y, or ZERO when beta == 0
// (y not read). One multiplication per element: correctly rounded.
void scale_vec(int n, double beta, double* y, int inc) noexcept {
  for (i64 i = 0; i < n; ++i) {
    double& v = y[elem(i, n, inc)];
    v = beta == 0.0 ? 0.0 : beta * v;
  }
}
void scale_mat(int m, int n, double beta, double* c, int ldc) noexcept {
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) {
      double& v = c[idx(i, j, ldc)];
      v = beta == 0.0 ? 0.0 : beta * v;
    }
}

// Arrays the call must read or write: a null one is reported (one line on
// stderr) and the call returns without touching anything.
struct named_ptr {
  const char* name;
  const void* p;
};
bool present(const char* routine, std::initializer_list<named_ptr> ptrs) noexcept {
  for (const named_ptr& q : ptrs)
    if (q.p == nullptr) {
      report_null(routine, q.name);
      return false;
    }
  return true;
}

bool has_zero_diagonal(int n, const double* a, int lda) noexcept {
  for (i64 i = 0; i < n; ++i)
    if (a[idx(i, i, lda)] == 0.0) return true;
  return false;
}

// The full n x n symmetric matrix (column-major, ld n) from its stored
// triangle; order_name names n in errors.
std::vector<double> expand_symmetric(bool upper, int n, const double* a, int lda,
                                     const char* order_name) {
  std::vector<double> f = scratch(order_name, n, n);
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < n; ++i) {
      const bool stored = upper ? i <= j : i >= j;
      copy_bits(&f[idx(i, j, n)], stored ? &a[idx(i, j, lda)] : &a[idx(j, i, lda)]);
    }
  return f;
}

// The full n x n triangular matrix: the stored triangle, zeros elsewhere,
// ones on the diagonal when it is unit (the stored diagonal is then not read);
// order_name names n in errors.
std::vector<double> expand_triangular(bool upper, bool unit, int n, const double* a, int lda,
                                      const char* order_name) {
  std::vector<double> t = scratch(order_name, n, n);
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < n; ++i) {
      if (i == j) {
        t[idx(i, j, n)] = unit ? 1.0 : a[idx(i, j, lda)];
      } else if (upper ? i < j : i > j) {
        copy_bits(&t[idx(i, j, n)], &a[idx(i, j, lda)]);
      }
    }
  return t;
}

// Exact substitution for a triangular system with an exact zero on its
// non-unit diagonal (the exala C++ trsv/trsm refuse it): in the solve
// order, x_i = round((alpha b_i - sum_j op(A)_ij x_j) / op(A)_ii), the
// numerator exact in a superaccumulator and the quotient correctly rounded
// with IEEE semantics (a nonzero numerator over 0 gives +-inf, 0/0 gives
// NaN; later rows then meet inf/NaN terms and follow IEEE: inf*0 is NaN).
// This is the formula of exala::trsv / trsm extended to a zero pivot, so the
// rows solved before the first zero pivot have the bits trsv would give.
void exact_substitution(bool upper, bool trans, bool unit, int n, double alpha, const double* a,
                        int lda, double* x, i64 incx) {
  const bool lower_op = (!upper) != trans;
  auto op = [&](i64 i, i64 j) { return trans ? a[idx(j, i, lda)] : a[idx(i, j, lda)]; };
  auto at = [&](i64 i) -> double& { return x[elem(i, n, incx)]; };
  superaccumulator acc;
  for (i64 s = 0; s < n; ++s) {
    const i64 i = lower_op ? s : n - 1 - s;
    acc.clear();
    acc.add_product(alpha, at(i));
    if (lower_op) {
      for (i64 j = 0; j < i; ++j) acc.add_product(-op(i, j), at(j));
    } else {
      for (i64 j = i + 1; j < n; ++j) acc.add_product(-op(i, j), at(j));
    }
    at(i) = unit ? acc.round() : round_div(acc, op(i, i));
  }
}

}  // namespace

// =================================================================== level 1

double dot(int n, const double* x, int incx, const double* y, int incy) noexcept {
  if (n <= 0) return 0.0;
  if (!present("DDOT", {{"DX", x}, {"DY", y}})) return qnan;
  double r = qnan;
  guarded("DDOT", [&] { r = exala::dot(n, x, incx, y, incy, abi_exec()); }, [] {});
  // The reference accumulates from +0, so its exact zero is +0 (never -0):
  // adding +0 maps -0 to +0 and leaves every other value as it is.
  return r + 0.0;
}

double asum(int n, const double* x, int incx) noexcept {
  if (n <= 0 || incx <= 0) return 0.0;
  if (!present("DASUM", {{"DX", x}})) return qnan;
  double r = qnan;
  guarded("DASUM", [&] { r = exala::asum(n, x, incx, abi_exec()); }, [] {});
  return r;
}

double nrm2(int n, const double* x, int incx) noexcept {
  if (n <= 0) return 0.0;
  if (!present("DNRM2", {{"X", x}})) return qnan;
  double r = qnan;
  guarded("DNRM2", [&] { r = exala::nrm2(n, x, incx, abi_exec()); }, [] {});
  return r;
}

void axpy(int n, double alpha, const double* x, int incx, double* y, int incy) noexcept {
  if (n <= 0 || alpha == 0.0) return;
  if (!present("DAXPY", {{"DX", x}, {"DY", y}})) return;
  if (incy == 0 && n > 1) {
    // Every update lands on y_1: apply them in the reference's order.
    for (i64 i = 0; i < n; ++i) y[0] = std::fma(alpha, x[elem(i, n, incx)], y[0]);
    return;
  }
  guarded("DAXPY", [&] { exala::axpy(n, alpha, x, incx, y, incy, abi_exec()); },
          [&] { fill_vec(n, y, incy); });
}

void scal(int n, double alpha, double* x, int incx) noexcept {
  if (n <= 0 || incx <= 0) return;
  if (!present("DSCAL", {{"DX", x}})) return;
  guarded("DSCAL", [&] { exala::scal(n, alpha, x, incx, abi_exec()); },
          [&] { fill_vec(n, x, incx); });
}

void copy(int n, const double* x, int incx, double* y, int incy) noexcept {
  if (n <= 0) return;
  if (!present("DCOPY", {{"DX", x}, {"DY", y}})) return;
  if (incy == 0 && n > 1) {
    copy_bits(y, &x[elem(n - 1, n, incx)]);  // the last copy wins
    return;
  }
  guarded("DCOPY", [&] { exala::copy(n, x, incx, y, incy, abi_exec()); },
          [&] { fill_vec(n, y, incy); });
}

void swap(int n, double* x, int incx, double* y, int incy) noexcept {
  if (n <= 0) return;
  if (!present("DSWAP", {{"DX", x}, {"DY", y}})) return;
  if ((incx == 0 || incy == 0) && n > 1) {
    for (i64 i = 0; i < n; ++i) {
      double* p = &x[elem(i, n, incx)];
      double* q = &y[elem(i, n, incy)];
      double t;
      copy_bits(&t, p);
      copy_bits(p, q);
      copy_bits(q, &t);
    }
    return;
  }
  guarded("DSWAP", [&] { exala::swap(n, x, incx, y, incy, abi_exec()); },
          [&] { fill_vec(n, x, incx), fill_vec(n, y, incy); });
}

int iamax(int n, const double* x, int incx) noexcept {
  if (n < 1 || incx <= 0) return 0;
  if (!present("IDAMAX", {{"DX", x}})) return 0;
  int best = 1;
  double dmax = std::fabs(x[0]);
  for (i64 i = 1; i < n; ++i) {
    const double v = std::fabs(x[i * incx]);
    if (v > dmax) {
      best = static_cast<int>(i + 1);
      dmax = v;
    }
  }
  return best;
}

void rot(int n, double* x, int incx, double* y, int incy, double c, double s) noexcept {
  if (n <= 0) return;
  if (!present("DROT", {{"DX", x}, {"DY", y}})) return;
  // [x' y'] = [x y] * [[c, -s], [s, c]]: a gemm with k = 2, so each result
  // is round(c x + s y) or round(-s x + c y) of the exact value.
  const double rotation[4] = {c, s, -s, c};
  const bool sequential = (incx == 0 || incy == 0) && n > 1;
  guarded(
      "DROT",
      [&] {
        const i64 chunk = sequential ? 1 : n;
        std::vector<double> in(2 * static_cast<std::size_t>(chunk)),
            out(2 * static_cast<std::size_t>(chunk));
        for (i64 first = 0; first < n; first += chunk) {
          for (i64 j = 0; j < chunk; ++j) {
            copy_bits(&in[j], &x[elem(first + j, n, incx)]);
            copy_bits(&in[chunk + j], &y[elem(first + j, n, incy)]);
          }
          exala::gemm(layout::col_major, transpose::none, transpose::none, chunk, 2, 2, 1.0,
                      in.data(), chunk, rotation, 2, 0.0, out.data(), chunk, abi_exec());
          for (i64 j = 0; j < chunk; ++j) {
            x[elem(first + j, n, incx)] = out[j];
            y[elem(first + j, n, incy)] = out[chunk + j];
          }
        }
      },
      [&] { fill_vec(n, x, incx), fill_vec(n, y, incy); });
}

void rotm(int n, double* x, int incx, double* y, int incy, const double* param) noexcept {
  if (n <= 0) return;
  if (!present("DROTM", {{"DPARAM", param}})) return;
  const double flag = param[0];
  if (flag + 2.0 == 0.0) return;  // the reference's DFLAG+TWO.EQ.ZERO
  if (!present("DROTM", {{"DX", x}, {"DY", y}})) return;
  // The reference's branches: DFLAG < 0 the full H, == 0, else (also NaN) the (1, -1) form.
  const double p[5] = {flag < 0.0 ? -1.0 : (flag == 0.0 ? 0.0 : 1.0), param[1], param[2], param[3],
                       param[4]};
  const bool sequential = (incx == 0 || incy == 0) && n > 1;
  guarded(
      "DROTM",
      [&] {
        if (!sequential) {
          exala::rotm(n, x, incx, y, incy, p, abi_exec());
          return;
        }
        for (i64 i = 0; i < n; ++i)  // the reference's order, each one rounding
          exala::rotm(1, &x[elem(i, n, incx)], 1, &y[elem(i, n, incy)], 1, p, abi_exec());
      },
      [&] { fill_vec(n, x, incx), fill_vec(n, y, incy); });
}

void rotg(double* a, double* b, double* c, double* s) noexcept {
  if (!present("DROTG", {{"DA", a}, {"DB", b}, {"C", c}, {"S", s}})) return;
  guarded("DROTG", [&] { exala::rotg(*a, *b, *c, *s, exec{}); },
          [&] { *a = *b = *c = *s = qnan; });
}

// =================================================================== level 2

int gemv(char trans, int m, int n, double alpha, const double* a, int lda, const double* x,
         int incx, double beta, double* y, int incy) noexcept {
  int info = 0;
  if (!valid_trans(trans)) info = 1;
  else if (m < 0) info = 2;
  else if (n < 0) info = 3;
  else if (lda < std::max(1, m)) info = 6;
  else if (incx == 0) info = 8;
  else if (incy == 0) info = 11;
  if (info != 0) return info;
  if (m == 0 || n == 0 || (alpha == 0.0 && beta == 1.0)) return 0;
  const int leny = lsame(trans, 'N') ? m : n;
  if (!present("DGEMV", {{"Y", y}})) return 0;
  if (alpha == 0.0) {
    scale_vec(leny, beta, y, incy);
    return 0;
  }
  if (!present("DGEMV", {{"A", a}, {"X", x}})) return 0;
  guarded(
      "DGEMV",
      [&] {
        exala::gemv(layout::col_major, to_trans(trans), m, n, alpha, a, lda, x, incx, beta, y,
                    incy, abi_exec());
      },
      [&] { fill_vec(leny, y, incy); });
  return 0;
}

int ger(int m, int n, double alpha, const double* x, int incx, const double* y, int incy,
        double* a, int lda) noexcept {
  int info = 0;
  if (m < 0) info = 1;
  else if (n < 0) info = 2;
  else if (incx == 0) info = 5;
  else if (incy == 0) info = 7;
  else if (lda < std::max(1, m)) info = 9;
  if (info != 0) return info;
  if (m == 0 || n == 0 || alpha == 0.0) return 0;
  if (!present("DGER", {{"X", x}, {"Y", y}, {"A", a}})) return 0;
  // A + alpha x y^T is a gemm with k = 1 and beta = 1: each entry is
  // round(a_ij + alpha x_i y_j), the triple product exact.
  guarded(
      "DGER",
      [&] {
        std::vector<double> xs(static_cast<std::size_t>(m)), ys(static_cast<std::size_t>(n));
        exala::copy(m, x, incx, xs.data(), 1);
        exala::copy(n, y, incy, ys.data(), 1);
        exala::gemm(layout::col_major, transpose::none, transpose::none, m, n, 1, alpha,
                    xs.data(), m, ys.data(), 1, 1.0, a, lda, abi_exec());
      },
      [&] { fill_mat(m, n, a, lda); });
  return 0;
}

int syr(char uplo, int n, double alpha, const double* x, int incx, double* a, int lda) noexcept {
  const bool upper = lsame(uplo, 'U');
  int info = 0;
  if (!upper && !lsame(uplo, 'L')) info = 1;
  else if (n < 0) info = 2;
  else if (incx == 0) info = 5;
  else if (lda < std::max(1, n)) info = 7;
  if (info != 0) return info;
  if (n == 0 || alpha == 0.0) return 0;
  if (!present("DSYR", {{"X", x}, {"A", a}})) return 0;
  guarded(
      "DSYR",
      [&] { exala::syr(layout::col_major, to_uplo(upper), n, alpha, x, incx, a, lda, abi_exec()); },
      [&] { fill_triangle(upper, n, a, lda); });
  return 0;
}

int syr2(char uplo, int n, double alpha, const double* x, int incx, const double* y, int incy,
         double* a, int lda) noexcept {
  const bool upper = lsame(uplo, 'U');
  int info = 0;
  if (!upper && !lsame(uplo, 'L')) info = 1;
  else if (n < 0) info = 2;
  else if (incx == 0) info = 5;
  else if (incy == 0) info = 7;
  else if (lda < std::max(1, n)) info = 9;
  if (info != 0) return info;
  if (n == 0 || alpha == 0.0) return 0;
  if (!present("DSYR2", {{"X", x}, {"Y", y}, {"A", a}})) return 0;
  guarded(
      "DSYR2",
      [&] {
        exala::syr2(layout::col_major, to_uplo(upper), n, alpha, x, incx, y, incy, a, lda,
                    abi_exec());
      },
      [&] { fill_triangle(upper, n, a, lda); });
  return 0;
}

int symv(char uplo, int n, double alpha, const double* a, int lda, const double* x, int incx,
         double beta, double* y, int incy) noexcept {
  int info = 0;
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) info = 1;
  else if (n < 0) info = 2;
  else if (lda < std::max(1, n)) info = 5;
  else if (incx == 0) info = 7;
  else if (incy == 0) info = 10;
  if (info != 0) return info;
  if (n == 0 || (alpha == 0.0 && beta == 1.0)) return 0;
  if (!present("DSYMV", {{"Y", y}})) return 0;
  if (alpha == 0.0) {
    scale_vec(n, beta, y, incy);
    return 0;
  }
  if (!present("DSYMV", {{"A", a}, {"X", x}})) return 0;
  guarded(
      "DSYMV",
      [&] {
        const auto full = expand_symmetric(lsame(uplo, 'U'), n, a, lda, "N");
        exala::gemv(layout::col_major, transpose::none, n, n, alpha, full.data(), n, x, incx,
                    beta, y, incy, abi_exec());
      },
      [&] { fill_vec(n, y, incy); });
  return 0;
}

namespace {
int check_tr2(char uplo, char trans, char diag, int n, int lda, int incx) noexcept {
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return 1;
  if (!valid_trans(trans)) return 2;
  if (!lsame(diag, 'U') && !lsame(diag, 'N')) return 3;
  if (n < 0) return 4;
  if (lda < std::max(1, n)) return 6;
  if (incx == 0) return 8;
  return 0;
}
}  // namespace

int trmv(char uplo, char trans, char diag, int n, const double* a, int lda, double* x,
         int incx) noexcept {
  if (const int info = check_tr2(uplo, trans, diag, n, lda, incx)) return info;
  if (n == 0) return 0;
  if (!present("DTRMV", {{"A", a}, {"X", x}})) return 0;
  guarded(
      "DTRMV",
      [&] {
        const auto t = expand_triangular(lsame(uplo, 'U'), lsame(diag, 'U'), n, a, lda, "N");
        std::vector<double> xs(static_cast<std::size_t>(n));
        exala::copy(n, x, incx, xs.data(), 1);
        exala::gemv(layout::col_major, to_trans(trans), n, n, 1.0, t.data(), n, xs.data(), 1,
                    0.0, x, incx, abi_exec());
      },
      [&] { fill_vec(n, x, incx); });
  return 0;
}

int trsv(char uplo, char trans, char diag, int n, const double* a, int lda, double* x,
         int incx) noexcept {
  if (const int info = check_tr2(uplo, trans, diag, n, lda, incx)) return info;
  if (n == 0) return 0;
  if (!present("DTRSV", {{"A", a}, {"X", x}})) return 0;
  const bool upper = lsame(uplo, 'U'), unit = lsame(diag, 'U');
  guarded(
      "DTRSV",
      [&] {
        if (!unit && has_zero_diagonal(n, a, lda)) {
          exact_substitution(upper, !lsame(trans, 'N'), false, n, 1.0, a, lda, x, incx);
        } else {
          exala::trsv(layout::col_major, upper ? exala::uplo::upper : exala::uplo::lower,
                      to_trans(trans), unit ? exala::diag::unit : exala::diag::non_unit, n, a,
                      lda, x, incx, abi_exec());
        }
      },
      [&] { fill_vec(n, x, incx); });
  return 0;
}

// =================================================================== level 3

int gemm(char transa, char transb, int m, int n, int k, double alpha, const double* a, int lda,
         const double* b, int ldb, double beta, double* c, int ldc) noexcept {
  const bool nota = lsame(transa, 'N'), notb = lsame(transb, 'N');
  const int nrowa = nota ? m : k, nrowb = notb ? k : n;
  int info = 0;
  if (!valid_trans(transa)) info = 1;
  else if (!valid_trans(transb)) info = 2;
  else if (m < 0) info = 3;
  else if (n < 0) info = 4;
  else if (k < 0) info = 5;
  else if (lda < std::max(1, nrowa)) info = 8;
  else if (ldb < std::max(1, nrowb)) info = 10;
  else if (ldc < std::max(1, m)) info = 13;
  if (info != 0) return info;
  if (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return 0;
  if (!present("DGEMM", {{"C", c}})) return 0;
  if (alpha == 0.0) {
    scale_mat(m, n, beta, c, ldc);
    return 0;
  }
  if (k > 0 && !present("DGEMM", {{"A", a}, {"B", b}})) return 0;
  guarded(
      "DGEMM",
      [&] {
        exala::gemm(layout::col_major, to_trans(transa), to_trans(transb), m, n, k, alpha, a, lda,
                    b, ldb, beta, c, ldc, abi_exec());
      },
      [&] { fill_mat(m, n, c, ldc); });
  return 0;
}

int symm(char side, char uplo, int m, int n, double alpha, const double* a, int lda,
         const double* b, int ldb, double beta, double* c, int ldc) noexcept {
  const bool lside = lsame(side, 'L'), upper = lsame(uplo, 'U');
  const int nrowa = lside ? m : n;
  int info = 0;
  if (!lside && !lsame(side, 'R')) info = 1;
  else if (!upper && !lsame(uplo, 'L')) info = 2;
  else if (m < 0) info = 3;
  else if (n < 0) info = 4;
  else if (lda < std::max(1, nrowa)) info = 7;
  else if (ldb < std::max(1, m)) info = 9;
  else if (ldc < std::max(1, m)) info = 12;
  if (info != 0) return info;
  if (m == 0 || n == 0 || (alpha == 0.0 && beta == 1.0)) return 0;
  if (!present("DSYMM", {{"C", c}})) return 0;
  if (alpha == 0.0) {
    scale_mat(m, n, beta, c, ldc);
    return 0;
  }
  if (!present("DSYMM", {{"A", a}, {"B", b}})) return 0;
  guarded(
      "DSYMM",
      [&] {
        exala::symm(layout::col_major, lside ? exala::side::left : exala::side::right,
                    to_uplo(upper), m, n, alpha, a, lda, b, ldb, beta, c, ldc, abi_exec());
      },
      [&] { fill_mat(m, n, c, ldc); });
  return 0;
}

int syrk(char uplo, char trans, int n, int k, double alpha, const double* a, int lda, double beta,
         double* c, int ldc) noexcept {
  const bool notrans = lsame(trans, 'N'), upper = lsame(uplo, 'U');
  const int nrowa = notrans ? n : k;
  int info = 0;
  if (!upper && !lsame(uplo, 'L')) info = 1;
  else if (!valid_trans(trans)) info = 2;
  else if (n < 0) info = 3;
  else if (k < 0) info = 4;
  else if (lda < std::max(1, nrowa)) info = 7;
  else if (ldc < std::max(1, n)) info = 10;
  if (info != 0) return info;
  if (n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return 0;
  if (!present("DSYRK", {{"C", c}})) return 0;
  if (alpha == 0.0) {
    scale_triangle(upper, n, beta, c, ldc);
    return 0;
  }
  if (k > 0 && !present("DSYRK", {{"A", a}})) return 0;
  guarded(
      "DSYRK",
      [&] {
        exala::syrk(layout::col_major, to_uplo(upper), to_trans(trans), n, k, alpha, a, lda, beta,
                    c, ldc, abi_exec());
      },
      [&] { fill_triangle(upper, n, c, ldc); });
  return 0;
}

int syr2k(char uplo, char trans, int n, int k, double alpha, const double* a, int lda,
          const double* b, int ldb, double beta, double* c, int ldc) noexcept {
  const bool notrans = lsame(trans, 'N'), upper = lsame(uplo, 'U');
  const int nrowa = notrans ? n : k;
  int info = 0;
  if (!upper && !lsame(uplo, 'L')) info = 1;
  else if (!valid_trans(trans)) info = 2;
  else if (n < 0) info = 3;
  else if (k < 0) info = 4;
  else if (lda < std::max(1, nrowa)) info = 7;
  else if (ldb < std::max(1, nrowa)) info = 9;
  else if (ldc < std::max(1, n)) info = 12;
  if (info != 0) return info;
  if (n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0)) return 0;
  if (!present("DSYR2K", {{"C", c}})) return 0;
  if (alpha == 0.0) {
    scale_triangle(upper, n, beta, c, ldc);
    return 0;
  }
  if (k > 0 && !present("DSYR2K", {{"A", a}, {"B", b}})) return 0;
  guarded(
      "DSYR2K",
      [&] {
        exala::syr2k(layout::col_major, to_uplo(upper), to_trans(trans), n, k, alpha, a, lda, b,
                     ldb, beta, c, ldc, abi_exec());
      },
      [&] { fill_triangle(upper, n, c, ldc); });
  return 0;
}

namespace {
int check_tr3(char side, char uplo, char transa, char diag, int m, int n, int lda,
              int ldb) noexcept {
  const bool lside = lsame(side, 'L');
  const int nrowa = lside ? m : n;
  if (!lside && !lsame(side, 'R')) return 1;
  if (!lsame(uplo, 'U') && !lsame(uplo, 'L')) return 2;
  if (!valid_trans(transa)) return 3;
  if (!lsame(diag, 'U') && !lsame(diag, 'N')) return 4;
  if (m < 0) return 5;
  if (n < 0) return 6;
  if (lda < std::max(1, nrowa)) return 9;
  if (ldb < std::max(1, m)) return 11;
  return 0;
}
}  // namespace

int trmm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* a,
         int lda, double* b, int ldb) noexcept {
  if (const int info = check_tr3(side, uplo, transa, diag, m, n, lda, ldb)) return info;
  if (m == 0 || n == 0) return 0;
  if (!present("DTRMM", {{"B", b}})) return 0;
  if (alpha == 0.0) {
    scale_mat(m, n, 0.0, b, ldb);
    return 0;
  }
  if (!present("DTRMM", {{"A", a}})) return 0;
  guarded(
      "DTRMM",
      [&] {
        exala::trmm(layout::col_major, lsame(side, 'L') ? exala::side::left : exala::side::right,
                    to_uplo(lsame(uplo, 'U')), to_trans(transa),
                    lsame(diag, 'U') ? exala::diag::unit : exala::diag::non_unit, m, n, alpha, a,
                    lda, b, ldb, abi_exec());
      },
      [&] { fill_mat(m, n, b, ldb); });
  return 0;
}

int trsm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* a,
         int lda, double* b, int ldb) noexcept {
  if (const int info = check_tr3(side, uplo, transa, diag, m, n, lda, ldb)) return info;
  if (m == 0 || n == 0) return 0;
  if (!present("DTRSM", {{"B", b}})) return 0;
  if (alpha == 0.0) {
    scale_mat(m, n, 0.0, b, ldb);
    return 0;
  }
  if (!present("DTRSM", {{"A", a}})) return 0;
  const bool lside = lsame(side, 'L'), upper = lsame(uplo, 'U'), unit = lsame(diag, 'U');
  const bool trans = !lsame(transa, 'N');
  guarded(
      "DTRSM",
      [&] {
        if (!unit && has_zero_diagonal(lside ? m : n, a, lda)) {
          if (lside) {  // column j of X solves op(A) x = alpha b
            for (i64 j = 0; j < n; ++j)
              exact_substitution(upper, trans, false, m, alpha, a, lda, &b[idx(0, j, ldb)], 1);
          } else {  // row i of X solves op(A)^T x = alpha b
            for (i64 i = 0; i < m; ++i)
              exact_substitution(upper, !trans, false, n, alpha, a, lda, &b[i], ldb);
          }
        } else {
          exala::trsm(layout::col_major, lside ? exala::side::left : exala::side::right,
                      upper ? exala::uplo::upper : exala::uplo::lower, to_trans(transa),
                      unit ? exala::diag::unit : exala::diag::non_unit, m, n, alpha, a, lda, b,
                      ldb, abi_exec());
        }
      },
      [&] { fill_mat(m, n, b, ldb); });
  return 0;
}

}  // namespace exala::blas_abi
