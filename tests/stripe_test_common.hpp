// tests/stripe_test_common.hpp - helpers of the stripe LU suite
// (test_stripe_lu.cpp, built once per engine and rank count): scratch
// directories (one process's), random matrices, the LAPACK dgesv_
// comparison, bit equality, and the MPFR backward error.
// Each suite includes it once (its definitions live in an unnamed namespace).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#ifdef EXALA_TEST_HAVE_MPFR
#include <mpfr.h>
#endif

extern "C" {
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
            const int* ldb, int* info);
}

namespace {

namespace fs = std::filesystem;
using i64 = std::int64_t;

constexpr double u = 0x1p-53;

// A fresh directory under the temp dir, removed at scope exit.
struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() /
           ("exala_stripe_test_" + tag + "_" + std::to_string(::getpid()) + "_" +
            std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

std::vector<double> random_matrix(i64 rows, i64 cols, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  std::vector<double> a(std::size_t(rows * cols));
  for (double& v : a) v = d(g);
  return a;
}

std::vector<double> dgesv(i64 n, std::vector<double> a, std::vector<double> b, i64 nrhs) {
  int nn = int(n), nr = int(nrhs), info = 0;
  std::vector<int> piv(static_cast<std::size_t>(n));
  dgesv_(&nn, &nr, a.data(), &nn, piv.data(), b.data(), &nn, &info);
  BOOST_REQUIRE_EQUAL(info, 0);
  return b;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

double max_rel_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    num = std::max(num, std::fabs(x[i] - y[i]));
    den = std::max(den, std::fabs(y[i]));
  }
  return den > 0 ? num / den : num;
}

#ifdef EXALA_TEST_HAVE_MPFR
// ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), the residual exact in
// MPFR (4400 bits hold every sum of products of doubles of these sizes) and
// the rest rounded upward, so the value returned is never below the truth.
double mpfr_backward_error(i64 n, const std::vector<double>& a, const double* b, const double* x) {
  mpfr_t acc, t;
  mpfr_init2(acc, 4400);
  mpfr_init2(t, 4400);
  double rmax = 0, anorm = 0, xmax = 0, bmax = 0;
  for (i64 i = 0; i < n; ++i) {
    mpfr_set_d(acc, b[i], MPFR_RNDN);
    double rowsum = 0;
    for (i64 j = 0; j < n; ++j) {
      mpfr_set_d(t, a[std::size_t(i + j * n)], MPFR_RNDN);
      mpfr_mul_d(t, t, x[j], MPFR_RNDN);  // exact at 4400 bits
      mpfr_sub(acc, acc, t, MPFR_RNDN);   // exact
      rowsum += std::fabs(a[std::size_t(i + j * n)]);
    }
    rmax = std::max(rmax, std::fabs(mpfr_get_d(acc, MPFR_RNDU)));
    anorm = std::max(anorm, rowsum * (1 + 2.0 * double(n) * u));
    bmax = std::max(bmax, std::fabs(b[i]));
  }
  for (i64 j = 0; j < n; ++j) xmax = std::max(xmax, std::fabs(x[j]));
  mpfr_clear(acc);
  mpfr_clear(t);
  return rmax / (anorm * xmax + bmax) * (1 + 4 * u);
}
#endif

}  // namespace
