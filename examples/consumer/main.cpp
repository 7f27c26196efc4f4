// Consumer check for the installed C++ layers: an exact sum, a correctly
// rounded gemm and a compensated triangular solve, each with a value known
// exactly by construction.
#include <cstdio>
#include <vector>

#include <exala/blas1.hpp>
#include <exala/blas3.hpp>
#include <exala/solvers.hpp>

int main() {
  int failures = 0;
  // 1e16 + 1 - 1e16 summed exactly is 1 (a plain loop gives 0).
  const std::vector<double> x{1e16, 1.0, -1e16};
  const double s = exala::sum(x);
  std::printf("sum = %.17g\n", s);
  failures += s != 1.0;

  // Row 0 of A times column 0 of B: 1e16 * 1 + 1 * 1 + (-1e16) * 1 = 1 exactly.
  const std::vector<double> a{1e16, 1.0, -1e16};  // 1 x 3, row-major
  const std::vector<double> b{1.0, 1.0, 1.0};     // 3 x 1
  double c = 0;
  exala::gemm(exala::layout::row_major, exala::transpose::none, exala::transpose::none, 1, 1, 3,
              1.0, a.data(), 3, b.data(), 1, 0.0, &c, 1);
  std::printf("gemm = %.17g\n", c);
  failures += c != 1.0;

  // [2 0; 1 4] x = [2; 9] has the exact solution x = [1; 2].
  const std::vector<double> t{2, 0, 1, 4};
  std::vector<double> rhs{2, 9};
  exala::trsv_compensated(exala::layout::row_major, exala::uplo::lower, exala::transpose::none,
                          exala::diag::non_unit, 2, t.data(), 2, rhs.data(), 1);
  std::printf("trsv_compensated = %.17g %.17g\n", rhs[0], rhs[1]);
  failures += rhs[0] != 1.0 || rhs[1] != 2.0;
  return failures == 0 ? 0 : 1;
}
