// test_kernel_sets: the kernel-set tables (blas1/kernels/kernel_set.hpp), one
// per instruction set, each holding the blas1, gemm and trsv kernels. Every
// set this CPU supports must be selectable (force_kernel_set, and reported
// back by active_kernel_set / to_string), and each of its three parts must
// give the reference's bits: dot and sum (blas1 kernels) and gemm (the
// residue kernels) against backend::reference, and the compensated and
// double-double trsv (no reference backend: their kernels are the only code
// path) against the generic set, the baseline every SIMD set must match.
// The thorough sweeps live in the per-layer suites; this one checks that
// every slot of every table is wired to its own layer's kernels.
#define BOOST_TEST_MODULE test_kernel_sets
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "backend_matrix.hpp"
#include "exala/blas1.hpp"
#include "exala/blas3.hpp"
#include "exala/solvers.hpp"

namespace {

using exala::backend;
using exala::kernel_set;
using exala_test::kernel_sets;
using exala_test::restore_kernel_set;

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Values over many binades, both signs (the kernels' wide paths).
std::vector<double> wide(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-60, 60);
  std::vector<double> v(n);
  for (double& x : v) x = std::ldexp(u(r), e(r));
  return v;
}

// A well-conditioned lower triangular n x n matrix, row-major.
std::vector<double> lower(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j <= i; ++j)
      a[static_cast<std::size_t>(i * n + j)] = i == j ? 1.5 + 0.5 * u(r) : u(r) / static_cast<double>(n);
  return a;
}

std::string name(kernel_set k) { return std::string(exala::to_string(k)); }

}  // namespace

BOOST_AUTO_TEST_CASE(every_supported_set_is_selectable) {
  restore_kernel_set restore;
  const auto& sets = kernel_sets();
  BOOST_TEST((sets.front() == kernel_set::generic));  // the baseline is always there
  BOOST_TEST(name(kernel_set::generic) == "generic");
  BOOST_TEST((kernel_set::scalar == kernel_set::generic));  // the former name
  for (kernel_set k : sets) {
    exala::force_kernel_set(k);
    BOOST_TEST((exala::active_kernel_set() == k), name(k));
    BOOST_TEST(name(k) != "unknown");
  }
}

BOOST_AUTO_TEST_CASE(every_set_matches_the_reference) {
  restore_kernel_set restore;
  const exala::exec ref{backend::reference};
  const exala::exec simd{backend::simd};

  // blas1 part
  const std::vector<double> x = wide(3000, 1), y = wide(3000, 2);
  const double dot_ref = exala::dot(x, y, ref), sum_ref = exala::sum(x, ref);
  const double dot_short_ref = exala::dot(std::span(x).first(40), std::span(y).first(40), ref);

  // gemm part: C = A B + C, column-major, sizes off the micro-tile multiples
  const std::int64_t m = 37, n = 29, kk = 41;
  const std::vector<double> a = wide(static_cast<std::size_t>(m * kk), 3);
  const std::vector<double> b = wide(static_cast<std::size_t>(kk * n), 4);
  const std::vector<double> c0 = wide(static_cast<std::size_t>(m * n), 5);
  auto run_gemm = [&](const exala::exec& ex) {
    std::vector<double> c = c0;
    exala::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, m, n, kk, 0.75,
                a.data(), m, b.data(), kk, -1.0, c.data(), m, ex);
    return c;
  };
  const std::vector<double> gemm_ref = run_gemm(ref);

  // trsv part: both loop orientations (rows contiguous, columns contiguous)
  const std::int64_t nt = 150;
  const std::vector<double> t = lower(nt, 6);
  const std::vector<double> rhs = wide(static_cast<std::size_t>(nt), 7);
  auto run_trsv = [&](bool compensated, exala::layout lay) {
    std::vector<double> v = rhs;
    // the row-major lower matrix read as column-major is its upper transpose
    const exala::uplo ul = lay == exala::layout::row_major ? exala::uplo::lower : exala::uplo::upper;
    if (compensated)
      exala::trsv_compensated(lay, ul, exala::transpose::none, exala::diag::non_unit, nt, t.data(), nt,
                              v.data(), 1);
    else
      exala::trsv_double_double(lay, ul, exala::transpose::none, exala::diag::non_unit, nt, t.data(), nt,
                                v.data(), 1);
    return v;
  };
  exala::force_kernel_set(kernel_set::generic);
  std::vector<std::vector<double>> trsv_generic;
  for (bool comp : {true, false})
    for (exala::layout lay : {exala::layout::row_major, exala::layout::col_major})
      trsv_generic.push_back(run_trsv(comp, lay));

  for (kernel_set k : kernel_sets()) {
    exala::force_kernel_set(k);
    BOOST_TEST_CONTEXT("kernel set " << name(k)) {
      BOOST_TEST(same_bits(exala::dot(x, y, simd), dot_ref));
      BOOST_TEST(same_bits(exala::dot(std::span(x).first(40), std::span(y).first(40), simd), dot_short_ref));
      BOOST_TEST(same_bits(exala::sum(x, simd), sum_ref));
      BOOST_TEST(same_bits(run_gemm(simd), gemm_ref));
      std::size_t i = 0;
      for (bool comp : {true, false})
        for (exala::layout lay : {exala::layout::row_major, exala::layout::col_major})
          BOOST_TEST(same_bits(run_trsv(comp, lay), trsv_generic[i++]),
                     (comp ? "compensated " : "double-double ") << (lay == exala::layout::row_major ? "rows" : "columns"));
    }
  }
}
