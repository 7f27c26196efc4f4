// tests/test_stripe_kernels.cpp - the stripe LU's CPU engine and in-memory
// kernels (solvers/src/stripe/engine_cpu.cpp, kernels.cpp).
//
// What is checked:
//  * every engine call against plain loops, with componentwise bounds that
//    follow from the standard rounding-error model (Higham, "Accuracy and
//    Stability of Numerical Algorithms", 2nd ed.; see `gamma` below);
//  * reproducibility: every engine call and the whole in-core LU (local and
//    partial pivoting) give the same bits for threads 1, 2, 3, 4, for other
//    leading dimensions and misaligned starts of the same data, and (local
//    pivoting) for stripes held as separate blocks whose col0 advances as
//    columns become final, as out of core;
//  * the local-pivot LU + forward/backward solve and factor_partial against
//    LAPACK's dgesv_ (solution difference within 1e3 n cond u, scaled
//    residual as HPL's), factor_partial's pivots equal to dgetrf_'s;
//  * pivot errors (exact zero, non-finite, threshold) name the right global
//    column; a zero leading entry needs (and gets) pivoting in the substripe;
//  * argument checks (32-bit overflow, leading dimensions).
// The `long` case `bench_in_core_lu` times the in-core factorization against
// dgetrf_ (environment: STRIPE_BENCH_N, STRIPE_BENCH_SS, STRIPE_BENCH_THREADS).
#define BOOST_TEST_MODULE exala_stripe_kernels
#include <boost/test/unit_test.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "stripe/engine.hpp"
#include "stripe/kernels.hpp"

extern "C" {
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
            const int* ldb, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgecon_(const char* norm, const int* n, const double* a, const int* lda, const double* anorm,
             double* rcond, double* work, int* iwork, int* info, std::size_t norm_len);
}

namespace utf = boost::unit_test;
namespace st = exala::detail::stripe;

namespace {

using i64 = std::int64_t;
using vec = std::vector<double>;
constexpr double u = 0x1p-53;

// gamma(k) = k u / (1 - k u): the bound on the relative error of a k-term
// dot product (any summation order) in the standard model (Higham Lemma 3.1).
double gamma(i64 k) { return static_cast<double>(k) * u / (1 - static_cast<double>(k) * u); }

vec random_matrix(i64 rows, i64 cols, i64 ld, std::uint64_t seed, double lo = -0.5,
                  double hi = 0.5) {
  std::mt19937_64 g(seed);
  vec a(static_cast<std::size_t>(std::max<i64>(1, ld * cols)), std::nan(""));
  for (i64 j = 0; j < cols; ++j)
    for (i64 i = 0; i < rows; ++i)
      a[i + j * ld] = lo + (hi - lo) * (static_cast<double>(g() >> 11) * 0x1p-53);
  return a;
}

// Copies rows x cols from (src, lds) to a new buffer with leading dimension
// ldd, starting `off` doubles into it (off = 1 misaligns it); padding NaN.
vec relayout(const double* src, i64 lds, i64 rows, i64 cols, i64 ldd, i64 off) {
  vec d(static_cast<std::size_t>(off + std::max<i64>(1, ldd * cols)), std::nan(""));
  for (i64 j = 0; j < cols; ++j)
    for (i64 i = 0; i < rows; ++i) d[off + i + j * ldd] = src[i + j * lds];
  return d;
}

vec compact(const double* src, i64 lds, i64 rows, i64 cols) {
  return relayout(src, lds, rows, cols, std::max<i64>(1, rows), 0);
}

// First index where the bits differ, or -1.
i64 first_bit_difference(const vec& a, const vec& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return static_cast<i64>(i);
  return -1;
}

#define CHECK_SAME_BITS(a, b, what)                                                         \
  do {                                                                                      \
    const i64 d_ = first_bit_difference((a), (b));                                          \
    BOOST_TEST(d_ == -1, (what) << ": bits differ at " << d_ << std::setprecision(17) << " (" \
                                << (d_ >= 0 && d_ < static_cast<i64>((a).size()) ? (a)[d_]  \
                                                                                 : 0.0)     \
                                << " vs "                                                   \
                                << (d_ >= 0 && d_ < static_cast<i64>((b).size()) ? (b)[d_]  \
                                                                                 : 0.0)     \
                                << ")");                                                    \
  } while (0)

int openblas_threads() {
  auto get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return get != nullptr ? get() : -1;
}

void set_openblas_threads(int t) {
  auto set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (set != nullptr) set(t);
}

// ------------------------------------------------------------ in-core drivers
i64 stripes_of(i64 n, i64 S) { return (n + S - 1) / S; }

st::block stripe_view(double* a, i64 lda, i64 n, i64 S, i64 J) {
  return st::block{a + J * S, std::min(S, n - J * S), 0, n, lda};
}

// The in-core local-pivot LU: for J: factor stripe J; for I > J: apply J to I.
// ipiv[r0 + i] is the stripe-relative pivot of stripe J's row i.
void lu_local(st::dense_engine& e, i64 n, double* a, i64 lda, i64 S, i64 Sp, double threshold,
              i64* ipiv) {
  for (i64 J = 0; J < stripes_of(n, S); ++J) {
    const st::block p = stripe_view(a, lda, n, S, J);
    st::factor_stripe_local(e, p, J * S, Sp, threshold, ipiv + J * S);
    for (i64 I = J + 1; I < stripes_of(n, S); ++I)
      st::apply_pivot_stripe(e, p, J * S, stripe_view(a, lda, n, S, I));
  }
}

// Solves with stripe-wise factors: y (n x nrhs, ldy) := A^-1 y.
// local: ipiv stripe-relative (stripes of S rows); else global (LAPACK).
void solve(st::dense_engine& e, i64 n, double* a, i64 lda, i64 S, const i64* ipiv, bool local,
           i64 nrhs, double* y, i64 ldy) {
  for (i64 r = 0; r < nrhs; ++r)
    for (i64 i = 0; i < n; ++i) {
      const i64 p = local ? (i / S) * S + ipiv[i] : ipiv[i];
      std::swap(y[i + r * ldy], y[p + r * ldy]);
    }
  for (i64 J = 0; J < stripes_of(n, S); ++J)
    st::forward_stripe(e, stripe_view(a, lda, n, S, J), J * S, nrhs, y, ldy);
  for (i64 J = stripes_of(n, S) - 1; J >= 0; --J)
    st::backward_stripe(e, stripe_view(a, lda, n, S, J), J * S, nrhs, y, ldy);
}

// ------------------------------------------------------------ plain loops
// C -= A B.
void naive_gemm_sub(i64 m, i64 n, i64 k, const double* a, i64 lda, const double* b, i64 ldb,
                    double* c, i64 ldc) {
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) {
      double s = c[i + j * ldc];
      for (i64 l = 0; l < k; ++l) s -= a[i + l * lda] * b[l + j * ldb];
      c[i + j * ldc] = s;
    }
}

// |op| bounds: (|C| + |A||B|)_ij.
vec abs_bound_gemm(i64 m, i64 n, i64 k, const double* a, i64 lda, const double* b, i64 ldb,
                   const double* c, i64 ldc) {
  vec r(static_cast<std::size_t>(m * n));
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) {
      long double s = std::fabs(c[i + j * ldc]);
      for (i64 l = 0; l < k; ++l) s += std::fabs(a[i + l * lda]) * std::fabs(b[l + j * ldb]);
      r[i + j * m] = static_cast<double>(s);
    }
  return r;
}

// A well-conditioned triangular factor (k x k, ld k): random off-diagonal
// entries in [-0.5, 0.5] scaled by 1/k, diagonal in [1, 2] with random sign.
vec triangular(i64 k, bool upper, std::uint64_t seed) {
  vec t = random_matrix(k, k, k, seed);
  for (i64 j = 0; j < k; ++j)
    for (i64 i = 0; i < k; ++i) {
      double& v = t[i + j * k];
      if (i == j)
        v = (v < 0 ? -1.0 : 1.0) * (1.5 + std::fabs(v));
      else if ((i < j) == upper)
        v /= static_cast<double>(k);
      else
        v = std::nan("");  // the other triangle is never read
    }
  return t;
}

// ------------------------------------------------------------ LAPACK reference
struct lapack_solution {
  vec x;
  double cond1 = 0;  // 1-norm condition number estimate (dgecon_)
  std::vector<int> ipiv;
};

lapack_solution dgesv(i64 n, const vec& a, const vec& b, i64 nrhs) {
  lapack_solution r;
  vec lu = a;
  r.x = b;
  r.ipiv.resize(static_cast<std::size_t>(n));
  const int in = static_cast<int>(n), inr = static_cast<int>(nrhs);
  int info = 0;
  double anorm = 0;
  for (i64 j = 0; j < n; ++j) {
    double s = 0;
    for (i64 i = 0; i < n; ++i) s += std::fabs(a[i + j * n]);
    anorm = std::max(anorm, s);
  }
  dgesv_(&in, &inr, lu.data(), &in, r.ipiv.data(), r.x.data(), &in, &info);
  BOOST_REQUIRE_EQUAL(info, 0);
  vec work(static_cast<std::size_t>(4 * n));
  std::vector<int> iwork(static_cast<std::size_t>(n));
  double rcond = 0;
  dgecon_("1", &in, lu.data(), &in, &anorm, &rcond, work.data(), iwork.data(), &info, 1);
  r.cond1 = rcond > 0 ? 1 / rcond : std::numeric_limits<double>::infinity();
  return r;
}

double norm_inf(i64 n, const vec& a) {
  double m = 0;
  for (i64 i = 0; i < n; ++i) {
    double s = 0;
    for (i64 j = 0; j < n; ++j) s += std::fabs(a[i + j * n]);
    m = std::max(m, s);
  }
  return m;
}

// HPL's scaled residual ||A x - b||_inf / (u (||A||_inf ||x||_inf + ||b||_inf) n), residual
// accumulated in long double.
double scaled_residual(i64 n, const vec& a, const double* x, const double* b) {
  double r = 0, xn = 0, bn = 0;
  for (i64 i = 0; i < n; ++i) {
    long double s = -static_cast<long double>(b[i]);
    for (i64 j = 0; j < n; ++j) s += static_cast<long double>(a[i + j * n]) * x[j];
    r = std::max(r, static_cast<double>(std::fabs(s)));
    xn = std::max(xn, std::fabs(x[i]));
    bn = std::max(bn, std::fabs(b[i]));
  }
  return r / (u * (norm_inf(n, a) * xn + bn) * static_cast<double>(std::max<i64>(1, n)));
}

double rel_diff_inf(const double* x, const double* y, i64 n) {
  double d = 0, m = 0;
  for (i64 i = 0; i < n; ++i) {
    d = std::max(d, std::fabs(x[i] - y[i]));
    m = std::max(m, std::fabs(y[i]));
  }
  return m > 0 ? d / m : d;
}

}  // namespace

// ============================================================ engine basics
BOOST_AUTO_TEST_CASE(engine_threads_and_blas_threading_restored) {
  const int before = openblas_threads();
  {
    auto e = st::make_cpu_engine(3);
    BOOST_TEST((e->threads() == 3 || e->threads() == 1));  // 1: built without OpenMP
    BOOST_TEST(e->name() == "cpu");
    auto all = st::make_cpu_engine(0);
    BOOST_TEST(all->threads() >= 1);
    if (before > 0) BOOST_TEST(openblas_threads() == 1);
    all.reset();
    if (before > 0) BOOST_TEST(openblas_threads() == 1);  // e still alive
  }
  BOOST_TEST(openblas_threads() == before);
}

// ============================================================ engine vs loops
// gemm_sub: both the engine and the loop compute each entry as a (k+1)-term
// sum of exact products and c, each with relative error <= gamma(k+1) in
// the sum of magnitudes, so they differ by <= 2 gamma(k+1) (|C| + |A||B|)_ij.
BOOST_AUTO_TEST_CASE(engine_gemm_sub_matches_loops) {
  auto e = st::make_cpu_engine(2);
  struct shape {
    i64 m, n, k;
  };
  const shape shapes[] = {{0, 5, 5},    {5, 0, 5},    {5, 5, 0},    {1, 1, 1},    {7, 3, 5},
                          {300, 63, 17}, {300, 64, 17}, {1100, 70, 40}, {130, 600, 129},
                          {64, 257, 300}};
  std::uint64_t seed = 100;
  for (const auto& s : shapes) {
    const i64 lda = s.m + 3, ldb = s.k + 1, ldc = s.m + 2;
    const vec a = random_matrix(s.m, s.k, lda, ++seed), b = random_matrix(s.k, s.n, ldb, ++seed);
    vec c = random_matrix(s.m, s.n, ldc, ++seed), ref = c;
    const vec bound = abs_bound_gemm(s.m, s.n, s.k, a.data(), lda, b.data(), ldb, c.data(), ldc);
    e->gemm_sub(s.m, s.n, s.k, a.data(), lda, b.data(), ldb, c.data(), ldc);
    naive_gemm_sub(s.m, s.n, s.k, a.data(), lda, b.data(), ldb, ref.data(), ldc);
    i64 bad = 0;
    for (i64 j = 0; j < s.n; ++j)
      for (i64 i = 0; i < s.m; ++i)
        if (!(std::fabs(c[i + j * ldc] - ref[i + j * ldc]) <=
              2 * gamma(s.k + 1) * bound[i + j * s.m]))
          ++bad;
    BOOST_TEST(bad == 0, "gemm_sub " << s.m << "x" << s.n << "x" << s.k << ": " << bad
                                     << " entries out of bound");
    // The padding between columns is not touched.
    for (i64 j = 0; j < s.n; ++j)
      for (i64 i = s.m; i < ldc; ++i) BOOST_TEST(std::isnan(c[i + j * ldc]));
  }
}

// Triangular solves: a computed X of T X = B (any blocked or inverse-diagonal
// variant) has the componentwise residual |B - T X| <= gamma(k + 2) |T||X|
// (Higham Thm 8.5, two more roundings for a reciprocal of the diagonal); we
// allow 2 gamma(k + 2) (|T||X| + |B|), the residual being computed in long
// double (error ~ k 2^-64, negligible).
namespace {

// Residual check of X against B for X op = B; `right`: X U = B (X m x k),
// else T X = B (X k x n). unit: T's diagonal taken as 1.
i64 count_trsm_violations(bool right, bool upper, bool unit, i64 rows, i64 cols, const vec& t,
                          i64 k, const vec& x, const vec& b, i64 ld) {
  i64 bad = 0;
  auto tv = [&](i64 i, i64 j) -> double {
    if (i == j) return unit ? 1.0 : t[i + j * k];
    if ((i < j) != upper) return 0.0;
    return t[i + j * k];
  };
  for (i64 j = 0; j < cols; ++j)
    for (i64 i = 0; i < rows; ++i) {
      long double r = b[i + j * ld], mag = std::fabs(b[i + j * ld]);
      for (i64 l = 0; l < k; ++l) {
        const double p = right ? x[i + l * ld] * tv(l, j) : tv(i, l) * x[l + j * ld];
        const long double pe = right ? static_cast<long double>(x[i + l * ld]) * tv(l, j)
                                     : static_cast<long double>(tv(i, l)) * x[l + j * ld];
        r -= pe;
        mag += std::fabs(p);
      }
      if (!(std::fabs(static_cast<double>(r)) <= 2 * gamma(k + 2) * static_cast<double>(mag)))
        ++bad;
    }
  return bad;
}

}  // namespace

BOOST_AUTO_TEST_CASE(engine_trsm_match_loops) {
  auto e = st::make_cpu_engine(2);
  std::uint64_t seed = 200;
  for (i64 k : {0, 1, 5, 64, 129, 300}) {
    for (i64 other : {0, 1, 7, 300, 700}) {
      const vec up = triangular(k, true, ++seed), lo = triangular(k, false, ++seed);
      // right upper: B (other x k)
      {
        const i64 ld = other + 2;
        const vec b = random_matrix(other, k, ld, ++seed);
        vec x = b;
        e->trsm_right_upper(other, k, up.data(), std::max<i64>(1, k), x.data(), ld);
        BOOST_TEST(count_trsm_violations(true, true, false, other, k, up, k, x, b, ld) == 0,
                   "trsm_right_upper m=" << other << " k=" << k);
      }
      // left lower unit and left upper: B (k x other)
      {
        const i64 ld = k + 3;
        const vec b = random_matrix(k, other, ld, ++seed);
        vec xl = b, xu = b;
        e->trsm_left_lower_unit(k, other, lo.data(), std::max<i64>(1, k), xl.data(), ld);
        e->trsm_left_upper(k, other, up.data(), std::max<i64>(1, k), xu.data(), ld);
        BOOST_TEST(count_trsm_violations(false, false, true, k, other, lo, k, xl, b, ld) == 0,
                   "trsm_left_lower_unit k=" << k << " n=" << other);
        BOOST_TEST(count_trsm_violations(false, true, false, k, other, up, k, xu, b, ld) == 0,
                   "trsm_left_upper k=" << k << " n=" << other);
      }
    }
  }
}

// getrf: P A = L U with |P A - L U| <= gamma(n) |L||U| componentwise (Higham
// Thm 9.3, any order of the inner products); pivots as partial pivoting
// asks: |L| <= 1; 0-based ipiv[i] >= i; return value = dgetrf's info.
BOOST_AUTO_TEST_CASE(engine_getrf_and_laswp_match_loops) {
  auto e = st::make_cpu_engine(2);
  std::uint64_t seed = 300;
  struct shape {
    i64 m, n;
  };
  for (const auto& s : {shape{1, 1}, shape{7, 7}, shape{300, 100}, shape{257, 257}}) {
    const i64 lda = s.m + 1;
    const vec a = random_matrix(s.m, s.n, lda, ++seed);
    vec lu = a;
    std::vector<i64> ipiv(static_cast<std::size_t>(s.n), -7);
    BOOST_TEST(e->getrf(s.m, s.n, lu.data(), lda, ipiv.data()) == 0);
    // P A by the recorded interchanges, as laswp (checked below) would do.
    vec pa = a;
    for (i64 i = 0; i < s.n; ++i) {
      BOOST_TEST((ipiv[i] >= i && ipiv[i] < s.m));
      for (i64 j = 0; j < s.n; ++j) std::swap(pa[i + j * lda], pa[ipiv[i] + j * lda]);
    }
    i64 bad = 0;
    for (i64 j = 0; j < s.n; ++j)
      for (i64 i = 0; i < s.m; ++i) {
        long double r = pa[i + j * lda], mag = 0;
        for (i64 l = 0; l <= std::min(i, j); ++l) {
          const double li = (l == i) ? 1.0 : lu[i + l * lda];
          r -= static_cast<long double>(li) * lu[l + j * lda];
          mag += std::fabs(li * lu[l + j * lda]);
        }
        if (!(std::fabs(static_cast<double>(r)) <= gamma(s.n + 1) * static_cast<double>(mag)))
          ++bad;
        if (i > j && !(std::fabs(lu[i + j * lda]) <= 1)) ++bad;
      }
    BOOST_TEST(bad == 0, "getrf " << s.m << "x" << s.n);

    // laswp against plain swaps: exact (data movement), on every column tile.
    const i64 cols = 1100;
    vec w = random_matrix(s.m, cols, lda, ++seed), ref = w;
    e->laswp(cols, w.data(), lda, 0, s.n, ipiv.data());
    for (i64 j = 0; j < cols; ++j)
      for (i64 i = 0; i < s.n; ++i) std::swap(ref[i + j * lda], ref[ipiv[i] + j * lda]);
    CHECK_SAME_BITS(w, ref, "laswp");
    // A sub-range k1..k2 only.
    if (s.n >= 3) {
      vec w2 = random_matrix(s.m, 9, lda, ++seed), ref2 = w2;
      e->laswp(9, w2.data(), lda, 1, s.n - 1, ipiv.data());
      for (i64 j = 0; j < 9; ++j)
        for (i64 i = 1; i < s.n - 1; ++i) std::swap(ref2[i + j * lda], ref2[ipiv[i] + j * lda]);
      CHECK_SAME_BITS(w2, ref2, "laswp k1..k2");
    }
  }
  // An exact zero pivot: dgetrf's info, the factorization completed.
  vec z = {0, 0, 0, 0, 2, 1, 0, 3, 4};  // column 0 is zero
  std::vector<i64> piv(3);
  BOOST_TEST(e->getrf(3, 3, z.data(), 3, piv.data()) == 1);
  BOOST_TEST(z[4] == 2.0);
}

// ============================================================ engine bits
// Every engine call gives the same bits for threads 1..4 and for other
// leading dimensions / misaligned starts of the same data. Sizes span several
// tiles in every tiled dimension, with ragged last tiles.
BOOST_AUTO_TEST_CASE(engine_calls_same_bits_any_threads_and_layout) {
  std::vector<std::unique_ptr<st::dense_engine>> engines;
  for (int t = 1; t <= 4; ++t) engines.push_back(st::make_cpu_engine(t));
  struct layout_case {
    i64 pad, off;  // ld = rows + pad; data starts `off` doubles into the buffer
  };
  const layout_case layouts[] = {{0, 0}, {5, 1}, {64, 3}};
  const i64 m = 1100, n = 777, k = 300;  // gemm: 2 row tiles, 4 column tiles
  const vec A = random_matrix(m, k, m, 1), B = random_matrix(k, n, k, 2),
            C = random_matrix(m, n, m, 3);
  const vec U = triangular(k, true, 4), L = triangular(k, false, 5);
  const vec Bl = random_matrix(k, n, k, 6), Br = random_matrix(m, k, m, 7);
  const vec G = random_matrix(m, k, m, 8);

  struct results {
    vec gemm, tr_right, tr_left_l, tr_left_u, getrf, laswp;
    std::vector<i64> piv;
  };
  auto run = [&](st::dense_engine& e, const layout_case& lc) {
    results r;
    {
      const i64 lda = m + lc.pad, ldb = k + lc.pad, ldc = m + lc.pad;
      vec a = relayout(A.data(), m, m, k, lda, lc.off), b = relayout(B.data(), k, k, n, ldb, lc.off);
      vec c = relayout(C.data(), m, m, n, ldc, lc.off);
      e.gemm_sub(m, n, k, a.data() + lc.off, lda, b.data() + lc.off, ldb, c.data() + lc.off, ldc);
      r.gemm = compact(c.data() + lc.off, ldc, m, n);
    }
    {
      const i64 ldu = k + lc.pad, ldb = m + lc.pad;
      vec uu = relayout(U.data(), k, k, k, ldu, lc.off);
      vec b = relayout(Br.data(), m, m, k, ldb, lc.off);
      e.trsm_right_upper(m, k, uu.data() + lc.off, ldu, b.data() + lc.off, ldb);
      r.tr_right = compact(b.data() + lc.off, ldb, m, k);
    }
    {
      const i64 ldt = k + lc.pad, ldb = k + lc.pad;
      vec ll = relayout(L.data(), k, k, k, ldt, lc.off), uu = relayout(U.data(), k, k, k, ldt, lc.off);
      vec b1 = relayout(Bl.data(), k, k, n, ldb, lc.off), b2 = b1;
      e.trsm_left_lower_unit(k, n, ll.data() + lc.off, ldt, b1.data() + lc.off, ldb);
      e.trsm_left_upper(k, n, uu.data() + lc.off, ldt, b2.data() + lc.off, ldb);
      r.tr_left_l = compact(b1.data() + lc.off, ldb, k, n);
      r.tr_left_u = compact(b2.data() + lc.off, ldb, k, n);
    }
    {
      const i64 lda = m + lc.pad;
      vec g = relayout(G.data(), m, m, k, lda, lc.off);
      r.piv.assign(static_cast<std::size_t>(k), -1);
      e.getrf(m, k, g.data() + lc.off, lda, r.piv.data());
      r.getrf = compact(g.data() + lc.off, lda, m, k);
      vec w = relayout(C.data(), m, m, n, lda, lc.off);
      e.laswp(n, w.data() + lc.off, lda, 0, k, r.piv.data());
      r.laswp = compact(w.data() + lc.off, lda, m, n);
    }
    return r;
  };
  const results ref = run(*engines[0], layouts[0]);
  for (const auto& lc : layouts)
    for (auto& e : engines) {
      if (&lc == &layouts[0] && e == engines[0]) continue;
      const results r = run(*e, lc);
      std::ostringstream what;
      what << "threads=" << e->threads() << " pad=" << lc.pad << " off=" << lc.off;
      CHECK_SAME_BITS(r.gemm, ref.gemm, "gemm_sub " + what.str());
      CHECK_SAME_BITS(r.tr_right, ref.tr_right, "trsm_right_upper " + what.str());
      CHECK_SAME_BITS(r.tr_left_l, ref.tr_left_l, "trsm_left_lower_unit " + what.str());
      CHECK_SAME_BITS(r.tr_left_u, ref.tr_left_u, "trsm_left_upper " + what.str());
      CHECK_SAME_BITS(r.getrf, ref.getrf, "getrf " + what.str());
      BOOST_TEST(r.piv == ref.piv, "getrf pivots " << what.str());
      CHECK_SAME_BITS(r.laswp, ref.laswp, "laswp " + what.str());
    }
}

// ============================================================ whole LU bits
// The in-core local-pivot LU and factor_partial, and the stripe solves, give
// the same bits (factors, pivots, solutions) for threads 1..4 and for
// lda = n or n + 13 (ldy = n or n + 5).
BOOST_AUTO_TEST_CASE(in_core_lu_same_bits_any_threads_and_lda) {
  const i64 n = 600, S = 136, Sp = 48, nrhs = 2;  // S does not divide n, S' does not divide S
  const vec A = random_matrix(n, n, n, 42), B = random_matrix(n, nrhs, n, 43);
  for (bool local : {true, false}) {
    vec ref, ref_x;
    std::vector<i64> ref_piv;
    for (int t = 1; t <= 4; ++t)
      for (i64 pad : {0, 13}) {
        auto e = st::make_cpu_engine(t);
        const i64 lda = n + pad, ldy = n + (pad > 0 ? 5 : 0);
        vec a = relayout(A.data(), n, n, n, lda, 0);
        std::vector<i64> piv(static_cast<std::size_t>(n), -1);
        if (local)
          lu_local(*e, n, a.data(), lda, S, Sp, 0.0, piv.data());
        else
          st::factor_partial(*e, n, a.data(), lda, S, 0.0, piv.data());
        vec y = relayout(B.data(), n, n, nrhs, ldy, 0);
        solve(*e, n, a.data(), lda, S, piv.data(), local, nrhs, y.data(), ldy);
        vec f = compact(a.data(), lda, n, n), x = compact(y.data(), ldy, n, nrhs);
        if (ref.empty()) {
          ref = f;
          ref_piv = piv;
          ref_x = x;
          continue;
        }
        std::ostringstream what;
        what << (local ? "local" : "partial") << " threads=" << t << " pad=" << pad;
        CHECK_SAME_BITS(f, ref, what.str());
        BOOST_TEST(piv == ref_piv, what.str() << ": pivots differ");
        CHECK_SAME_BITS(x, ref_x, what.str() + " solution");
      }
  }
}

// Out-of-core shape: every stripe in its own buffer (its own ld), holding
// only columns [col0, n); after pivot stripe J is applied to stripe I, the
// now-final columns [col0, (J+1) S) of even stripes move out (col0
// advances, the buffer is re-laid with another ld), odd stripes keep col0 = 0;
// the caller applies a pivot stripe's interchanges to its moved-out columns.
// The assembled factors equal the in-core ones bit for bit.
BOOST_AUTO_TEST_CASE(local_lu_same_bits_with_advancing_col0) {
  const i64 n = 500, S = 96, Sp = 40;
  const vec A = random_matrix(n, n, n, 7);
  auto e1 = st::make_cpu_engine(1);
  vec ref = A;
  std::vector<i64> ref_piv(static_cast<std::size_t>(n));
  lu_local(*e1, n, ref.data(), n, S, Sp, 0.0, ref_piv.data());

  auto e = st::make_cpu_engine(3);
  const i64 ns = stripes_of(n, S);
  vec out(static_cast<std::size_t>(n * n), std::nan(""));  // moved-out (final) columns
  std::vector<vec> buf(static_cast<std::size_t>(ns));
  std::vector<st::block> blk(static_cast<std::size_t>(ns));
  auto lay = [&](i64 I, i64 col0, const double* src, i64 lds, i64 generation) {
    const i64 rows = std::min(S, n - I * S), ld = rows + 1 + (I + generation) % 5;
    vec nb = relayout(src, lds, rows, n - col0, ld, 0);
    buf[I].swap(nb);
    blk[I] = st::block{buf[I].data(), rows, col0, n, ld};
  };
  for (i64 I = 0; I < ns; ++I) lay(I, 0, A.data() + I * S, n, 0);
  std::vector<i64> piv(static_cast<std::size_t>(n));
  for (i64 J = 0; J < ns; ++J) {
    const i64 r0 = J * S, rows = blk[J].rows;
    st::factor_stripe_local(*e, blk[J], r0, Sp, 0.0, piv.data() + r0);
    for (i64 i = 0; i < rows; ++i)  // interchanges left of col0, by the caller
      for (i64 c = 0; c < blk[J].col0; ++c)
        std::swap(out[r0 + i + c * n], out[r0 + piv[r0 + i] + c * n]);
    for (i64 I = J + 1; I < ns; ++I) {
      st::apply_pivot_stripe(*e, blk[J], r0, blk[I]);
      if (I % 2 == 0) {  // move columns [col0, r0 + S) out
        const st::block& b = blk[I];
        for (i64 c = b.col0; c < r0 + S; ++c)
          for (i64 i = 0; i < b.rows; ++i) out[I * S + i + c * n] = b.col(c)[i];
        const vec old = buf[I];
        const st::block ob = b;
        lay(I, r0 + S, ob.col(r0 + S) - ob.data + old.data(), ob.ld, J + 1);
      }
    }
  }
  for (i64 I = 0; I < ns; ++I)
    for (i64 c = blk[I].col0; c < n; ++c)
      for (i64 i = 0; i < blk[I].rows; ++i) out[I * S + i + c * n] = blk[I].col(c)[i];
  CHECK_SAME_BITS(out, ref, "stripes with advancing col0");
  BOOST_TEST(piv == ref_piv);
}

// factor_stripe_local on a block with col0 > 0 equals the full view's columns
// [col0, n), and apply_pivot_stripe likewise (different ld too).
BOOST_AUTO_TEST_CASE(stripe_kernels_col0_offset_same_bits) {
  const i64 n = 400, rows = 90, r0 = 150, Sp = 32;
  auto e = st::make_cpu_engine(2);
  const vec P = random_matrix(rows, n, rows, 11), T = random_matrix(70, n, 70, 12);
  for (i64 col0 : {0, 1, 77, 150}) {
    vec full = P;
    std::vector<i64> piv_full(rows), piv(rows);
    st::factor_stripe_local(*e, st::block{full.data(), rows, 0, n, rows}, r0, Sp, 0.0,
                            piv_full.data());
    const i64 ld = rows + 7;
    vec part = relayout(P.data() + col0 * rows, rows, rows, n - col0, ld, 0);
    const st::block pb{part.data(), rows, col0, n, ld};
    st::factor_stripe_local(*e, pb, r0, Sp, 0.0, piv.data());
    BOOST_TEST(piv == piv_full);
    CHECK_SAME_BITS(compact(part.data(), ld, rows, n - col0),
                    compact(full.data() + col0 * rows, rows, rows, n - col0),
                    "factor_stripe_local col0=" + std::to_string(col0));
    // apply to T (full view) vs T held from col0 with another ld
    vec tf = T;
    st::apply_pivot_stripe(*e, st::block{full.data(), rows, 0, n, rows}, r0,
                           st::block{tf.data(), 70, 0, n, 70});
    const i64 ldt = 70 + 3;
    vec tp = relayout(T.data() + col0 * 70, 70, 70, n - col0, ldt, 0);
    st::apply_pivot_stripe(*e, pb, r0, st::block{tp.data(), 70, col0, n, ldt});
    CHECK_SAME_BITS(compact(tp.data(), ldt, 70, n - col0),
                    compact(tf.data() + col0 * 70, 70, 70, n - col0),
                    "apply_pivot_stripe col0=" + std::to_string(col0));
  }
}

// ============================================================ accuracy
// Local-pivot LU + solve, and factor_partial + solve, against dgesv_:
//   ||x - x_lapack||_inf / ||x_lapack||_inf <= 1e3 n cond_1 u
// (both solutions are backward stable, so each is within ~ n cond u of the
// true one, times the growth factor; 1e3 covers the growth of local
// pivoting on these random matrices), and HPL's scaled residual
// ||A x - b|| / (u (||A|| ||x|| + ||b||) n) < 16.
namespace {

void check_solutions(bool local, i64 n, i64 S, i64 Sp, std::uint64_t seed) {
  const i64 nrhs = 3;
  const vec A = random_matrix(n, n, n, seed), Bv = random_matrix(n, nrhs, n, seed + 1);
  auto e = st::make_cpu_engine(2);
  vec lu = A, x = Bv;
  std::vector<i64> piv(static_cast<std::size_t>(n));
  if (local)
    lu_local(*e, n, lu.data(), n, S, Sp, 0.0, piv.data());
  else
    st::factor_partial(*e, n, lu.data(), n, S, 0.0, piv.data());
  solve(*e, n, lu.data(), n, S, piv.data(), local, nrhs, x.data(), n);
  const lapack_solution ref = dgesv(n, A, Bv, nrhs);
  for (i64 r = 0; r < nrhs; ++r) {
    const double d = rel_diff_inf(x.data() + r * n, ref.x.data() + r * n, n);
    const double res = scaled_residual(n, A, x.data() + r * n, Bv.data() + r * n);
    BOOST_TEST(d <= 1e3 * static_cast<double>(n) * ref.cond1 * u,
               (local ? "local" : "partial") << " n=" << n << " S=" << S << " S'=" << Sp
                                             << " rhs " << r << ": rel diff " << d
                                             << ", cond1 " << ref.cond1);
    BOOST_TEST(res < 16.0, (local ? "local" : "partial") << " n=" << n << " S=" << S
                                                         << ": scaled residual " << res);
  }
  if (!local) {
    // Pivots equal dgetrf_'s.
    vec l2 = A;
    std::vector<int> p2(static_cast<std::size_t>(n));
    const int in = static_cast<int>(n);
    int info = 0;
    dgetrf_(&in, &in, l2.data(), &in, p2.data(), &info);
    i64 differ = 0;
    for (i64 i = 0; i < n; ++i) differ += (piv[i] != p2[i] - 1);
    BOOST_TEST(differ == 0, "factor_partial n=" << n << " S=" << S << ": " << differ
                                                << " pivots differ from dgetrf_");
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(local_lu_solve_matches_dgesv) {
  std::uint64_t seed = 1000;
  for (i64 n : {1, 2, 7, 64, 100, 257, 600}) {
    check_solutions(true, n, 48, 20, seed += 2);   // 20 does not divide 48
    check_solutions(true, n, 37, 16, seed += 2);
    check_solutions(true, n, 128, 48, seed += 2);
  }
}

BOOST_AUTO_TEST_CASE(partial_lu_solve_and_pivots_match_lapack) {
  std::uint64_t seed = 2000;
  for (i64 n : {1, 2, 7, 64, 100, 257, 600}) {
    check_solutions(false, n, 48, 0, seed += 2);
    check_solutions(false, n, 37, 0, seed += 2);
    check_solutions(false, n, 128, 0, seed += 2);
  }
}

// More sizes, seeds and realistic (S, S'), both pivotings (long).
BOOST_AUTO_TEST_CASE(lu_solve_sweep, *utf::label("long")) {
  std::uint64_t seed = 3000;
  for (i64 n : {999, 1000, 2001})
    for (int rep = 0; rep < 2; ++rep) {
      check_solutions(true, n, 256, 64, seed += 2);
      check_solutions(true, n, 300, 128, seed += 2);
      check_solutions(true, n, 512, 128, seed += 2);
      check_solutions(false, n, 256, 0, seed += 2);
      check_solutions(false, n, 100, 0, seed += 2);
    }
}

// A zero leading entry of every substripe's diagonal block: the LU must pivot
// inside the substripe (and does: a_00 = 0 would otherwise divide by zero).
BOOST_AUTO_TEST_CASE(local_lu_pivots_inside_substripe) {
  const i64 n = 100, S = 40, Sp = 16;
  vec A = random_matrix(n, n, n, 77);
  for (i64 J = 0; J < n; J += S)
    for (i64 c = J; c < std::min(J + S, n); c += Sp) A[c + c * n] = 0;
  auto e = st::make_cpu_engine(2);
  vec lu = A, x = random_matrix(n, 1, n, 78);
  const vec b = x;
  std::vector<i64> piv(static_cast<std::size_t>(n));
  lu_local(*e, n, lu.data(), n, S, Sp, 0.0, piv.data());
  BOOST_TEST(piv[0] != 0);
  solve(*e, n, lu.data(), n, S, piv.data(), true, 1, x.data(), n);
  BOOST_TEST(scaled_residual(n, A, x.data(), b.data()) < 16.0);
  // The substripe rows bound the search: every pivot is within its substripe.
  for (i64 i = 0; i < n; ++i) {
    const i64 within = i % S, sub = within / Sp;
    BOOST_TEST((piv[i] >= within && piv[i] < std::min((sub + 1) * Sp, std::min(S, n - i / S * S))));
  }
}

// Edge shapes: S = 1 (one-row stripes: no pivoting at all), S' = 1, S' >= S,
// S >= n, on diagonally dominant matrices (no pivoting needed, growth <= 2),
// against dgesv_ as above.
BOOST_AUTO_TEST_CASE(local_lu_edge_stripe_shapes) {
  auto e = st::make_cpu_engine(2);
  std::uint64_t seed = 5000;
  for (i64 n : {1, 5, 33}) {
    vec A = random_matrix(n, n, n, ++seed);
    for (i64 i = 0; i < n; ++i) A[i + i * n] = (i % 2 ? -1.0 : 1.0) * static_cast<double>(n);
    const vec b = random_matrix(n, 1, n, ++seed);
    const lapack_solution ref = dgesv(n, A, b, 1);
    struct shape {
      i64 S, Sp;
    };
    for (const auto& sh : {shape{1, 1}, shape{1, 4}, shape{5, 1}, shape{5, 3}, shape{5, 5},
                           shape{5, 9}, shape{n, 2}, shape{n + 3, n + 3}, shape{n + 3, 7}}) {
      vec lu = A, x = b;
      std::vector<i64> piv(static_cast<std::size_t>(n));
      lu_local(*e, n, lu.data(), n, sh.S, sh.Sp, 0.0, piv.data());
      solve(*e, n, lu.data(), n, sh.S, piv.data(), true, 1, x.data(), n);
      BOOST_TEST(rel_diff_inf(x.data(), ref.x.data(), n) <=
                     1e3 * static_cast<double>(n) * ref.cond1 * u,
                 "n=" << n << " S=" << sh.S << " S'=" << sh.Sp);
      BOOST_TEST(scaled_residual(n, A, x.data(), b.data()) < 16.0,
                 "n=" << n << " S=" << sh.S << " S'=" << sh.Sp);
      vec lp = A, xp = b;
      st::factor_partial(*e, n, lp.data(), n, sh.S, 0.0, piv.data());
      solve(*e, n, lp.data(), n, sh.S, piv.data(), false, 1, xp.data(), n);
      BOOST_TEST(scaled_residual(n, A, xp.data(), b.data()) < 16.0,
                 "partial n=" << n << " S=" << sh.S);
    }
  }
}

// ============================================================ pivot errors
namespace {

// An upper triangular matrix with diagonal entries 1 + random, except
// entry j -> v: both pivoting schemes meet v as the pivot of column j (the
// entries below are zero, so nothing moves and nothing is updated first).
vec upper_with_pivot(i64 n, i64 j, double v) {
  vec a = random_matrix(n, n, n, 99);
  for (i64 c = 0; c < n; ++c)
    for (i64 r = 0; r < n; ++r) {
      if (r > c) a[r + c * n] = 0;
      if (r == c) a[r + c * n] = 1 + std::fabs(a[r + c * n]);
    }
  a[j + j * n] = v;
  return a;
}

template <class F>
void expect_pivot_error(const F& f, i64 column, const std::string& why, const std::string& what) {
  bool thrown = false;
  try {
    f();
  } catch (const exala::singular_pivot& ex) {
    thrown = true;
    BOOST_TEST(ex.column() == column, what << ": column " << ex.column() << " instead of "
                                           << column << " (" << ex.what() << ")");
    BOOST_TEST(std::string(ex.what()).find(why + " pivot") != std::string::npos,
               what << ": message '" << ex.what() << "' does not say '" << why << "'");
  }
  BOOST_TEST(thrown, what << ": no singular_pivot thrown");
}

}  // namespace

BOOST_AUTO_TEST_CASE(pivot_errors_name_the_column) {
  const i64 n = 130, S = 48, Sp = 20;
  auto e = st::make_cpu_engine(2);
  // 0: first column; 67: stripe 1, second substripe (48 + 19 ... 67 is its 0-th
  // column + 19 -> substripe [68, 88) no: [48,68) holds 67 as its last column);
  // 70: inside stripe 1's second substripe; 129: the last column.
  for (i64 j : {0, 67, 70, 129}) {
    const std::string at = " at column " + std::to_string(j);
    for (bool local : {true, false}) {
      auto run = [&](const vec& a0, double thr) {
        vec a = a0;
        std::vector<i64> piv(static_cast<std::size_t>(n));
        if (local)
          lu_local(*e, n, a.data(), n, S, Sp, thr, piv.data());
        else
          st::factor_partial(*e, n, a.data(), n, S, thr, piv.data());
      };
      const std::string kind = local ? "local" : "partial";
      const vec z = upper_with_pivot(n, j, 0.0);
      expect_pivot_error([&] { run(z, 0.0); }, j, "zero", kind + " zero" + at);
      expect_pivot_error([&] { run(z, 1e-3); }, j, "zero", kind + " zero, threshold" + at);
      const vec t = upper_with_pivot(n, j, -1e-10);
      expect_pivot_error([&] { run(t, 1e-8); }, j, "numerically singular",
                         kind + " threshold" + at);
      BOOST_CHECK_NO_THROW(run(t, 1e-11));  // above the threshold: fine
      const vec f = upper_with_pivot(n, j, std::numeric_limits<double>::infinity());
      expect_pivot_error([&] { run(f, 0.0); }, j, "non-finite", kind + " inf" + at);
    }
  }
}

// ============================================================ arguments
BOOST_AUTO_TEST_CASE(arguments_checked) {
  auto e = st::make_cpu_engine(1);
  vec a(16, 1.0);
  const i64 big = i64{1} << 31;
  auto names = [](const exala::invalid_argument& ex, const std::string& arg) {
    return ex.argument() == arg;
  };
  BOOST_CHECK_EXCEPTION(e->gemm_sub(big, 1, 1, a.data(), big, a.data(), 1, a.data(), big),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "m"); });
  BOOST_CHECK_EXCEPTION(e->gemm_sub(2, 2, 2, a.data(), 1, a.data(), 2, a.data(), 2),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "lda"); });
  BOOST_CHECK_EXCEPTION(e->gemm_sub(2, 2, 2, a.data(), 2, a.data(), 2, a.data(), big + 5),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "ldc"); });
  BOOST_CHECK_EXCEPTION(e->gemm_sub(-1, 2, 2, a.data(), 2, a.data(), 2, a.data(), 2),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "m"); });
  BOOST_CHECK_EXCEPTION(e->trsm_right_upper(2, big, a.data(), big, a.data(), 2),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "k"); });
  BOOST_CHECK_EXCEPTION(e->trsm_left_lower_unit(2, 2, a.data(), 1, a.data(), 2),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "ldl"); });
  BOOST_CHECK_EXCEPTION(e->trsm_left_upper(2, big, a.data(), 2, a.data(), 2),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "n"); });
  std::vector<i64> piv = {1, 5};
  BOOST_CHECK_EXCEPTION(e->getrf(2, 2, a.data(), 1, piv.data()), exala::invalid_argument,
                        [&](const auto& ex) { return names(ex, "lda"); });
  BOOST_CHECK_EXCEPTION(e->laswp(2, a.data(), 2, 0, 2, piv.data()), exala::invalid_argument,
                        [&](const auto& ex) { return names(ex, "lda"); });  // row 5 >= lda
  BOOST_CHECK_EXCEPTION(e->laswp(2, a.data(), 8, 1, 0, piv.data()), exala::invalid_argument,
                        [&](const auto& ex) { return names(ex, "k2"); });
  // kernels
  std::vector<i64> p4(4);
  const st::block s{a.data(), 4, 0, 4, 4};
  BOOST_CHECK_EXCEPTION(st::factor_stripe_local(*e, s, 0, 0, 0.0, p4.data()),
                        exala::invalid_argument,
                        [&](const auto& ex) { return names(ex, "substripe"); });
  BOOST_CHECK_EXCEPTION(st::factor_stripe_local(*e, s, 1, 2, 0.0, p4.data()),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "r0"); });
  BOOST_CHECK_EXCEPTION(st::factor_stripe_local(*e, s, 0, 2, -1.0, p4.data()),
                        exala::invalid_argument,
                        [&](const auto& ex) { return names(ex, "threshold"); });
  BOOST_CHECK_EXCEPTION(st::factor_partial(*e, 4, a.data(), 3, 2, 0.0, p4.data()),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "lda"); });
  const st::block later{a.data(), 4, 2, 8, 4};
  BOOST_CHECK_EXCEPTION(st::apply_pivot_stripe(*e, st::block{a.data(), 2, 0, 8, 2}, 0, later),
                        exala::invalid_argument, [&](const auto& ex) { return names(ex, "p_r0"); });
}

// ============================================================ benchmark (long)
// The in-core local-pivot LU (for J: factor_stripe_local; for I > J:
// apply_pivot_stripe) against dgetrf_ with the same thread count, n = 4000
// and 8000, several (S, S'); median of 3. Prints a table; asserts nothing
// about time.
namespace {

std::vector<i64> env_list(const char* name, std::vector<i64> dflt) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == 0) return dflt;
  std::vector<i64> r;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) r.push_back(std::stoll(item));
  return r;
}

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median3(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

BOOST_AUTO_TEST_CASE(bench_in_core_lu, *utf::label("long")) {
  const std::vector<i64> ns = env_list("STRIPE_BENCH_N", {4000, 8000});
  // pairs S, S' flattened
  const std::vector<i64> ss =
      env_list("STRIPE_BENCH_SS", {256, 64, 256, 128, 512, 64, 512, 128, 512, 256, 768, 128,
                                   1024, 128, 1024, 256});
  const std::vector<i64> th = env_list("STRIPE_BENCH_THREADS", {2});
  const int reps = static_cast<int>(env_list("STRIPE_BENCH_REPS", {3})[0]);
  for (i64 n : ns) {
    const vec A = random_matrix(n, n, n, 2024);
    vec a(A.size());
    std::vector<i64> piv(static_cast<std::size_t>(n));
    const double flops = 2.0 / 3.0 * static_cast<double>(n) * static_cast<double>(n) *
                         static_cast<double>(n);
    for (i64 t : th) {
      std::vector<double> times;
      const int saved = openblas_threads();
      set_openblas_threads(static_cast<int>(t));
      for (int r = 0; r < reps; ++r) {
        a = A;
        std::vector<int> p2(static_cast<std::size_t>(n));
        const int in = static_cast<int>(n);
        int info = 0;
        const double t0 = seconds_now();
        dgetrf_(&in, &in, a.data(), &in, p2.data(), &info);
        times.push_back(seconds_now() - t0);
      }
      set_openblas_threads(saved);
      const double ref_gf = flops / median3(times) * 1e-9;
      std::printf("n=%lld threads=%lld dgetrf: %.1f GF/s (%.2f s)\n", static_cast<long long>(n),
                  static_cast<long long>(t), ref_gf, median3(times));
      auto e = st::make_cpu_engine(static_cast<int>(t));
      for (std::size_t q = 0; q + 1 < ss.size(); q += 2) {
        const i64 S = ss[q], Sp = ss[q + 1];
        times.clear();
        for (int r = 0; r < reps; ++r) {
          a = A;
          const double t0 = seconds_now();
          lu_local(*e, n, a.data(), n, S, Sp, 0.0, piv.data());
          times.push_back(seconds_now() - t0);
        }
        const double gf = flops / median3(times) * 1e-9;
        std::printf("n=%lld threads=%lld S=%lld S'=%lld: %.1f GF/s (%.2f s) = %.2fx dgetrf\n",
                    static_cast<long long>(n), static_cast<long long>(t),
                    static_cast<long long>(S), static_cast<long long>(Sp), gf, median3(times),
                    gf / ref_gf);
        std::fflush(stdout);
      }
    }
  }
  BOOST_TEST(true);
}
