// tests/test_solvers.cpp - the solvers layer: compensated (CENA) and
// double-double triangular solves, exact trsv + refinement, the Skeel
// condition number, the ill-conditioned generator, the MPFR solution.
//
// Oracles: MPFR (a test-local substitution and inverse at a fixed high
// precision, independent of the library's trsv_mpfr_solution), exact integer
// constructions (solutions known by construction), and bit equality between
// equivalent formulations of one system:
//  * the 8 variants x 2 layouts: a lower system T stored as lower/N and as
//    upper/T in each layout, and its reversal P T P (upper) stored as
//    upper/N and lower/T, with lda > n, the unused triangle, the padding and
//    (for unit diagonals) the diagonal poisoned with NaN;
//  * strides 1, 2, -1, -3 with poisoned gaps (a negative increment walks
//    backwards, as BLAS);
//  * every kernel set this CPU has (forced with exala::force_kernel_set) for
//    the compensated and double-double kernels; every backend x thread count
//    x block size for the refined solver.
// Accuracy: forward errors on generated systems against
//   u + n cond u^2   (compensated, double-double; cond measured in MPFR),
// 1 ulp per component for the refined solver while cond u < 1/n, exact
// recovery of representable solutions, and the generator's condition
// numbers measured in MPFR. Sweeps over more sizes, seeds and conditions
// carry the `long` label.
#define BOOST_TEST_MODULE exala_solvers
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "backend_matrix.hpp"
#include "exala/backend.hpp"
#include "exala/blas2.hpp"
#include "exala/error.hpp"
#include "exala/solvers.hpp"
#include "mpfr_oracle.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala_test;
using exala::diag;
using exala::layout;
using exala::transpose;
using exala::uplo;

namespace {

constexpr double u = 0x1p-53;

using matrix = std::vector<double>;  // dense n x n, row-major, math matrix

// ------------------------------------------------------------ storage
// A stored operand: op(A) equals a given math matrix M.
struct stored {
  layout lay;
  uplo ul;
  transpose trans;
  diag dg;
  std::int64_t n, lda;
  std::vector<double> a;
};

std::string describe(const stored& s) {
  std::ostringstream os;
  os << (s.lay == layout::row_major ? "row_major" : "col_major") << " "
     << (s.ul == uplo::lower ? "lower" : "upper") << " " << (s.trans == transpose::none ? "N" : "T")
     << " " << (s.dg == diag::unit ? "unit" : "non_unit") << " n=" << s.n << " lda=" << s.lda;
  return os.str();
}

// Stores M (triangular, `lower` tells which) so that op(A) = M. Cells that
// must not be read are NaN: the other triangle, the padding, and the
// diagonal when dg is unit (M's diagonal is then taken as 1).
stored store(const matrix& m, std::int64_t n, bool m_lower, layout lay, transpose trans, diag dg,
             std::int64_t pad) {
  stored s;
  s.lay = lay;
  s.trans = trans;
  s.dg = dg;
  s.n = n;
  s.lda = n + pad;
  if (s.lda < 1) s.lda = 1;
  const bool a_lower = (trans == transpose::none) ? m_lower : !m_lower;
  s.ul = a_lower ? uplo::lower : uplo::upper;
  s.a.assign(static_cast<std::size_t>(s.lda * (n > 0 ? n : 1)), qnan);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const bool in = a_lower ? j <= i : j >= i;
      if (!in || (i == j && dg == diag::unit)) continue;
      const double v = trans == transpose::none ? m[i * n + j] : m[j * n + i];  // A = M or M^T
      const std::int64_t at = lay == layout::row_major ? i * s.lda + j : j * s.lda + i;
      s.a[static_cast<std::size_t>(at)] = v;
    }
  return s;
}

// P M P: rows and columns reversed (lower <-> upper).
matrix reversed(const matrix& m, std::int64_t n) {
  matrix r(m.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) r[i * n + j] = m[(n - 1 - i) * n + (n - 1 - j)];
  return r;
}

std::vector<double> reversed(std::vector<double> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

using solver_fn = std::function<void(layout, uplo, transpose, diag, std::int64_t, const double*,
                                     std::int64_t, double*, std::int64_t)>;

const solver_fn compensated = [](layout l, uplo ul, transpose t, diag d, std::int64_t n,
                                 const double* a, std::int64_t lda, double* x, std::int64_t inc) {
  exala::trsv_compensated(l, ul, t, d, n, a, lda, x, inc);
};
const solver_fn double_double = [](layout l, uplo ul, transpose t, diag d, std::int64_t n,
                                   const double* a, std::int64_t lda, double* x, std::int64_t inc) {
  exala::trsv_double_double(l, ul, t, d, n, a, lda, x, inc);
};

// Solves with a BLAS-strided copy of b (gaps poisoned) and returns the
// logical solution; checks that the gaps are untouched.
std::vector<double> solve_strided(const solver_fn& f, const stored& s, const std::vector<double>& b,
                                  std::int64_t inc) {
  const std::int64_t n = s.n;
  const std::int64_t ainc = inc < 0 ? -inc : inc;
  std::vector<double> buf(static_cast<std::size_t>(n > 0 ? (n - 1) * ainc + 1 : 1), -777.25);
  auto at = [&](std::int64_t i) { return inc >= 0 ? i * inc : (n - 1 - i) * -inc; };
  for (std::int64_t i = 0; i < n; ++i) buf[static_cast<std::size_t>(at(i))] = b[static_cast<std::size_t>(i)];
  f(s.lay, s.ul, s.trans, s.dg, n, s.a.data(), s.lda, buf.data(), inc);
  std::vector<double> x(static_cast<std::size_t>(n));
  std::vector<bool> used(buf.size(), false);
  for (std::int64_t i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = buf[static_cast<std::size_t>(at(i))];
    used[static_cast<std::size_t>(at(i))] = true;
  }
  for (std::size_t k = 0; k < buf.size(); ++k)
    if (!used[k]) BOOST_TEST_REQUIRE(bits(buf[k]) == bits(-777.25), "gap " << k << " was written");
  return x;
}

bool same(const std::vector<double>& a, const std::vector<double>& b, std::string* where = nullptr) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) {
      if (where) *where = "element " + std::to_string(i) + ": " + hex(a[i]) + " vs " + hex(b[i]);
      return false;
    }
  return true;
}

// ------------------------------------------------------------ data
// A random lower triangular matrix, diagonal in +-[1, 2), off-diagonal
// uniform in [-1, 1] / n^(1/2) times a random power of two in [2^-3, 2^3].
matrix random_lower(std::int64_t n, rng_t& r) {
  matrix m(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j <= i; ++j) {
      if (i == j) {
        m[i * n + j] = (r() & 1 ? -1.0 : 1.0) * (1.0 + std::ldexp(static_cast<double>(r() >> 11), -53));
      } else {
        m[i * n + j] = uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 7) - 3) /
                       std::sqrt(static_cast<double>(n));
      }
    }
  return m;
}

std::vector<double> random_vector(std::int64_t n, rng_t& r) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 9) - 4);
  return v;
}

// The plain double substitution for lower row-major T (the classic algorithm).
std::vector<double> naive_lower(const matrix& t, std::int64_t n, std::vector<double> x) {
  for (std::int64_t i = 0; i < n; ++i) {
    double s = x[static_cast<std::size_t>(i)];
    for (std::int64_t j = 0; j < i; ++j) s -= t[i * n + j] * x[static_cast<std::size_t>(j)];
    x[static_cast<std::size_t>(i)] = s / t[i * n + i];
  }
  return x;
}

double rel_error(const std::vector<double>& x, const std::vector<double>& ref) {
  double e = 0.0, m = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    e = std::fmax(e, std::fabs(x[i] - ref[i]));
    m = std::fmax(m, std::fabs(ref[i]));
  }
  return e / m;
}

// Distance in units in the last place between two finite doubles.
std::uint64_t ulp_distance(double a, double b) {
  auto key = [](double v) {
    const std::int64_t i = static_cast<std::int64_t>(bits(v));
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
  };
  const std::int64_t ka = key(a), kb = key(b);
  return ka > kb ? static_cast<std::uint64_t>(ka) - static_cast<std::uint64_t>(kb)
                 : static_cast<std::uint64_t>(kb) - static_cast<std::uint64_t>(ka);
}

// A lower system with the exact solution x = (1, ..., 1) whose rows cancel
// heavily (after Louvet's generator): row i's entries are random values of
// widely spread magnitudes plus the errors of their VecSum (TwoSum cascade)
// with opposite signs, so that sum_j t_ij = b_i holds exactly; the diagonal
// is one of the random values (a power of two, so never 0).
void vecsum_system(std::int64_t n, rng_t& r, matrix& t, std::vector<double>& b) {
  t.assign(static_cast<std::size_t>(n * n), 0.0);
  b.assign(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = std::min<std::int64_t>(8, i / 2 + 1);  // inputs incl. the diagonal
    std::vector<double> in(static_cast<std::size_t>(p));
    in[0] = std::ldexp(r() & 1 ? -1.0 : 1.0, static_cast<int>(r() % 21) - 10);  // the diagonal
    for (std::int64_t k = 1; k < p; ++k)
      in[static_cast<std::size_t>(k)] = uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 81) - 40);
    // VecSum: s = in[0]; for k: (s, e_k) = TwoSum(s, in[k])
    std::vector<double> err;
    double s = in[0];
    for (std::int64_t k = 1; k < p; ++k) {
      const double a = s, c = in[static_cast<std::size_t>(k)];
      s = a + c;
      const double bp = s - a, ap = s - bp;
      err.push_back((a - ap) + (c - bp));
    }
    // sum(in) = s + sum(err) exactly: row entries in[1..] and -err, b_i = s
    std::vector<std::int64_t> cols;
    for (std::int64_t j = 0; j < i; ++j) cols.push_back(j);
    shuffle(cols, r);
    std::size_t c = 0;
    for (std::int64_t k = 1; k < p; ++k) t[i * n + cols[c++]] = in[static_cast<std::size_t>(k)];
    for (double e : err) t[i * n + cols[c++]] -= e;
    t[i * n + i] = in[0];
    b[static_cast<std::size_t>(i)] = s;
  }
}

#ifdef EXALA_TEST_HAVE_MPFR
// ------------------------------------------------------------ MPFR oracle
// Test-local MPFR substitution for lower row-major T at `prec` bits: the
// solution of T w = rhs as MPFR numbers, rounded to doubles by the caller.
struct mpfr_vec {
  explicit mpfr_vec(std::size_t n, mpfr_prec_t p) : v(n) {
    for (auto& x : v) mpfr_init2(x.m, p);
  }
  ~mpfr_vec() {
    for (auto& x : v) mpfr_clear(x.m);
  }
  struct cell {
    mpfr_t m;
  };
  std::vector<cell> v;
};

void mpfr_lower_solve(const matrix& t, std::int64_t n, const std::vector<double>& rhs,
                      mpfr_vec& w, mpfr_prec_t p) {
  mpfr_t s, tmp;
  mpfr_init2(s, p);
  mpfr_init2(tmp, p);
  for (std::int64_t i = 0; i < n; ++i) {
    mpfr_set_d(s, rhs[static_cast<std::size_t>(i)], MPFR_RNDN);
    for (std::int64_t j = 0; j < i; ++j) {
      if (t[i * n + j] == 0.0) continue;
      mpfr_mul_d(tmp, w.v[static_cast<std::size_t>(j)].m, t[i * n + j], MPFR_RNDN);
      mpfr_sub(s, s, tmp, MPFR_RNDN);
    }
    mpfr_div_d(w.v[static_cast<std::size_t>(i)].m, s, t[i * n + i], MPFR_RNDN);
  }
  mpfr_clear(s);
  mpfr_clear(tmp);
}

// The exact solution of T x = b rounded to doubles (MPFR at 1024 bits: the
// systems here have cond <= 1e45, far below 2^(1024-53-log2 n)).
std::vector<double> mpfr_solution(const matrix& t, std::int64_t n, const std::vector<double>& b) {
  mpfr_vec w(static_cast<std::size_t>(n), 1024);
  mpfr_lower_solve(t, n, b, w, 1024);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = mpfr_to_double(w.v[i].m, MPFR_RNDN);
  return x;
}

// Skeel's cond(T, x) = || |T^-1| |T| |x| || / ||x|| with the inverse's
// columns in MPFR (512 bits) and nonnegative sums in double.
double mpfr_skeel(const matrix& t, std::int64_t n, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(n), 0.0), z(static_cast<std::size_t>(n), 0.0);
  double xmax = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    xmax = std::fmax(xmax, std::fabs(x[static_cast<std::size_t>(i)]));
    for (std::int64_t j = 0; j <= i; ++j)
      y[static_cast<std::size_t>(i)] += std::fabs(t[i * n + j]) * std::fabs(x[static_cast<std::size_t>(j)]);
  }
  mpfr_vec w(static_cast<std::size_t>(n), 512);
  for (std::int64_t j = 0; j < n; ++j) {
    std::vector<double> e(static_cast<std::size_t>(n), 0.0);
    e[static_cast<std::size_t>(j)] = 1.0;
    mpfr_lower_solve(t, n, e, w, 512);
    for (std::int64_t i = j; i < n; ++i)
      z[static_cast<std::size_t>(i)] +=
          std::fabs(mpfr_get_d(w.v[static_cast<std::size_t>(i)].m, MPFR_RNDN)) * y[static_cast<std::size_t>(j)];
  }
  return *std::max_element(z.begin(), z.end()) / xmax;
}
#endif

// Runs body for every kernel set this CPU has, restoring the best one.
template <class Body>
void for_each_kernel_set(Body body) {
  restore_kernel_set restore;
  for (exala::kernel_set k : kernel_sets()) {
    exala::force_kernel_set(k);
    body(k);
  }
}

// Checks every equivalent storage of the lower system (t, b) against the
// lower row-major solution, bit for bit, for one solver and unit/non-unit.
void check_variants(const solver_fn& f, const char* name, const matrix& t0, std::int64_t n,
                    const std::vector<double>& b, diag dg) {
  matrix t = t0;
  if (dg == diag::unit)
    for (std::int64_t i = 0; i < n; ++i) t[i * n + i] = 1.0;
  // reference: lower row-major N, lda = n, stride 1, diagonal stored
  const stored ref_s = store(t, n, true, layout::row_major, transpose::none, diag::non_unit, 0);
  const std::vector<double> ref = solve_strided(f, ref_s, b, 1);
  for (double v : ref) BOOST_TEST_REQUIRE(!std::isnan(v), name << ": NaN in the reference solution");
  const matrix tr = reversed(t, n);
  const std::vector<double> br = reversed(b);
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose tt : {transpose::none, transpose::trans})
      for (std::int64_t pad : {0, 3})
        for (std::int64_t inc : {1, 2, -1, -3}) {
          // op(A) = T (lower)
          const stored s1 = store(t, n, true, lay, tt, dg, pad);
          std::string where;
          BOOST_TEST(same(solve_strided(f, s1, b, inc), ref, &where),
                     name << " " << describe(s1) << " incx=" << inc << ": " << where);
          // op(A) = P T P (upper), right-hand side reversed: solution reversed
          const stored s2 = store(tr, n, false, lay, tt, dg, pad);
          BOOST_TEST(same(reversed(solve_strided(f, s2, br, inc)), ref, &where),
                     name << " reversed " << describe(s2) << " incx=" << inc << ": " << where);
        }
}

const std::vector<std::int64_t> variant_sizes = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 40, 65};

}  // namespace

// ====================================================================== layouts

BOOST_AUTO_TEST_CASE(compensated_and_dd_every_variant_layout_stride_same_bits) {
  rng_t r(11);
  for (std::int64_t n : variant_sizes) {
    const matrix t = random_lower(n, r);
    const std::vector<double> b = random_vector(n, r);
    for (diag dg : {diag::non_unit, diag::unit}) {
      check_variants(compensated, "compensated", t, n, b, dg);
      check_variants(double_double, "double_double", t, n, b, dg);
    }
  }
}

BOOST_AUTO_TEST_CASE(variants_same_bits_on_ill_conditioned_systems) {
  // Where the correction matters: every lane and block path must match.
  for (std::int64_t n : {9, 40, 57}) {
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, 1e25, 3);
    check_variants(compensated, "compensated", p.t, n, p.b, diag::non_unit);
    check_variants(double_double, "double_double", p.t, n, p.b, diag::non_unit);
  }
}

BOOST_AUTO_TEST_CASE(unit_diagonal_equals_stored_ones) {
  // diag::unit must not read the diagonal (NaN there) and equal a stored 1.
  rng_t r(12);
  for (std::int64_t n : {1, 4, 17, 40}) {
    matrix t = random_lower(n, r);
    for (std::int64_t i = 0; i < n; ++i) t[i * n + i] = 1.0;
    const std::vector<double> b = random_vector(n, r);
    for (const auto& [f, name] : {std::pair{compensated, "compensated"}, std::pair{double_double, "dd"}}) {
      const stored ones = store(t, n, true, layout::col_major, transpose::none, diag::non_unit, 1);
      const stored unit = store(t, n, true, layout::col_major, transpose::none, diag::unit, 1);
      std::string where;
      BOOST_TEST(same(solve_strided(f, unit, b, 1), solve_strided(f, ones, b, 1), &where),
                 name << " n=" << n << ": " << where);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_kernel_set_same_bits) {
  rng_t r(13);
  for (std::int64_t n : {1, 7, 8, 23, 64, 129}) {
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, n > 1 ? 1e20 : 1.0, 5);
    for (const auto& fn : {std::pair{compensated, "compensated"}, std::pair{double_double, "dd"}})
      for (layout lay : {layout::row_major, layout::col_major})
        for (transpose tt : {transpose::none, transpose::trans}) {
          const stored s = store(p.t, n, true, lay, tt, diag::non_unit, 2);
          const auto& f = fn.first;
          const auto* name = fn.second;
          std::vector<double> first;
          for_each_kernel_set([&](exala::kernel_set k) {
            const std::vector<double> x = solve_strided(f, s, p.b, 1);
            if (first.empty()) {
              first = x;
              return;
            }
            std::string where;
            BOOST_TEST(same(x, first, &where), name << " " << describe(s) << " kernels="
                                                    << exala::to_string(k) << ": " << where);
          });
        }
  }
}

BOOST_AUTO_TEST_CASE(compensated_differs_from_double_and_is_deterministic) {
  // A guard that the compensation is really applied: on a system with
  // cond ~ 1e20 the plain substitution is off by far more than 1e-10 while
  // the compensated one is within 1e-10 (and repeated runs agree).
  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(40, 1e20, 9);
  const std::vector<double> plain = naive_lower(p.t, 40, p.b);
  std::vector<double> x1 = p.b, x2 = p.b;
  exala::trsv_compensated(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 40,
                          p.t.data(), 40, x1.data(), 1);
  exala::trsv_compensated(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 40,
                          p.t.data(), 40, x2.data(), 1);
  BOOST_TEST(same(x1, x2));
  BOOST_TEST(rel_error(plain, x1) > 1e-6);
}

// ====================================================================== accuracy

#ifdef EXALA_TEST_HAVE_MPFR

namespace {

// Compensated and double-double forward errors on generated systems against
// c (u + n cond u^2), cond measured in MPFR at the exact solution.
void check_accuracy(std::int64_t n, double cond, std::uint64_t seed) {
  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, cond, seed);
  const std::vector<double> xm = mpfr_solution(p.t, n, p.b);
  const double k = mpfr_skeel(p.t, n, xm);
  const double bound = 2.0 * (u + static_cast<double>(n) * k * u * u);
  for (const auto& [f, name] : {std::pair{compensated, "compensated"}, std::pair{double_double, "dd"}})
    for (layout lay : {layout::row_major, layout::col_major}) {
      const stored s = store(p.t, n, true, lay, transpose::none, diag::non_unit, 0);
      const double err = rel_error(solve_strided(f, s, p.b, 1), xm);
      BOOST_TEST(err <= bound, name << " n=" << n << " cond=" << k << " seed=" << seed << " "
                                    << describe(s) << ": error " << err << " > bound " << bound);
    }
  // the plain substitution is far worse where n cond u^2 << cond u (so the
  // systems do exercise the correction)
  if (k > 1e8) {
    const double plain = rel_error(naive_lower(p.t, n, p.b), xm);
    BOOST_TEST(plain > 100 * bound, "plain substitution error " << plain << " cond " << k);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(compensated_and_dd_error_bound_on_generated_systems) {
  for (double cond : {1e5, 1e10, 1e15, 1e20, 1e25, 1e30})
    for (std::uint64_t seed : {1u, 2u}) check_accuracy(40, cond, seed);
  for (double cond : {1e12, 1e28}) check_accuracy(200, cond, 3);
}

BOOST_AUTO_TEST_CASE(compensated_and_dd_error_bound_sweep, *utf::label("long")) {
  for (std::int64_t n : {40, 100, 200})
    for (double cond = 1e5; cond <= 1e30; cond *= 10)
      for (std::uint64_t seed : {4u, 5u, 6u}) check_accuracy(n, cond, seed);
}

BOOST_AUTO_TEST_CASE(generator_reaches_requested_condition) {
  // Documented: within a factor 1.1 of the request; tested with slack 1.25.
  for (double cond : {1e5, 1e10, 1e15, 1e20, 1e25, 1e30, 1e35, 1e40}) {
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(40, cond, 7);
    const double k = mpfr_skeel(p.t, 40, mpfr_solution(p.t, 40, p.b));
    BOOST_TEST((k >= cond / 1.25 && k <= cond * 1.25), "n=40 requested " << cond << " measured " << k);
  }
  for (double cond : {1e5, 1e40}) {
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(200, cond, 7);
    const double k = mpfr_skeel(p.t, 200, mpfr_solution(p.t, 200, p.b));
    BOOST_TEST((k >= cond / 1.25 && k <= cond * 1.25), "n=200 requested " << cond << " measured " << k);
  }
}

BOOST_AUTO_TEST_CASE(generator_condition_sweep, *utf::label("long")) {
  for (std::int64_t n : {10, 40, 200})
    for (double cond = 1e5; cond <= 1e40; cond *= 10)
      for (std::uint64_t seed : {1u, 2u, 3u}) {
        const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, cond, seed);
        const double k = mpfr_skeel(p.t, n, mpfr_solution(p.t, n, p.b));
        BOOST_TEST((k >= cond / 1.25 && k <= cond * 1.25),
                   "n=" << n << " seed=" << seed << " requested " << cond << " measured " << k);
      }
}

BOOST_AUTO_TEST_CASE(mpfr_solution_matches_test_oracle_in_every_variant) {
  for (std::int64_t n : {1, 13, 40}) {
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, n > 1 ? 1e30 : 1.0, 2);
    const std::vector<double> xm = mpfr_solution(p.t, n, p.b);
    const matrix tr = reversed(p.t, n);
    for (layout lay : {layout::row_major, layout::col_major})
      for (transpose tt : {transpose::none, transpose::trans}) {
        const stored s = store(p.t, n, true, lay, tt, diag::non_unit, 1);
        std::string where;
        BOOST_TEST(same(exala::trsv_mpfr_solution(s.lay, s.ul, s.trans, s.dg, n, s.a.data(), s.lda,
                                                  p.b.data(), 1),
                        xm, &where),
                   describe(s) << ": " << where);
        const stored s2 = store(tr, n, false, lay, tt, diag::non_unit, 1);
        const std::vector<double> br = reversed(p.b);
        // stride -1 over the reversed b is b itself in logical order reversed twice
        BOOST_TEST(same(reversed(exala::trsv_mpfr_solution(s2.lay, s2.ul, s2.trans, s2.dg, n,
                                                           s2.a.data(), s2.lda, br.data(), 1)),
                        xm, &where),
                   "reversed " << describe(s2) << ": " << where);
        BOOST_TEST(same(exala::trsv_mpfr_solution(s2.lay, s2.ul, s2.trans, s2.dg, n, s2.a.data(),
                                                  s2.lda, p.b.data(), -1),
                        reversed(xm), &where),
                   "reversed, incb = -1 " << describe(s2) << ": " << where);
      }
    // a fixed precision large enough agrees with the adaptive one
    BOOST_TEST(same(exala::trsv_mpfr_solution(layout::row_major, uplo::lower, transpose::none,
                                              diag::non_unit, n, p.t.data(), n, p.b.data(), 1, 2048),
                    xm));
  }
}

BOOST_AUTO_TEST_CASE(mpfr_solution_low_precision_is_inexact) {
  // A guard that `precision` is honoured: 60 bits cannot solve cond 1e30.
  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(40, 1e30, 2);
  const std::vector<double> xm = mpfr_solution(p.t, 40, p.b);
  const std::vector<double> x60 = exala::trsv_mpfr_solution(
      layout::row_major, uplo::lower, transpose::none, diag::non_unit, 40, p.t.data(), 40, p.b.data(), 1, 60);
  BOOST_TEST(rel_error(x60, xm) > 1e-6);
}

BOOST_AUTO_TEST_CASE(mpfr_solution_subnormal_results) {
  // x = b / d in the subnormal range, rounded once: 2^-1073 / 3 = 0.667 * 2^-1074
  // rounds to 2^-1074; 2^-1022 * (1 - 2^-60) / 1 stays exact in MPFR and
  // rounds to 2^-1022 (a carry out of the subnormal range).
  double t = 3.0, b = pow2(-1073);
  BOOST_TEST(bits(exala::trsv_mpfr_solution(layout::row_major, uplo::lower, transpose::none,
                                            diag::non_unit, 1, &t, 1, &b, 1)[0]) == bits(dmin_sub));
  t = 3.0;
  b = 5 * pow2(-1074);  // 5/3 * 2^-1074 = 1.667 -> 2 * 2^-1074
  BOOST_TEST(bits(exala::trsv_mpfr_solution(layout::row_major, uplo::lower, transpose::none,
                                            diag::non_unit, 1, &t, 1, &b, 1)[0]) == bits(2 * dmin_sub));
  // 2x2: x0 = 1, x1 = (2^-1022 - 2^-1100 * 1) / 1 -> 2^-1022 - tiny, rounds to 2^-1022
  const double a2[4] = {1.0, 0.0, pow2(-1000), 1.0};  // t10 = 2^-1000
  const double b2[2] = {pow2(-100), pow2(-1022)};               // x0 = 2^-100
  const std::vector<double> x = exala::trsv_mpfr_solution(layout::row_major, uplo::lower,
                                                          transpose::none, diag::non_unit, 2, a2, 2, b2, 1);
  BOOST_TEST(bits(x[0]) == bits(pow2(-100)));
  BOOST_TEST(bits(x[1]) == bits(pow2(-1022)));  // 2^-1022 - 2^-1100 rounds up to 2^-1022
}

BOOST_AUTO_TEST_CASE(refined_within_one_ulp_while_cond_u_below_one_over_n) {
  for (std::int64_t n : {40, 200})
    for (double cond : {1e5, 1e8, 1e11}) {
      BOOST_TEST_REQUIRE(cond * u < 1.0 / static_cast<double>(n));
      const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, cond, 8);
      const std::vector<double> xm = mpfr_solution(p.t, n, p.b);
      for (layout lay : {layout::row_major, layout::col_major}) {
        const stored s = store(p.t, n, true, lay, transpose::none, diag::non_unit, 0);
        std::vector<double> x = p.b;
        const exala::refinement_report rep = exala::trsv_exact_refined(
            s.lay, s.ul, s.trans, s.dg, n, s.a.data(), s.lda, x.data(), 1);
        BOOST_TEST(rep.converged, describe(s) << " cond " << cond);
        std::uint64_t worst = 0;
        for (std::int64_t i = 0; i < n; ++i)
          worst = std::max(worst, ulp_distance(x[static_cast<std::size_t>(i)], xm[static_cast<std::size_t>(i)]));
        BOOST_TEST(worst <= 1u, describe(s) << " cond " << cond << ": " << worst << " ulps");
      }
      // plain exact trsv alone is not that accurate at these conditions (a
      // guard that the refinement does something)
      if (cond >= 1e8) {
        std::vector<double> x0 = p.b;
        exala::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, n, p.t.data(), n,
                    x0.data(), 1);
        std::uint64_t worst = 0;
        for (std::int64_t i = 0; i < n; ++i)
          worst = std::max(worst, ulp_distance(x0[static_cast<std::size_t>(i)], xm[static_cast<std::size_t>(i)]));
        BOOST_TEST(worst > 1u, "exala::trsv alone already within 1 ulp at cond " << cond);
      }
    }
}

BOOST_AUTO_TEST_CASE(skeel_condition_against_mpfr) {
  for (double cond : {1e5, 1e12, 1e20, 1e25}) {
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(40, cond, 4);
    const std::vector<double> xm = mpfr_solution(p.t, 40, p.b);
    const double k = mpfr_skeel(p.t, 40, xm);
    const matrix tr = reversed(p.t, 40);
    for (layout lay : {layout::row_major, layout::col_major})
      for (transpose tt : {transpose::none, transpose::trans}) {
        const stored s = store(p.t, 40, true, lay, tt, diag::non_unit, 2);
        const double c = exala::skeel_condition(s.lay, s.ul, s.trans, s.dg, 40, s.a.data(), s.lda,
                                                xm.data(), 1);
        BOOST_TEST(std::fabs(c - k) <= 1e-6 * k, describe(s) << ": " << c << " vs MPFR " << k);
        const stored s2 = store(tr, 40, false, lay, tt, diag::non_unit, 0);
        const std::vector<double> xr = reversed(xm);
        const double c2 = exala::skeel_condition(s2.lay, s2.ul, s2.trans, s2.dg, 40, s2.a.data(),
                                                 s2.lda, xr.data(), 1);
        BOOST_TEST(std::fabs(c2 - k) <= 1e-6 * k, "reversed " << describe(s2) << ": " << c2 << " vs " << k);
      }
  }
}

#else  // no MPFR

BOOST_AUTO_TEST_CASE(mpfr_solution_not_compiled_in) {
  double t = 1.0, b = 1.0;
  BOOST_CHECK_THROW(exala::trsv_mpfr_solution(layout::row_major, uplo::lower, transpose::none,
                                              diag::non_unit, 1, &t, 1, &b, 1),
                    exala::not_compiled_in);
}

#endif

// ====================================================================== exact solutions

BOOST_AUTO_TEST_CASE(representable_solutions_recovered_exactly) {
  // VecSum systems: x = (1, ..., 1) exactly, rows cancelling over 80 binades,
  // so the plain substitution is inexact; exala::trsv and the refined solver
  // must return x exactly (the refinement then stops at once: residual 0).
  rng_t r(21);
  for (std::int64_t n : {2, 9, 30, 100}) {
    matrix t;
    std::vector<double> b;
    vecsum_system(n, r, t, b);
    const std::vector<double> ones(static_cast<std::size_t>(n), 1.0);
    if (n >= 30) BOOST_TEST(!same(naive_lower(t, n, b), ones), "n=" << n << ": plain substitution exact");
    for (layout lay : {layout::row_major, layout::col_major})
      for (transpose tt : {transpose::none, transpose::trans}) {
        const stored s = store(t, n, true, lay, tt, diag::non_unit, 1);
        std::vector<double> x = b;
        exala::trsv(s.lay, s.ul, s.trans, s.dg, n, s.a.data(), s.lda, x.data(), 1);
        std::string where;
        BOOST_TEST(same(x, ones, &where), "trsv " << describe(s) << ": " << where);
        x = b;
        const exala::refinement_report rep =
            exala::trsv_exact_refined(s.lay, s.ul, s.trans, s.dg, n, s.a.data(), s.lda, x.data(), 1);
        BOOST_TEST(same(x, ones, &where), "refined " << describe(s) << ": " << where);
        BOOST_TEST(rep.steps == 0);
        BOOST_TEST(rep.converged);
      }
  }
  // small integers and powers of two: b = T x exact by construction, x
  // with fractional parts 1/4, 1/8 (diagonal powers of two)
  for (std::int64_t n : {1, 5, 20}) {
    matrix t(static_cast<std::size_t>(n * n), 0.0);
    std::vector<double> x(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
      x[static_cast<std::size_t>(i)] = static_cast<double>(static_cast<std::int64_t>(r() % 41) - 20) / 8.0;
      for (std::int64_t j = 0; j < i; ++j) t[i * n + j] = static_cast<double>(static_cast<std::int64_t>(r() % 7) - 3);
      t[i * n + i] = std::ldexp(r() & 1 ? -1.0 : 1.0, static_cast<int>(r() % 5) - 2);
      for (std::int64_t j = 0; j <= i; ++j) b[static_cast<std::size_t>(i)] += t[i * n + j] * x[static_cast<std::size_t>(j)];
    }
    // (values compared with ==: an exact zero may come out as -0, IEEE's sign
    // of (b_i - sum) / t_ii)
    for (const auto& [f, name] : {std::pair{compensated, "compensated"}, std::pair{double_double, "dd"}}) {
      const stored s = store(t, n, true, layout::row_major, transpose::none, diag::non_unit, 0);
      BOOST_TEST(solve_strided(f, s, b, 1) == x, name << " n=" << n);
    }
    std::vector<double> y = b;
    const exala::refinement_report rep = exala::trsv_exact_refined(
        layout::col_major, uplo::upper, transpose::trans, diag::non_unit, n, t.data(), n, y.data(), 1);
    BOOST_TEST(y == x);
    BOOST_TEST(rep.converged);
  }
}

BOOST_AUTO_TEST_CASE(refined_same_bits_on_every_backend_threads_block) {
  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(70, 1e9, 6);
  restore_kernel_set restore;
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose tt : {transpose::none, transpose::trans}) {
      const stored s = store(p.t, 70, true, lay, tt, diag::non_unit, 3);
      std::vector<double> ref = p.b;
      exala::exec rex;
      rex.backend = exala::backend::reference;
      const exala::refinement_report rrep = exala::trsv_exact_refined(
          s.lay, s.ul, s.trans, s.dg, 70, s.a.data(), s.lda, ref.data(), 1, 8, rex);
      BOOST_TEST(rrep.steps >= 1, "no refinement step taken: the test would not see the residual");
      for (exala::kernel_set k : kernel_sets()) {
        exala::force_kernel_set(k);
        for (const config& c : non_reference_configs())
          for (long long block : {0LL, 1LL, 16LL, 33LL}) {
            exala::exec ex;
            ex.backend = c.b;
            ex.threads = c.threads;
            ex.block = block;
            std::vector<double> x = p.b;
            const exala::refinement_report rep = exala::trsv_exact_refined(
                s.lay, s.ul, s.trans, s.dg, 70, s.a.data(), s.lda, x.data(), 1, 8, ex);
            std::string where;
            BOOST_TEST(same(x, ref, &where),
                       describe(s) << " " << exala_test::describe(c, k) << " block=" << block << ": " << where);
            BOOST_TEST(rep.steps == rrep.steps);
            BOOST_TEST(rep.converged == rrep.converged);
          }
      }
    }
}

BOOST_AUTO_TEST_CASE(refined_max_steps_and_strides) {
  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(30, 1e10, 2);
  // max_steps = 0: exala::trsv only
  std::vector<double> x0 = p.b, xt = p.b;
  const exala::refinement_report r0 = exala::trsv_exact_refined(
      layout::row_major, uplo::lower, transpose::none, diag::non_unit, 30, p.t.data(), 30, x0.data(), 1, 0);
  exala::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 30, p.t.data(), 30, xt.data(), 1);
  BOOST_TEST(same(x0, xt));
  BOOST_TEST(r0.steps == 0);
  BOOST_TEST(!r0.converged);
  // strides: same bits as contiguous, gaps untouched
  const solver_fn refined = [](layout l, uplo ul, transpose t, diag d, std::int64_t n, const double* a,
                               std::int64_t lda, double* x, std::int64_t inc) {
    exala::trsv_exact_refined(l, ul, t, d, n, a, lda, x, inc);
  };
  const stored s = store(p.t, 30, true, layout::col_major, transpose::none, diag::non_unit, 2);
  const std::vector<double> ref = solve_strided(refined, s, p.b, 1);
  for (std::int64_t inc : {2, -1, -3}) BOOST_TEST(same(solve_strided(refined, s, p.b, inc), ref), "incx=" << inc);
  // unit diagonal: equals stored ones
  matrix t1 = p.t;
  for (int i = 0; i < 30; ++i) t1[static_cast<std::size_t>(i * 30 + i)] = 1.0;
  const stored ones = store(t1, 30, true, layout::row_major, transpose::trans, diag::non_unit, 0);
  const stored unit = store(t1, 30, true, layout::row_major, transpose::trans, diag::unit, 0);
  BOOST_TEST(same(solve_strided(refined, unit, p.b, 1), solve_strided(refined, ones, p.b, 1)));
}

// ====================================================================== condition

BOOST_AUTO_TEST_CASE(skeel_condition_small_cases) {
  // identity and diagonal matrices: cond = 1 exactly
  const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double x[3] = {1.0, -2.0, 0.5};
  BOOST_TEST(exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 3, id, 3, x, 1) == 1.0);
  const double dg3[9] = {3, 0, 0, 0, -0.25, 0, 0, 0, 7};
  BOOST_TEST(exala::skeel_condition(layout::col_major, uplo::upper, transpose::trans, diag::non_unit, 3, dg3, 3, x, 1) == 1.0);
  // [[1, 0], [-g, 1]], x = (1, 1): |T^-1| |T| |x| = (1, 2g + 1) -> cond = 2g + 1
  const double t2[4] = {1.0, 0.0, -10.0, 1.0};
  const double x2[2] = {1.0, 1.0};
  BOOST_TEST(exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, t2, 2, x2, 1) == 21.0);
  // the same with a unit diagonal not stored (NaN there) and incx = -1
  const double t2u[4] = {qnan, 0.0, -10.0, qnan};
  BOOST_TEST(exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::unit, 2, t2u, 2, x2, -1) == 21.0);
  // x = 0: 0/0
  const double z2[2] = {0.0, 0.0};
  BOOST_TEST(std::isnan(exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, t2, 2, z2, 1)));
}

// Skeel's condition number is invariant under scaling op(A) and x by powers
// of two (exact scalings): cond(2^p D T, 2^q x) = cond(T, x). Computed
// unscaled, y = |T| |x| overflowed for data near 2^+-1000 (inf or NaN for a
// perfectly conditioned finite problem), or underflowed to 0 (a condition
// below 1, which Skeel's is never). Issue 15: norms that can overflow are
// computed scaled.
BOOST_AUTO_TEST_CASE(skeel_condition_scaled_data) {
  const std::int64_t n = 12;
  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, 1e6, 3);
  const std::vector<double>& x = p.b;  // any vector without zeros
  int compared = 0;
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose tt : {transpose::none, transpose::trans})
      for (diag dg : {diag::non_unit, diag::unit}) {
        const stored s = store(p.t, n, true, lay, tt, dg, 1);
        const double base = exala::skeel_condition(s.lay, s.ul, s.trans, s.dg, n, s.a.data(), s.lda, x.data(), 1);
        BOOST_TEST_CONTEXT(describe(s) << " cond " << base) {
          BOOST_TEST((std::isfinite(base) && base >= 1.0));
          // rows of op(A) scaled by 2^pa (every other one by 2^(pa - 30)); a
          // unit diagonal is not scaled, so then only x is
          for (const int pa : {-1000, -600, 0, 600, 1000}) {
            if (dg == diag::unit && pa != 0) continue;
            // (scalings that are not exact, into the subnormals or beyond
            // DBL_MAX, would change the problem: skipped)
            bool exact = true;
            auto scaled = [&exact](double v, int e) {
              const double r = std::ldexp(v, e);
              exact = exact && std::ldexp(r, -e) == v;
              return r;
            };
            matrix m = p.t;
            if (dg == diag::non_unit)
              for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j <= i; ++j) m[i * n + j] = scaled(m[i * n + j], pa - (i % 2 ? 30 : 0));
            const stored t = store(m, n, true, lay, tt, dg, 1);
            for (const int px : {-1000, -900, 0, 900, 1015}) {
              const bool rows_exact = exact;
              std::vector<double> xs(x.size());
              for (std::size_t i = 0; i < x.size(); ++i) xs[i] = scaled(x[i], px);
              if (exact) {
                ++compared;
                const double c = exala::skeel_condition(t.lay, t.ul, t.trans, t.dg, n, t.a.data(), t.lda,
                                                        xs.data(), 1);
                BOOST_TEST(same_bits(c, base), "rows 2^" << pa << ", x 2^" << px << ": " << c);
              }
              exact = rows_exact;
            }
          }
        }
      }
  BOOST_TEST(compared >= 40);  // most scalings are exact
  // The shape: [[1, 0], [1, 4]] with x = (2^1023, -2^1022): cond is
  // modest and finite although |T| |x| overflows.
  const double t2[4] = {1.0, 0.0, 1.0, 4.0};
  const double x2[2] = {0x1p1023, -0x1p1022};
  const double c2 = exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, t2, 2, x2, 1);
  const double x2s[2] = {1.0, -0.5};  // the same direction
  BOOST_TEST(same_bits(c2, exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, t2, 2, x2s, 1)));
  BOOST_TEST((std::isfinite(c2) && c2 >= 1.0));
  // and with entries near DBL_MAX and near the smallest normal
  const double big[4] = {0x1p1023, 0.0, 0x1p1023, 0x1.8p1023};
  const double tiny[4] = {0x1p-1022, 0.0, 0x1p-1022, 0x1.8p-1022};
  const double one[4] = {1.0, 0.0, 1.0, 1.5};
  const double xo[2] = {3.0, -1.0};
  const double c1 = exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, one, 2, xo, 1);
  BOOST_TEST(same_bits(exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, big, 2, xo, 1), c1));
  BOOST_TEST(same_bits(exala::skeel_condition(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, tiny, 2, xo, 1), c1));
}

// ====================================================================== generator

BOOST_AUTO_TEST_CASE(generator_deterministic_exact_lower) {
  const exala::trsv_problem p1 = exala::generate_ill_conditioned_trsv(50, 1e30, 42);
  const exala::trsv_problem p2 = exala::generate_ill_conditioned_trsv(50, 1e30, 42);
  const exala::trsv_problem p3 = exala::generate_ill_conditioned_trsv(50, 1e30, 43);
  BOOST_TEST(p1.n == 50);
  BOOST_TEST(p1.t.size() == 2500u);
  BOOST_TEST(p1.b.size() == 50u);
  BOOST_TEST(same(p1.t, p2.t));
  BOOST_TEST(same(p1.b, p2.b));
  BOOST_TEST(!same(p1.t, p3.t));
  for (std::int64_t i = 0; i < 50; ++i)
    for (std::int64_t j = 0; j < 50; ++j) {
      const double v = p1.t[static_cast<std::size_t>(i * 50 + j)];
      if (j > i) BOOST_TEST_REQUIRE(bits(v) == bits(0.0));
      if (j == i) BOOST_TEST_REQUIRE(v != 0.0);
      BOOST_TEST_REQUIRE(std::isfinite(v));
    }
  for (double v : p1.b) BOOST_TEST_REQUIRE(std::isfinite(v));
  // cond = 1: a diagonal system
  const exala::trsv_problem d = exala::generate_ill_conditioned_trsv(5, 1.0, 1);
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < i; ++j) BOOST_TEST(d.t[static_cast<std::size_t>(i * 5 + j)] == 0.0);
  const exala::trsv_problem one = exala::generate_ill_conditioned_trsv(1, 3.0, 1);
  BOOST_TEST(one.t.size() == 1u);
}

// ====================================================================== special values

BOOST_AUTO_TEST_CASE(special_values_as_the_plain_substitution) {
  // inf / NaN in b or A: the compensated and double-double results are the
  // classic substitution's where that one is not finite, NaN stays NaN.
  const double t[9] = {2.0, 0, 0, 1.0, 1.0, 0, -1.0, 3.0, 4.0};
  for (const auto& [f, name] : {std::pair{compensated, "compensated"}, std::pair{double_double, "dd"}}) {
    for (const std::vector<double>& b : {std::vector<double>{inf, 1.0, 1.0}, std::vector<double>{1.0, qnan, 1.0},
                                         std::vector<double>{1.0, -inf, 2.0}}) {
      std::vector<double> x = b;
      f(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 3, t, 3, x.data(), 1);
      const std::vector<double> plain = naive_lower(matrix(t, t + 9), 3, b);
      for (int i = 0; i < 3; ++i)
        if (!std::isfinite(plain[static_cast<std::size_t>(i)]))
          BOOST_TEST(same_bits(x[static_cast<std::size_t>(i)], plain[static_cast<std::size_t>(i)]),
                     name << " element " << i << ": " << hex(x[static_cast<std::size_t>(i)]) << " vs plain "
                          << hex(plain[static_cast<std::size_t>(i)]));
    }
  }
}

// ====================================================================== errors

namespace {

template <class F>
void expect_invalid(F f, const std::string& arg, const std::string& what) {
  try {
    f();
    BOOST_ERROR(what << ": no exception");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == arg, what << ": names '" << e.argument() << "', expected '" << arg << "'");
    BOOST_TEST(std::string(e.what()).find(arg) != std::string::npos, what << ": " << e.what());
  }
}

template <class F>
void expect_singular(F f, long long row, const std::string& what) {
  try {
    f();
    BOOST_ERROR(what << ": no exception");
  } catch (const exala::singular_matrix& e) {
    BOOST_TEST(e.row() == row, what << ": row " << e.row() << ", expected " << row);
    BOOST_TEST(std::string(e.what()).find("row " + std::to_string(row)) != std::string::npos, e.what());
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(argument_errors) {
  const double a[4] = {1.0, 0.0, 1.0, 1.0};
  double x[2] = {1.0, 2.0};
  using L = layout;
  const auto RM = L::row_major;
  const auto LO = uplo::lower;
  const auto N = transpose::none;
  const auto NU = diag::non_unit;
  const std::vector<std::pair<solver_fn, std::string>> solvers = {
      {compensated, "trsv_compensated"},
      {double_double, "trsv_double_double"},
      {[](L l, uplo ul, transpose t, diag d, std::int64_t n, const double* A, std::int64_t lda, double* X,
          std::int64_t inc) { exala::trsv_exact_refined(l, ul, t, d, n, A, lda, X, inc); },
       "trsv_exact_refined"}};
  for (const auto& solver : solvers) {
    const solver_fn& f = solver.first;
    const std::string& name = solver.second;
    expect_invalid([&] { f(RM, LO, N, NU, -1, a, 2, x, 1); }, "n", name + " n=-1");
    expect_invalid([&] { f(RM, LO, N, NU, 2, a, 1, x, 1); }, "lda", name + " lda=1");
    expect_invalid([&] { f(RM, LO, N, NU, 0, a, 0, x, 1); }, "lda", name + " lda=0");
    expect_invalid([&] { f(RM, LO, N, NU, 2, nullptr, 2, x, 1); }, "a", name + " a=null");
    expect_invalid([&] { f(RM, LO, N, NU, 2, a, 2, nullptr, 1); }, "x", name + " x=null");
    expect_invalid([&] { f(RM, LO, N, NU, 2, a, 2, x, 0); }, "incx", name + " incx=0");
    expect_invalid([&] { f(RM, static_cast<uplo>(7), N, NU, 2, a, 2, x, 1); }, "uplo", name + " uplo=7");
    expect_invalid([&] { f(RM, LO, static_cast<transpose>(3), NU, 2, a, 2, x, 1); }, "trans", name + " trans=3");
    expect_invalid([&] { f(RM, LO, N, static_cast<diag>(2), 2, a, 2, x, 1); }, "diag", name + " diag=2");
    expect_invalid([&] { f(static_cast<L>(5), LO, N, NU, 2, a, 2, x, 1); }, "layout", name + " layout=5");
    // fine: n = 0 with null pointers, incx = 0 with n = 1
    BOOST_CHECK_NO_THROW(f(RM, LO, N, NU, 0, nullptr, 1, nullptr, 1));
    double one = 3.0;
    BOOST_CHECK_NO_THROW(f(RM, LO, N, NU, 1, a, 1, &one, 0));
    BOOST_TEST(one == 3.0);
    // x untouched when an argument error is reported
    BOOST_TEST(x[0] == 1.0);
    BOOST_TEST(x[1] == 2.0);
  }
  expect_invalid([&] { exala::trsv_exact_refined(RM, LO, N, NU, 2, a, 2, x, 1, -1); }, "max_steps", "max_steps=-1");
  expect_invalid([&] { exala::trsv_exact_refined(RM, LO, N, NU, 2, a, 2, x, 1, 101); }, "max_steps", "max_steps=101");
  exala::exec up;
  up.mode = exala::rounding::upward;
  expect_invalid([&] { exala::trsv_exact_refined(RM, LO, N, NU, 2, a, 2, x, 1, 8, up); }, "mode", "refined mode");
  exala::exec bad_threads;
  bad_threads.backend = exala::backend::omp;
  bad_threads.threads = -2;
  BOOST_CHECK_THROW(exala::trsv_exact_refined(RM, LO, N, NU, 2, a, 2, x, 1, 8, bad_threads), exala::invalid_argument);
  // skeel_condition and the MPFR solution (read-only vectors: increment 0 allowed)
  expect_invalid([&] { exala::skeel_condition(RM, LO, N, NU, -3, a, 2, x, 1); }, "n", "skeel n");
  expect_invalid([&] { exala::skeel_condition(RM, LO, N, NU, 2, a, 2, nullptr, 1); }, "x", "skeel x");
  BOOST_CHECK_NO_THROW(exala::skeel_condition(RM, LO, N, NU, 2, a, 2, x, 0));
  expect_invalid([&] { exala::trsv_mpfr_solution(RM, LO, N, NU, 2, a, 1, x, 1); }, "lda", "mpfr lda");
  expect_invalid([&] { exala::trsv_mpfr_solution(RM, LO, N, NU, 2, a, 2, nullptr, 1); }, "b", "mpfr b");
  expect_invalid([&] { exala::trsv_mpfr_solution(RM, LO, N, NU, 2, a, 2, x, 1, -1); }, "precision", "precision -1");
  expect_invalid([&] { exala::trsv_mpfr_solution(RM, LO, N, NU, 2, a, 2, x, 1, 1); }, "precision", "precision 1");
  // the generator
  expect_invalid([] { exala::generate_ill_conditioned_trsv(0, 10.0); }, "n", "gen n=0");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(-5, 10.0); }, "n", "gen n=-5");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(10, 0.5); }, "cond", "gen cond=0.5");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(10, qnan); }, "cond", "gen cond=NaN");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(10, inf); }, "cond", "gen cond=inf");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(10, 1e61); }, "cond", "gen cond=1e61");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(1, 100.0); }, "cond", "gen n=1 cond=100");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(2, 1e40); }, "cond", "gen n=2 cond=1e40");
  // Issue 15, row 10: addresses that would pass 2^60 - 1 elements, refused
  // naming the argument before anything is read (T of the generator would
  // have n * n = 2^64 entries, which wrapped to 0).
  const std::int64_t p62 = std::int64_t{1} << 62, p32 = std::int64_t{1} << 32;
  for (const auto& solver : solvers) {
    const solver_fn& f = solver.first;
    const std::string& name = solver.second;
    expect_invalid([&] { f(RM, LO, N, NU, 2, a, p62, x, 1); }, "lda", name + " lda=2^62");
    expect_invalid([&] { f(L::col_major, LO, N, NU, 2, a, INT64_MAX, x, 1); }, "lda", name + " lda=max");
    expect_invalid([&] { f(RM, LO, N, NU, 2, a, 2, x, INT64_MIN); }, "incx", name + " incx=min");
    expect_invalid([&] { f(RM, LO, N, NU, 2, a, 2, x, p62); }, "incx", name + " incx=2^62");
    expect_invalid([&] { f(RM, LO, N, NU, p32, a, p32, x, 1); }, "a", name + " n=lda=2^32");
    double one = 3.0;  // one element: any increment
    BOOST_CHECK_NO_THROW(f(RM, LO, N, NU, 1, a, 1, &one, INT64_MIN));
    BOOST_TEST(one == 3.0);
    BOOST_TEST(x[0] == 1.0);
    BOOST_TEST(x[1] == 2.0);
  }
  expect_invalid([&] { exala::skeel_condition(RM, LO, N, NU, 2, a, p62, x, 1); }, "lda", "skeel lda");
  expect_invalid([&] { exala::skeel_condition(RM, LO, N, NU, 2, a, 2, x, INT64_MIN); }, "incx", "skeel incx");
  expect_invalid([&] { exala::trsv_mpfr_solution(RM, LO, N, NU, 2, a, p62, x, 1); }, "lda", "mpfr lda 2^62");
  expect_invalid([&] { exala::trsv_mpfr_solution(RM, LO, N, NU, 2, a, 2, x, -p62); }, "incb", "mpfr incb");
  expect_invalid([&] { exala::trsv_mpfr_solution(RM, LO, N, NU, p32, a, p32, x, 1); }, "a", "mpfr n=2^32");
  expect_invalid([] { exala::generate_ill_conditioned_trsv(std::int64_t{1} << 32, 10.0); }, "n", "gen n=2^32");
}

BOOST_AUTO_TEST_CASE(singular_diagonal_names_the_row) {
  // zeros on the diagonal at rows 2 and 4 of a 6x6 lower matrix, at rows 1
  // and 3 of its reversal (upper): the smallest row is named, as exala::trsv
  // does, whatever the substitution order.
  rng_t r(31);
  matrix t = random_lower(6, r);
  t[2 * 6 + 2] = 0.0;
  t[4 * 6 + 4] = -0.0;
  const matrix tr = reversed(t, 6);  // zeros at rows 3 and 1
  std::vector<double> b = random_vector(6, r);
  const std::vector<double> b0 = b;
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose tt : {transpose::none, transpose::trans}) {
      const stored s = store(t, 6, true, lay, tt, diag::non_unit, 0);
      const stored s2 = store(tr, 6, false, lay, tt, diag::non_unit, 0);
      for (const stored* sp : {&s, &s2}) {
        const long long row = sp == &s ? 2 : 1;
        const stored& q = *sp;
        const std::string d = describe(q);
        expect_singular([&] { exala::trsv_compensated(q.lay, q.ul, q.trans, q.dg, 6, q.a.data(), q.lda, b.data(), 1); }, row, "compensated " + d);
        expect_singular([&] { exala::trsv_double_double(q.lay, q.ul, q.trans, q.dg, 6, q.a.data(), q.lda, b.data(), 1); }, row, "dd " + d);
        expect_singular([&] { exala::trsv_exact_refined(q.lay, q.ul, q.trans, q.dg, 6, q.a.data(), q.lda, b.data(), 1); }, row, "refined " + d);
        expect_singular([&] { exala::skeel_condition(q.lay, q.ul, q.trans, q.dg, 6, q.a.data(), q.lda, b.data(), 1); }, row, "skeel " + d);
#ifdef EXALA_TEST_HAVE_MPFR
        expect_singular([&] { exala::trsv_mpfr_solution(q.lay, q.ul, q.trans, q.dg, 6, q.a.data(), q.lda, b.data(), 1); }, row, "mpfr " + d);
#endif
        BOOST_TEST(same(b, b0), "x modified before the singular_matrix error: " << d);
        // a unit diagonal does not read the zeros
        std::vector<double> y = b;
        BOOST_CHECK_NO_THROW(exala::trsv_compensated(q.lay, q.ul, q.trans, diag::unit, 6, q.a.data(), q.lda, y.data(), 1));
      }
    }
}

// ====================================================================== long sweeps

BOOST_AUTO_TEST_CASE(variants_large_sizes, *utf::label("long")) {
  rng_t r(41);
  for (std::int64_t n : {100, 127, 128, 129, 300, 513}) {
    const matrix t = random_lower(n, r);
    const std::vector<double> b = random_vector(n, r);
    check_variants(compensated, "compensated", t, n, b, diag::non_unit);
    check_variants(double_double, "double_double", t, n, b, diag::unit);
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, 1e30, static_cast<std::uint64_t>(n));
    check_variants(compensated, "compensated", p.t, n, p.b, diag::non_unit);
    check_variants(double_double, "double_double", p.t, n, p.b, diag::non_unit);
  }
}
