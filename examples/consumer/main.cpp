// Consumer check: 1e16 + 1 - 1e16 summed exactly is 1 (a plain loop gives 0).
#include <cstdio>
#include <vector>

#include <exala/blas1.hpp>

int main() {
  const std::vector<double> x{1e16, 1.0, -1e16};
  const double s = exala::sum(x);
  std::printf("%.17g\n", s);
  return s == 1.0 ? 0 : 1;
}
