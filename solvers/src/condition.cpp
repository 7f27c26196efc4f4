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
// Cost: n compensated solves on the leading/trailing blocks, n^3/6 updates
// (fine for n up to a few thousand), plus n^2 for |op(A)| |x|.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "exala/solvers.hpp"
#include "solvers_common.hpp"

namespace exala {

double skeel_condition(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                       const double* a, std::int64_t lda, const double* x, std::int64_t incx) {
  using namespace solvers_detail;
  check_args(lay, ul, trans, dg, n, a, lda, x, incx, "x", "incx", false);
  const canonical c = make_canonical(lay, ul, trans, dg, n, a, lda);
  check_diagonal(c, "skeel_condition");
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t un = static_cast<std::size_t>(n);
  std::vector<double> ax(un);
  gather(n, x, incx, ax.data());
  double xmax = 0.0;
  for (double& v : ax) {
    v = std::fabs(v);
    if (!(v <= xmax)) xmax = v;  // NaN wins
  }
  auto op = [&](std::int64_t i, std::int64_t j) {
    return c.rows ? c.a[i * c.lda + j] : c.a[j * c.lda + i];
  };
  // y = |op(A)| |x|
  std::vector<double> y(un, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t lo = c.lower ? 0 : i + 1;
    const std::int64_t hi = c.lower ? i : n;
    double s = c.unit ? ax[static_cast<std::size_t>(i)]
                      : std::fabs(op(i, i)) * ax[static_cast<std::size_t>(i)];
    for (std::int64_t j = lo; j < hi; ++j) s += std::fabs(op(i, j)) * ax[static_cast<std::size_t>(j)];
    y[static_cast<std::size_t>(i)] = s;
  }
  // z = |op(A)^-1| y, column j of the inverse from op(A) w = e_j: nonzero in
  // rows j.. (lower: the trailing block from j) or ..j (upper: the leading
  // block up to j), solved on that block only.
  std::vector<double> z(un, 0.0), w(un);
  for (std::int64_t j = 0; j < n; ++j) {
    const double yj = y[static_cast<std::size_t>(j)];
    if (yj == 0.0) continue;
    const std::int64_t first = c.lower ? j : 0;
    const std::int64_t m = c.lower ? n - j : j + 1;
    std::fill(w.begin(), w.begin() + m, 0.0);
    w[static_cast<std::size_t>(c.lower ? 0 : j)] = 1.0;
    trsv_compensated(lay, ul, trans, dg, m, a + first * lda + first, lda, w.data(), 1);
    for (std::int64_t i = 0; i < m; ++i)
      z[static_cast<std::size_t>(first + i)] += std::fabs(w[static_cast<std::size_t>(i)]) * yj;
  }
  double zmax = 0.0;
  for (double v : z)
    if (!(v <= zmax)) zmax = v;
  return zmax / xmax;
}

}  // namespace exala
