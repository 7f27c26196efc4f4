// exala-demo: why exact, reproducible reductions matter.
//
// Builds an ill-conditioned sum (terms up to 2^100 that cancel exactly,
// leaving a result of order 10: condition number ~1e30), then prints
//  * the naive loop and the same loop run as an OpenMP reduction with 1..4
//    threads: wrong, and different bits for different thread counts;
//  * ExaLA's sum and dot on every backend and thread count: the same bits
//    every time, and equal to the exact value correctly rounded.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#ifdef EXALA_HAVE_OPENMP
#include <omp.h>
#endif

#include "exala/blas1.hpp"

namespace {

// n terms whose exact sum is tiny compared with the terms: random values up
// to 2^100 together with their exact negations, shuffled with 1000 values in
// [-1, 1] that alone make up the exact sum.
std::vector<double> ill_conditioned_terms(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> k(0, 100);
  std::vector<double> x;
  x.reserve(n);
  while (x.size() + 2 <= n - 1000) {
    const double v = std::ldexp(u(g), k(g));
    x.push_back(v);
    x.push_back(-v);
  }
  while (x.size() < n) x.push_back(u(g));
  std::shuffle(x.begin(), x.end(), g);
  return x;
}

double naive_sum(const std::vector<double>& x, int threads) {
  double s = 0.0;
#ifdef EXALA_HAVE_OPENMP
#pragma omp parallel for reduction(+ : s) num_threads(threads) schedule(dynamic, 4096)
#endif
  for (std::size_t i = 0; i < x.size(); ++i) s += x[i];
  (void)threads;
  return s;
}

void show(const char* what, double v) {
  std::printf("  %-34s % .17g  (bits %016llx)\n", what, v,
              static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(v)));
}

}  // namespace

int main() {
  const std::size_t n = 2'000'000;
  const std::vector<double> x = ill_conditioned_terms(n, 2026);
  std::vector<double> ones(n, 1.0);

  std::printf("ExaLA demo: exact, reproducible sum of %zu ill-conditioned terms\n\n", n);
  std::printf("Naive double loop (OpenMP reduction, dynamic schedule):\n");
  for (int t = 1; t <= 4; ++t) {
    char label[64];
    std::snprintf(label, sizeof label, "naive, %d thread%s", t, t > 1 ? "s" : "");
    show(label, naive_sum(x, t));
  }
  std::printf("\nExaLA exala::sum (exact, rounded once to nearest):\n");
  double first = 0.0;
  bool all_same = true;
  for (exala::backend b : {exala::backend::reference, exala::backend::simd, exala::backend::omp}) {
    if (!exala::is_compiled_in(b)) continue;
    const int max_t = b == exala::backend::omp ? 4 : 1;
    for (int t = 1; t <= max_t; ++t) {
      const double s = exala::sum(x, exala::exec{b, t});
      char label[64];
      std::snprintf(label, sizeof label, "%s, %d thread%s", std::string(exala::to_string(b)).c_str(), t,
                    t > 1 ? "s" : "");
      show(label, s);
      if (b == exala::backend::reference) first = s;
      all_same = all_same && std::bit_cast<std::uint64_t>(s) == std::bit_cast<std::uint64_t>(first);
    }
  }
  std::printf("\nThe same sum as a dot product with a vector of ones:\n");
  show("exala::dot (simd)", exala::dot(x, ones));
  std::printf("\nDirected roundings bracket the exact value:\n");
  show("rounded downward", exala::sum(x, exala::exec{exala::backend::simd, 1, exala::rounding::downward}));
  show("rounded upward", exala::sum(x, exala::exec{exala::backend::simd, 1, exala::rounding::upward}));
  std::printf("\nSIMD kernel set in use: %s\n", std::string(exala::to_string(exala::active_kernel_set())).c_str());
  std::printf("%s\n", all_same ? "All ExaLA results are bit-identical across backends and thread counts."
                               : "ERROR: ExaLA results differ across backends");
  return all_same ? 0 : 1;
}
