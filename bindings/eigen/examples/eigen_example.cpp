// eigen_example.cpp - ExaLA on Eigen types: an exact dot product where
// Eigen's rounds the answer away, exact(...) expressions, gemv/gemm, a
// triangular solve, and the stripe LU in core. Exits 0 when every checked
// value is as derived by hand.
#include <cmath>
#include <cstdio>

#include <Eigen/Dense>

#include <exala/eigen.hpp>

namespace ex = exala::eigen;

static int failures = 0;
static void check(bool ok, const char* what) {
  std::printf("  %-56s %s\n", what, ok ? "ok" : "FAILED");
  if (!ok) ++failures;
}

int main() {
  // 1. Dot product. x . y = 1e100 + 1 + 1 - 1e100 = 2 exactly. In double,
  //    adding 1 to 1e100 changes nothing, so a left-to-right sum, Eigen's
  //    two- or four-lane packets, and pairwise sums all return 0.
  Eigen::VectorXd x(4), y = Eigen::VectorXd::Ones(4);
  x << 1e100, 1.0, 1.0, -1e100;
  std::printf("dot: Eigen %g, ExaLA %g (exact: 2)\n", x.dot(y), ex::dot(x, y));
  check(ex::dot(x, y) == 2.0, "exala::eigen::dot is exact");

  // Strided views need no copy: row 1 of a column-major matrix.
  Eigen::MatrixXd M(2, 4);
  M.row(0) = y.transpose();
  M.row(1) = x.transpose();
  check(ex::sum(M.row(1)) == 2.0, "sum of a matrix row (stride 2) is exact");

  // Expressions are evaluated by Eigen first: x + y rounds 1e100 + 1 to
  // 1e100, so sum(x + y) = 1e100 + 2 + 2 - 1e100 = 4, not 2 + 4 = 6.
  check(ex::sum(x + y) == 4.0, "sum(x + y) sums the rounded elements");
  // exact(...) evaluates the expression itself exactly: 1e100 + 1 + 1 + 1 +
  // 1 + 1 - 1e100 + 1 = 6, rounded once; and coefficient by coefficient.
  check(ex::exact(x + y).sum() == 6.0, "exact(x + y).sum() is the exact 6");
  check(ex::exact(x - y).dot(y) == -2.0, "exact(x - y).dot(y) = 2 - 4 exactly");
  const Eigen::VectorXd xy = ex::exact(x + y - x);  // (1, 1, 1, 1): x cancels exactly
  check(xy == y, "VectorXd v = exact(x + y - x) rounds each entry once");

  // 2. gemv and gemm: each entry correctly rounded once. Row 0 of A is x,
  //    so (A e)_0 = 2; A^T A has entry (0,0) = 1e200 + 1 + 1 + 1e200.
  Eigen::MatrixXd A(3, 4);
  A.row(0) = x.transpose();
  A.row(1) << 1, 2, 3, 4;
  A.row(2) << 0.5, 0.25, 0.125, 0.0625;
  const Eigen::VectorXd Ay = ex::gemv(A, y);
  std::printf("gemv: A * ones = [%g %g %g]\n", Ay[0], Ay[1], Ay[2]);
  check(Ay[0] == 2.0 && Ay[1] == 10.0 && Ay[2] == 0.9375, "gemv rows 1e100+1+1-1e100, 1+2+3+4, ...");
  const Eigen::MatrixXd AAt = ex::gemm(A, A.transpose());  // A.transpose(): read in place
  // (A A^T)_01 = 1e100*1 + 1*2 + 1*3 - 1e100*4 = -3e100 + 5, which rounds to -3e100.
  check(AAt(0, 1) == -3e100, "gemm (A A^T)_01 = round(-3e100 + 5)");
  // Update form on a strided column of a row-major matrix, written in place:
  // C(:,1) = 2 A y + 1 C(:,1), one rounding per entry.
  Eigen::Matrix<double, 3, 3, Eigen::RowMajor> C;
  C.setOnes();
  ex::gemv(exala::transpose::none, 2.0, A, y, 1.0, C.col(1));
  check(C(0, 1) == 5.0 && C(1, 1) == 21.0 && C(2, 1) == 2.875 && C(0, 0) == 1.0,
        "gemv update of a strided column in place");
  // The same update in Eigen's syntax: ONE exala::gemv with alpha = 2, beta = 1.
  C.col(2).setOnes();
  C.col(2).noalias() += 2.0 * ex::exact(A) * y;
  check(C.col(2) == C.col(1), "C.col(2).noalias() += 2 * exact(A) * y: the same bits");

  // 3. Triangular solve: L x = b with L = [2 0; 1 3], b = [1, 1]:
  //    x0 = 1/2, x1 = (1 - 1/2)/3 = 1/6, correctly rounded.
  Eigen::Matrix2d L;
  L << 2, 0, 1, 3;
  ex::ExactTriangularSolver<Eigen::Lower> tri(L);
  const Eigen::VectorXd xt = tri.solve(Eigen::Vector2d(1, 1));
  check(tri.info() == Eigen::Success && xt[0] == 0.5 && xt[1] == 1.0 / 6.0,
        "exact triangular solve: [1/2, 1/6] correctly rounded");
  Eigen::Matrix2d S;
  S << 1, 0, 5, 0;  // zero on the diagonal at row 1
  tri.compute(S);
  std::printf("singular: info %d, row %ld: %s\n", int(tri.info()), long(tri.singularRow()),
              tri.lastError().c_str());
  check(tri.info() == Eigen::NumericalIssue && tri.singularRow() == 1, "singular diagonal found");

  // 4. Stripe LU in core, refined against the exact residual.
  const int n = 50;
  Eigen::MatrixXd B(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) B(i, j) = 1.0 / (1 + std::abs(i - j)) + (i == j ? 2.0 : 0.0);
  Eigen::VectorXd xtrue = Eigen::VectorXd::LinSpaced(n, -1.0, 1.0);
  const Eigen::VectorXd b = ex::gemv(B, xtrue);
  exala::stripe_lu_options opt;
  opt.stripe = 16;
  ex::StripeLU lu(B, opt);
  const Eigen::VectorXd xs = lu.solveRefined(b);
  std::printf("stripe LU: info %d, backward error %.3g -> %.3g in %d steps\n", int(lu.info()),
              lu.refineReport().backward_error_before, lu.refineReport().backward_error_after,
              lu.refineReport().steps);
  check(lu.info() == Eigen::Success && lu.backwardError(b, xs) <= 0x1p-52,
        "stripe LU refined backward error <= 2^-52");

  std::printf("%s\n", failures == 0 ? "all checks passed" : "SOME CHECKS FAILED");
  return failures == 0 ? 0 : 1;
}
