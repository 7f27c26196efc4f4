// skeel_condition: Skeel's condition number of a triangular system at x,
//   cond(op(A), x) = || |op(A)^-1| |op(A)| |x| ||_inf / ||x||_inf
// (Skeel 1979; Higham, "Accuracy and Stability of Numerical Algorithms",
// 2nd ed., section 7.2), the quantity in the forward error bounds of the
// compensated and double-double solvers.
//
// Accuracy: y = |op(A)| |x| is a sum of nonnegative terms (relative error
// <= n u); the columns of op(A)^-1 come from trsv_compensated, each with a
// normwise relative error of about u + n cond(op(A), e_j) u^2. The value is
// therefore reliable to a few digits while n cond u^2 << 1 (cond up to about
// 1e28 for n ~ 100) and only an estimate beyond; trsv_mpfr_solution and an
// MPFR inverse are the truth for the accuracy study. x = 0 (or n = 0) gives
// NaN (0/0); non-finite data give inf or NaN.
// Scaling: Skeel's condition number does not change when the rows of op(A)
// are scaled (cond(D op(A), x) = cond(op(A), x) for every nonsingular
// diagonal D) nor when x is (cond(op(A), s x) = cond(op(A), x)). It is
// computed on D op(A) and s x with D and s exact powers of two that bring
// the largest magnitude of every row (the unit diagonal counted as 1) and of
// x into [0.5, 1): then |D op(A)| |s x| <= n, and nothing overflows or
// underflows on the way for any finite data whose rows' entries (and x's)
// lie within 2^1022 of their row's (x's) largest; a finite nonsingular
// problem no longer reports inf, NaN or 0 because its entries are near
// 2^+-1000 (the scalings are exact, so for data in the ordinary range the
// bits are those of the unscaled formula). inf or NaN in the data gives inf
// or NaN as before.
// Cost: a scaled copy of the triangle (n^2 doubles), n compensated solves
// on its leading/trailing blocks, n^3/6 updates (fine for n up to a few
// thousand), plus n^2 for |op(A)| |x|.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "exala/solvers.hpp"
#include "solvers_common.hpp"

namespace exala {

namespace {

// The exponent e with m = f 2^e, f in [0.5, 1), of the largest magnitude m of
// a row or of x: 2^-e brings m into [0.5, 1). 0 (no scaling) for m = 0 or a
// non-finite m, whose inf or NaN then propagates unchanged.
int scale_exponent(double m) {
  int e = 0;
  if (std::isfinite(m) && m > 0.0) std::frexp(m, &e);
  return e;
}

}  // namespace

double skeel_condition(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                       const double* a, std::int64_t lda, const double* x, std::int64_t incx) {
  using namespace solvers_detail;
  check_args(lay, ul, trans, dg, n, a, lda, x, incx, "x", "incx", false);
  const canonical c = make_canonical(lay, ul, trans, dg, n, a, lda);
  check_diagonal(c, "skeel_condition");
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t un = static_cast<std::size_t>(n);
  auto op = [&](std::int64_t i, std::int64_t j) {
    return c.rows ? c.a[i * c.lda + j] : c.a[j * c.lda + i];
  };
  // |x| scaled by s = 2^-xe (exact).
  std::vector<double> ax(un);
  gather(n, x, incx, ax.data());
  double xmax = 0.0;
  for (double& v : ax) {
    v = std::fabs(v);
    if (!(v <= xmax)) xmax = v;  // NaN wins
  }
  const int xe = scale_exponent(xmax);
  for (double& v : ax) v = std::ldexp(v, -xe);
  xmax = std::ldexp(xmax, -xe);
  // T = D op(A), row-major, the triangle of op(A) only (the rest 0), non-unit:
  // row i scaled by 2^-e_i (exact), a unit diagonal stored as 2^-e_i.
  // n * n fits: check_args bounded the n x n matrix to 2^60 - 1 elements.
  std::vector<double> t(un * un, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t lo = c.lower ? 0 : i + 1;
    const std::int64_t hi = c.lower ? i : n;
    double m = c.unit ? 1.0 : std::fabs(op(i, i));
    for (std::int64_t j = lo; j < hi; ++j) m = std::fmax(m, std::fabs(op(i, j)));
    const int e = scale_exponent(m);
    double* row = t.data() + static_cast<std::size_t>(i) * un;
    row[i] = std::ldexp(c.unit ? 1.0 : op(i, i), -e);
    for (std::int64_t j = lo; j < hi; ++j) row[j] = std::ldexp(op(i, j), -e);
  }
  auto tij = [&](std::int64_t i, std::int64_t j) { return t[static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j)]; };
  // y = |T| |s x|
  std::vector<double> y(un, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t lo = c.lower ? 0 : i + 1;
    const std::int64_t hi = c.lower ? i : n;
    double s = std::fabs(tij(i, i)) * ax[static_cast<std::size_t>(i)];
    for (std::int64_t j = lo; j < hi; ++j) s += std::fabs(tij(i, j)) * ax[static_cast<std::size_t>(j)];
    y[static_cast<std::size_t>(i)] = s;
  }
  // z = |T^-1| y, column j of the inverse from T w = e_j: nonzero in rows
  // j.. (lower: the trailing block from j) or ..j (upper: the leading block
  // up to j), solved on that block only.
  const uplo tu = c.lower ? uplo::lower : uplo::upper;
  std::vector<double> z(un, 0.0), w(un);
  for (std::int64_t j = 0; j < n; ++j) {
    const double yj = y[static_cast<std::size_t>(j)];
    if (yj == 0.0) continue;
    const std::int64_t first = c.lower ? j : 0;
    const std::int64_t m = c.lower ? n - j : j + 1;
    std::fill(w.begin(), w.begin() + m, 0.0);
    w[static_cast<std::size_t>(c.lower ? 0 : j)] = 1.0;
    trsv_compensated(layout::row_major, tu, transpose::none, diag::non_unit, m,
                     t.data() + static_cast<std::size_t>(first) * un + static_cast<std::size_t>(first), n,
                     w.data(), 1);
    for (std::int64_t i = 0; i < m; ++i)
      z[static_cast<std::size_t>(first + i)] += std::fabs(w[static_cast<std::size_t>(i)]) * yj;
  }
  double zmax = 0.0;
  for (double v : z)
    if (!(v <= zmax)) zmax = v;
  return zmax / xmax;
}

}  // namespace exala
