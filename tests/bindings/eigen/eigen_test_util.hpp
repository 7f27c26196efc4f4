// tests/bindings/eigen/eigen_test_util.hpp - what the Eigen suites
// (test_eigen, test_eigen_exact, test_eigen_use_blas) share: bit equality of
// doubles and of Eigen matrices, and random matrices whose entries have
// random signs and exponents (sums of them are rarely exact in double, so a
// wrong pairing or a dropped term shows).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include <Eigen/Dense>

namespace eigen_test {

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}
template <class A, class B>
bool same_bits(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      if (!same_bits(a(i, j), b(i, j))) return false;
  return true;
}

// Entries m 2^e, m uniform in (-1, 1), e uniform in -range..range.
inline Eigen::MatrixXd random_wide(Eigen::Index rows, Eigen::Index cols, unsigned seed, int range = 30) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> m(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-range, range);
  Eigen::MatrixXd a(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) a(i, j) = std::ldexp(m(g), e(g));
  return a;
}

}  // namespace eigen_test
