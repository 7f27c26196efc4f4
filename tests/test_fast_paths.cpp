// test_fast_paths: the bounded fast paths of short calls (issue 16) and their
// fallback boundaries.
//
//   * round_bounded (the Ziv decision): whenever it decides, both ends of
//     the interval [hi + lo - err, hi + lo + err] round to the decided value
//     in the exact superaccumulator (rounding is monotone, so the whole
//     interval does); it decides the easy cases it must decide, and refuses
//     ties, zeros, the subnormal range and overflow.
//   * dot_decided (Dot2 in lanes + round_bounded) against the exact
//     reference, every kernel set, every rounding mode, lengths 1..300, on
//     uniform, integer, wide-range, ill-conditioned and tie data: a decided
//     result must be the reference's bits, and ties must not be decided.
//   * exala::dot on simd/omp (fast path or its fallback) against reference,
//     strided and contiguous, around the fast path's length limits.
//   * gemv's fast path (rows in lanes for strided rows, horizontal Dot2 for
//     contiguous ones, alpha and beta composed with a bound): every layout,
//     transpose, stride, small shapes, rows that tie next to rows that do
//     not, alpha/beta/y values that make the composition tie, specials.
//   * trsv's fast path (panel in lanes or horizontal, in-block rows in one
//     scalar lane, round_bounded_div): all 8 variants x both layouts x
//     strides x block sizes, solutions that are exact doubles or midpoints
//     (the quotient step must fall back) next to ordinary ones.
//   * gemm's small-product path: entries that tie next to decided ones, in
//     every layout and transpose, and its size limit (test_blas3's sweeps
//     run through it as well).
//   * the exponent bins of the long kernels' wide path (sum, asum, dot over
//     many binades): long runs of one bin and one sign (so its carries
//     happen), both signs, subnormals and zeros, the top binades, tiny
//     products next to wide ones, and lengths past the point where the bins
//     are folded mid-call.
#define BOOST_TEST_MODULE test_fast_paths
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backend_matrix.hpp"
#include "exala/backend.hpp"
#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/superaccumulator.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using exala::backend;
using exala::kernel_set;
using exala::rounding;
using namespace exala_test;

namespace {

const rounding all_modes[] = {rounding::to_nearest_even, rounding::toward_zero, rounding::upward,
                              rounding::downward};

const char* name(rounding m) {
  switch (m) {
    case rounding::to_nearest_even: return "nearest";
    case rounding::toward_zero: return "toward_zero";
    case rounding::upward: return "upward";
    case rounding::downward: return "downward";
  }
  return "?";
}

// round(hi + lo + sgn * err) exactly.
double round_exact(double hi, double lo, double err, int sgn, rounding m) {
  exala::superaccumulator a;
  a.add(hi);
  a.add(lo);
  a.add(sgn < 0 ? -err : err);
  return a.round(m);
}

// Checks one decision; returns whether it decided.
bool check_decision(double hi, double lo, double err, rounding m) {
  double got = 0.0;
  if (!exala::detail::round_bounded(hi, lo, err, m, got)) return false;
  const double a = round_exact(hi, lo, err, -1, m), b = round_exact(hi, lo, err, +1, m);
  BOOST_TEST((same_bits(got, a) && same_bits(got, b)),
             "round_bounded(" << hex(hi) << ", " << hex(lo) << ", " << hex(err) << ", " << name(m)
                              << ") = " << hex(got) << " but the interval ends round to " << hex(a)
                              << " and " << hex(b));
  return true;
}

// Exact reference dot.
double ref_dot(const std::vector<double>& x, const std::vector<double>& y, rounding m) {
  return exala::dot(static_cast<std::int64_t>(x.size()), x.data(), 1, y.data(), 1,
                    exala::exec{backend::reference, 0, m});
}

// One dot_decided call under kernel set k: a decided result must be the
// reference's. Returns whether it decided.
bool check_dot(const std::vector<double>& x, const std::vector<double>& y, rounding m,
               const char* what) {
  double got = 0.0;
  if (!exala::detail::dot_decided(x.data(), y.data(), x.size(), m, got)) return false;
  const double want = ref_dot(x, y, m);
  BOOST_TEST(same_bits(got, want), what << " n = " << x.size() << " " << name(m) << " "
                                        << exala::to_string(exala::active_kernel_set())
                                        << ": decided " << hex(got) << ", exact " << hex(want));
  return true;
}

std::vector<kernel_set> simd_sets() {
  std::vector<kernel_set> v;
  for (kernel_set k : kernel_sets())
    if (k != kernel_set::generic) v.push_back(k);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(round_bounded)

// Exact values (err = 0, lo = 0) are decided in every mode and returned as they are.
BOOST_AUTO_TEST_CASE(exact_values_are_decided) {
  rng_t r(1);
  for (int t = 0; t < 2000; ++t) {
    const double v = random_exp(r, -900, 1000);
    for (rounding m : all_modes) {
      double got = 0.0;
      BOOST_TEST(exala::detail::round_bounded(v, 0.0, 0.0, m, got));
      BOOST_TEST(same_bits(got, v));
    }
  }
}

// hi + lo on a midpoint (nearest) or a double (directed: lo = 0 with err > 0
// straddles it): never decided. Just inside, decided correctly.
BOOST_AUTO_TEST_CASE(boundaries) {
  rng_t r(2);
  for (int t = 0; t < 2000; ++t) {
    const double v = random_exp(r, -900, 1000);
    const double half = std::fabs(v) * 0x1p-53;  // >= half an ulp's lower bound
    const double ulp_half = std::ldexp(1.0, std::ilogb(v) - 53);
    double got;
    // A tie: hi + lo is a midpoint, err 0.
    BOOST_TEST(!exala::detail::round_bounded(v, ulp_half, 0.0, rounding::to_nearest_even, got));
    BOOST_TEST(!exala::detail::round_bounded(v, -ulp_half * (std::fabs(v) == std::ldexp(1.0, std::ilogb(v)) ? 0.5 : 1.0),
                                             0.0, rounding::to_nearest_even, got));
    // Straddling v itself in the directed modes.
    for (rounding m : {rounding::toward_zero, rounding::upward, rounding::downward})
      BOOST_TEST(!exala::detail::round_bounded(v, 0.0, 0x1p-1000 * 0 + std::fabs(v) * 0x1p-80, m, got));
    // Just inside: every decision must hold on the whole interval.
    for (rounding m : all_modes) {
      check_decision(v, 0.5 * ulp_half, ulp_half * 0x1p-10, m);
      check_decision(v, -0.25 * ulp_half, ulp_half * 0x1p-10, m);
      check_decision(v, ulp_half * (1 - 0x1p-40), ulp_half * 0x1p-41, m);
      check_decision(v, ulp_half * 0x1p-20, ulp_half * 0x1p-21, m);
      check_decision(v, -ulp_half * 0x1p-20, ulp_half * 0x1p-21, m);
    }
    (void)half;
  }
}

// Random intervals around random values, powers of two included (their gap
// below is half the gap above): every decision is checked exactly.
BOOST_AUTO_TEST_CASE(random_intervals_are_sound) {
  rng_t r(3);
  long decided = 0, total = 0;
  for (int t = 0; t < 40000; ++t) {
    double v = random_exp(r, -962, 1023);
    if (t % 4 == 0) v = std::copysign(std::ldexp(1.0, std::ilogb(v)), v);  // a power of two
    const int e = std::ilogb(v);
    const double lo = (t % 3 == 0) ? 0.0 : std::ldexp(uniform(r), e - 53);  // |lo| <= ulp/2
    const double hi = v + lo;  // keep hi = fl(hi + lo)
    const double l2 = (hi + lo) - hi;
    const double err = (t % 5 == 0) ? 0.0 : std::ldexp(std::fabs(uniform(r)), e - 53 - static_cast<int>(r() % 60));
    for (rounding m : all_modes) {
      ++total;
      if (check_decision(hi, l2, err, m)) ++decided;
    }
  }
  BOOST_TEST_MESSAGE("round_bounded decided " << decided << " of " << total);
  BOOST_TEST(decided > total / 4);  // the decision is not vacuous
}

BOOST_AUTO_TEST_CASE(refuses_what_it_leaves_to_the_exact_path) {
  double got;
  for (rounding m : all_modes) {
    BOOST_TEST(!exala::detail::round_bounded(0.0, 0.0, 0.0, m, got));           // zero sign
    BOOST_TEST(!exala::detail::round_bounded(0x1p-970, 0.0, 0.0, m, got));      // near subnormal
    BOOST_TEST(!exala::detail::round_bounded(0x1.8p1022, 0.0, 0.0, m, got));    // near overflow
    BOOST_TEST(!exala::detail::round_bounded(INFINITY, 0.0, 0.0, m, got));
    BOOST_TEST(!exala::detail::round_bounded(NAN, 0.0, 0.0, m, got));
    BOOST_TEST(!exala::detail::round_bounded(1.0, 0.0, NAN, m, got));
    BOOST_TEST(!exala::detail::round_bounded(1.0, 0.0, INFINITY, m, got));
    BOOST_TEST(exala::detail::round_bounded(0x1p-960, 0.0, 0.0, m, got));       // the limits
    BOOST_TEST(exala::detail::round_bounded(0x1p1022, 0.0, 0.0, m, got));
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(short_dot)

// Random data of several kinds, lengths 1..300, every SIMD kernel set and mode.
BOOST_AUTO_TEST_CASE(decided_results_are_the_exact_ones) {
  restore_kernel_set restore;
  const auto sets = simd_sets();
  if (sets.empty()) {
    BOOST_TEST_MESSAGE("no SIMD kernel set on this CPU: dot_decided always falls back");
    return;
  }
  rng_t r(4);
  for (kernel_set k : sets) {
    exala::force_kernel_set(k);
    long decided = 0, uniform_decided = 0, uniform_total = 0, total = 0;
    for (int n = 1; n <= 300; n += (n < 40 ? 1 : 7)) {
      for (int kind = 0; kind < 6; ++kind) {
        std::vector<double> x(n), y(n);
        for (int i = 0; i < n; ++i) {
          switch (kind) {
            case 0: x[i] = uniform(r), y[i] = uniform(r); break;                       // uniform
            case 1: x[i] = double(int(r() % 201) - 100), y[i] = double(int(r() % 21) - 10); break;  // integers
            case 2: x[i] = random_exp(r, -300, 300), y[i] = random_exp(r, -300, 300); break;  // wide
            case 3: x[i] = random_exp(r, -5, 5), y[i] = (i % 2 ? -1 : 1) * x[i]; break;  // cancels
            case 4:  // ill-conditioned: large pairs that cancel, small rest
              x[i] = (i % 3 == 2) ? uniform(r) * 0x1p-60 : random_exp(r, 40, 60);
              y[i] = 1.0;
              if (i % 3 == 1) x[i] = -x[i - 1];
              break;
            default: x[i] = random_exp(r, -700, 700), y[i] = random_exp(r, -300, 300); break;
          }
        }
        for (rounding m : all_modes) {
          const bool d = check_dot(x, y, m, "random");
          decided += d;
          ++total;
          if (kind == 0) {
            uniform_decided += d;
            ++uniform_total;
          }
        }
      }
    }
    BOOST_TEST_MESSAGE(exala::to_string(k) << ": dot_decided decided " << decided << " of " << total);
    // The fast path does decide ordinary data (a broken bound that always
    // refused would pass the checks above).
    BOOST_TEST(uniform_decided == uniform_total, exala::to_string(k) << ": " << uniform_decided << " of "
                                                                     << uniform_total);
  }
}

// Exact sums that are midpoints (nearest) or doubles (directed), plus a tail
// far below: the bound cannot separate them from the boundary, so the fast
// path must refuse, and exala::dot still gives the exact path's bits.
BOOST_AUTO_TEST_CASE(ties_fall_back) {
  restore_kernel_set restore;
  for (kernel_set k : simd_sets()) {
    exala::force_kernel_set(k);
    for (int n : {2, 3, 17, 33, 64, 257}) {
      for (double tail : {0.0, 0x1p-200, -0x1p-200}) {
        std::vector<double> x(n, 0.0), y(n, 1.0);
        x[0] = 1.0;
        x[n / 2] = 0x1p-53;  // 1 + 2^-53: the midpoint of 1 and 1 + 2^-52
        x[n - 1] += tail;
        if (n == 2) x[1] = 0x1p-53 + tail;
        double got;
        const bool decided =
            exala::detail::dot_decided(x.data(), y.data(), x.size(), rounding::to_nearest_even, got);
        BOOST_TEST(!decided, "n = " << n << " tail " << tail);
        for (rounding m : all_modes) {
          check_dot(x, y, m, "tie");  // decided (directed modes) only if right
          for (backend b : {backend::simd, backend::omp}) {
            if (!exala::is_compiled_in(b)) continue;
            const double fast = exala::dot(n, x.data(), 1, y.data(), 1, exala::exec{b, 0, m});
            BOOST_TEST(same_bits(fast, ref_dot(x, y, m)), "n = " << n << " " << name(m));
          }
        }
      }
      // An exact double hit by a directed mode with a vanishing tail.
      std::vector<double> x(n, 0.0), y(n, 1.0);
      x[0] = 3.0;
      x[n - 1] += 0x1p-300;
      if (n == 2) x[1] = 0x1p-300;
      for (rounding m : {rounding::toward_zero, rounding::upward, rounding::downward}) {
        check_dot(x, y, m, "directed");
        const double fast = exala::dot(n, x.data(), 1, y.data(), 1, exala::exec{backend::simd, 0, m});
        BOOST_TEST(same_bits(fast, ref_dot(x, y, m)), "n = " << n << " " << name(m));
      }
    }
  }
}

// Inputs the fast path leaves to the exact kernels: specials, overflowing
// partial sums, zero and tiny results, tiny products.
BOOST_AUTO_TEST_CASE(specials_and_range_fall_back) {
  restore_kernel_set restore;
  for (kernel_set k : simd_sets()) {
    exala::force_kernel_set(k);
    for (int n : {1, 5, 16, 40}) {
      struct probe {
        double a, b;
        const char* what;
      };
      const probe probes[] = {{NAN, 1.0, "NaN"},         {INFINITY, 1.0, "inf"},
                              {INFINITY, 0.0, "inf*0"},  {0x1p600, 0x1p600, "overflow"},
                              {0x1p-600, 0x1p-600, "tiny"}, {0x1p1023, 1.5, "near max"}};
      for (const probe& p : probes) {
        std::vector<double> x(n, 0.25), y(n, 0.5);
        x[n / 2] = p.a;
        y[n / 2] = p.b;
        if (std::string(p.what) == "tiny") std::fill(x.begin(), x.end(), 0x1p-600), std::fill(y.begin(), y.end(), 0x1p-500);
        for (rounding m : all_modes) {
          double got;
          BOOST_TEST(!exala::detail::dot_decided(x.data(), y.data(), x.size(), m, got),
                     p.what << " n = " << n << " decided " << hex(got));
          const double fast = exala::dot(n, x.data(), 1, y.data(), 1, exala::exec{backend::simd, 0, m});
          BOOST_TEST(same_bits(fast, ref_dot(x, y, m)), p.what << " n = " << n << " " << name(m));
        }
      }
      // An exactly zero result (its sign comes from the exact path).
      std::vector<double> x(n, 0.0), y(n, 1.0);
      x[0] = 2.0;
      x[n - 1] -= 2.0;
      for (rounding m : all_modes) {
        double got;
        BOOST_TEST(!exala::detail::dot_decided(x.data(), y.data(), x.size(), m, got));
        const double fast = exala::dot(n, x.data(), 1, y.data(), 1, exala::exec{backend::simd, 0, m});
        BOOST_TEST(same_bits(fast, ref_dot(x, y, m)));
      }
    }
  }
}

// exala::dot on the fast-path backends, strided and contiguous, at the length
// limits of the fast path (256 for packed strides, 4096 contiguous).
BOOST_AUTO_TEST_CASE(front_end_lengths_and_strides) {
  restore_kernel_set restore;
  rng_t r(5);
  const std::pair<std::int64_t, std::int64_t> incs[] = {{1, 1}, {-1, -1}, {2, 3}, {1, -1}, {0, 1}, {-2, 2}};
  for (kernel_set k : kernel_sets()) {
    exala::force_kernel_set(k);
    for (std::int64_t n : {1, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097}) {
      for (auto [ix, iy] : incs) {
        const std::int64_t lx = 1 + (n - 1) * std::abs(ix), ly = 1 + (n - 1) * std::abs(iy);
        std::vector<double> x(lx), y(ly);
        for (double& v : x) v = uniform(r);
        for (double& v : y) v = uniform(r);
        for (rounding m : all_modes) {
          const double want =
              exala::dot(n, x.data(), ix, y.data(), iy, exala::exec{backend::reference, 0, m});
          for (backend b : {backend::simd, backend::omp}) {
            if (!exala::is_compiled_in(b)) continue;
            const double got = exala::dot(n, x.data(), ix, y.data(), iy, exala::exec{b, 0, m});
            BOOST_TEST(same_bits(got, want), exala::to_string(k) << " " << exala::to_string(b) << " n = " << n
                                                                 << " inc " << ix << "," << iy << " "
                                                                 << name(m));
          }
        }
      }
    }
  }
}

// sum and asum: the same bounded path with y = 1 (and |x| for asum), and
// its exact fallback for short ties (1 + 2^-53 and its mirror), every
// length limit, stride, kernel set and mode, against reference.
BOOST_AUTO_TEST_CASE(sum_and_asum) {
  restore_kernel_set restore;
  rng_t r(10);
  for (kernel_set k : kernel_sets()) {
    exala::force_kernel_set(k);
    for (std::int64_t n : {1, 2, 3, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097})
      for (std::int64_t inc : {1, -1, 2, -3})
        for (int kind = 0; kind < 3; ++kind) {
          std::vector<double> x(static_cast<std::size_t>(1 + (n - 1) * std::abs(inc)), 0.0);
          for (std::int64_t i = 0; i < n; ++i) {
            double v = kind == 0 ? uniform(r) : (kind == 1 ? random_exp(r, -40, 40) : 0.0);
            if (kind == 2) v = i == 0 ? 1.0 : (i == n - 1 ? -0x1p-53 : 0.0);  // a tie (|.|: 1 + 2^-53)
            x[exala::detail::vector_offset(i, n, inc)] = v;
          }
          for (rounding m : all_modes) {
            const exala::exec ref{backend::reference, 0, m};
            const double ws = exala::sum(n, x.data(), inc, ref), wa = exala::asum(n, x.data(), inc, ref);
            for (backend b : {backend::simd, backend::omp}) {
              if (!exala::is_compiled_in(b)) continue;
              const exala::exec ex{b, 0, m};
              BOOST_TEST(same_bits(exala::sum(n, x.data(), inc, ex), ws),
                         exala::to_string(k) << " sum n = " << n << " inc " << inc << " kind " << kind << " " << name(m));
              BOOST_TEST(same_bits(exala::asum(n, x.data(), inc, ex), wa),
                         exala::to_string(k) << " asum n = " << n << " inc " << inc << " kind " << kind << " " << name(m));
            }
          }
        }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(gemv_fast_path)

namespace {

using exala::layout;
using exala::transpose;

struct gemv_case {
  layout lay;
  transpose t;
  std::int64_t m, n, lda, incx, incy;
  double alpha, beta;
};

// op(A) x with every element of y checked against reference, for every
// fast-path backend, kernel set and mode. fill(i, j) gives op(A)_ij.
template <class Fill, class FillX>
void check_gemv(const gemv_case& c, Fill fill, FillX fillx, const std::vector<double>& y0,
                const char* what) {
  const std::int64_t rows = c.t == transpose::none ? c.m : c.n, cols = c.t == transpose::none ? c.n : c.m;
  const bool rm = c.lay == layout::row_major;
  std::vector<double> a(static_cast<std::size_t>(c.lda * (rm ? c.m : c.n) + 1), std::nan(""));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t r = c.t == transpose::none ? i : j, q = c.t == transpose::none ? j : i;  // A(r, q)
      a[static_cast<std::size_t>(rm ? r * c.lda + q : q * c.lda + r)] = fill(i, j);
    }
  std::vector<double> x(static_cast<std::size_t>(1 + (cols - 1) * std::abs(c.incx)), std::nan(""));
  for (std::int64_t j = 0; j < cols; ++j) x[exala::detail::vector_offset(j, cols, c.incx)] = fillx(j);
  std::vector<double> y(static_cast<std::size_t>(1 + (rows - 1) * std::abs(c.incy)), std::nan(""));
  for (std::int64_t i = 0; i < rows; ++i) y[exala::detail::vector_offset(i, rows, c.incy)] = y0[i % y0.size()];
  for (rounding md : all_modes) {
    std::vector<double> want = y;
    exala::gemv(c.lay, c.t, c.m, c.n, c.alpha, a.data(), c.lda, x.data(), c.incx, c.beta, want.data(),
                c.incy, exala::exec{backend::reference, 0, md});
    for (kernel_set k : kernel_sets()) {
      exala::force_kernel_set(k);
      for (backend b : {backend::simd, backend::omp}) {
        if (!exala::is_compiled_in(b)) continue;
        std::vector<double> got = y;
        exala::gemv(c.lay, c.t, c.m, c.n, c.alpha, a.data(), c.lda, x.data(), c.incx, c.beta,
                    got.data(), c.incy, exala::exec{b, 0, md});
        for (std::size_t i = 0; i < got.size(); ++i)
          if (!same_bits(got[i], want[i])) {
            BOOST_ERROR(what << ": " << exala::to_string(k) << " " << exala::to_string(b) << " "
                             << (rm ? "row" : "col") << (c.t == transpose::none ? " N" : " T") << " m = "
                             << c.m << " n = " << c.n << " " << name(md) << " y[" << i << "] = "
                             << hex(got[i]) << ", reference " << hex(want[i]));
            break;
          }
      }
    }
  }
}

}  // namespace

// Every layout and transpose, shapes around the lane block (8 on AVX2, 16 on
// AVX-512) and the row block (16), strides, alpha/beta of every kind.
BOOST_AUTO_TEST_CASE(random_shapes_every_layout) {
  restore_kernel_set restore;
  rng_t r(6);
  const double alphas[] = {1.0, -1.0, 0.1, 3.0};
  const double betas[] = {0.0, 1.0, -0.7};
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose t : {transpose::none, transpose::trans})
      for (std::int64_t m : {1, 3, 8, 9, 17, 33})
        for (std::int64_t n : {1, 4, 16, 31}) {
          const bool rm = lay == layout::row_major;
          const std::int64_t lda = (rm ? n : m) + (m % 3);
          const gemv_case c{lay, t, m, n, lda, (n % 2) ? 1 : -2, (m % 2) ? 1 : 3,
                            alphas[(m + n) % 4], betas[(m * n) % 3]};
          std::vector<double> y0(7);
          for (double& v : y0) v = uniform(r);
          check_gemv(c, [&](std::int64_t, std::int64_t) { return uniform(r); },
                     [&](std::int64_t) { return uniform(r); }, y0, "random");
        }
}

// Rows whose exact value is a midpoint (1 + 2^-53) next to ordinary rows:
// the tie rows fall back, the others are decided, all with reference bits.
// Also alpha = 0.5 (a tie after scaling), beta * y completing a tie, and
// rows that cancel to exactly zero (their sign from the exact path).
BOOST_AUTO_TEST_CASE(ties_and_zeros_per_row) {
  restore_kernel_set restore;
  rng_t r(7);
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose t : {transpose::none, transpose::trans})
      for (std::int64_t rows : {5, 16, 21}) {
        const std::int64_t cols = 6;
        const std::int64_t m = t == transpose::none ? rows : cols, n = t == transpose::none ? cols : rows;
        const std::int64_t lda = lay == layout::row_major ? n : m;
        auto fill = [&](std::int64_t i, std::int64_t j) -> double {
          switch (i % 4) {
            case 0: return j == 0 ? 1.0 : (j == 3 ? 0x1p-53 : 0.0);  // a midpoint
            case 1: return j == 1 ? 2.0 : (j == 2 ? -2.0 : 0.0);      // exactly zero
            default: return uniform(r);
          }
        };
        for (double alpha : {1.0, 0.5, -3.0})
          for (double beta : {0.0, 1.0}) {
            const gemv_case c{lay, t, m, n, lda, 1, 1, alpha, beta};
            // beta * y = 2^-53: row "1 + 0" plus it is a tie too.
            check_gemv(c, fill, [](std::int64_t) { return 1.0; }, {0x1p-53, -0.0, 0.25}, "ties");
          }
      }
}

// Specials and range: inf/NaN in A or x, products near overflow, tiny
// results: those rows take the exact path (IEEE results, exact signs).
BOOST_AUTO_TEST_CASE(specials_per_row) {
  restore_kernel_set restore;
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose t : {transpose::none, transpose::trans}) {
      const std::int64_t rows = 12, cols = 5;
      const std::int64_t m = t == transpose::none ? rows : cols, n = t == transpose::none ? cols : rows;
      const std::int64_t lda = lay == layout::row_major ? n : m;
      auto fill = [](std::int64_t i, std::int64_t j) -> double {
        if (j != 2) return 0.5 + i;
        switch (i) {
          case 0: return INFINITY;
          case 1: return NAN;
          case 2: return 0x1p1020;
          case 3: return 0x1p-1000;
          case 4: return -INFINITY;
          default: return 1.0;
        }
      };
      for (double alpha : {1.0, 0x1p-60, 4.0})
        check_gemv(gemv_case{lay, t, m, n, lda, 1, 1, alpha, 0.5}, fill,
                   [](std::int64_t j) { return j == 2 ? 8.0 : 0.25; }, {1.0, -0x1p-1070, 0x1p1000},
                   "specials");
    }
}

// Rows whose products are all exact zeros are finished without an
// accumulator (zero_row): signed zeros in A and x (all -0, all +0, mixed
// products), alpha < 0, beta 0, -0, 1 / 3 and -1 with y = +-0, normal, or
// tiny (beta y inexact below the bound's range, so only the exact product
// rounding in the mode gets it right), and a zero facing an infinity in x
// (0 inf = NaN: not a zero row).
BOOST_AUTO_TEST_CASE(zero_rows) {
  restore_kernel_set restore;
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose t : {transpose::none, transpose::trans})
      for (int with_inf = 0; with_inf < 2; ++with_inf) {
        const std::int64_t rows = 20, cols = 7;
        const std::int64_t m = t == transpose::none ? rows : cols, n = t == transpose::none ? cols : rows;
        const std::int64_t lda = lay == layout::row_major ? n : m;
        // Row kinds by i % 5: zeros (+0 products), -0 (-0 products), mixed
        // signs; nonzeros facing x's zeros and a zero facing x_5 (a zero
        // row through x; with_inf: 2 inf, not zero); an ordinary row. With
        // with_inf the zero rows of A face x_3 = inf: NaN.
        auto fill = [](std::int64_t i, std::int64_t j) -> double {
          switch (i % 5) {
            case 0: return 0.0;
            case 1: return -0.0;
            case 2: return j % 2 ? -0.0 : 0.0;
            case 3: return j == 5 ? 0.0 : 2.0;
            default: return 0.25 + static_cast<double>(i + j);
          }
        };
        auto fillx = [with_inf](std::int64_t j) -> double {
          if (j == 3 && with_inf) return INFINITY;
          return j == 5 ? 1.5 : 0.0;  // x_5 nonzero: rows of zeros still give zero products
        };
        for (double alpha : {1.0, -0.75})
          for (double beta : {0.0, -0.0, 1.0 / 3.0, -1.0})
            check_gemv(gemv_case{lay, t, m, n, lda, 1, 1, alpha, beta}, fill, fillx,
                       {0.0, -0.0, 0x1.5555555555555p-1000, 3.0, -0x1p-1070}, "zero rows");
      }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(trsv_fast_path)

namespace {

using exala::diag;
using exala::layout;
using exala::transpose;
using exala::uplo;

// Every element of the solution against reference, fast-path backends x
// kernel sets x modes x block sizes.
void check_trsv(layout lay, uplo ul, transpose t, diag dg, std::int64_t n, const std::vector<double>& a,
                std::int64_t lda, const std::vector<double>& b, std::int64_t incx, const char* what) {
  std::vector<double> x0(static_cast<std::size_t>(1 + (n - 1) * std::abs(incx)), std::nan(""));
  for (std::int64_t i = 0; i < n; ++i) x0[exala::detail::vector_offset(i, n, incx)] = b[i];
  for (rounding md : all_modes) {
    std::vector<double> want = x0;
    exala::trsv(lay, ul, t, dg, n, a.data(), lda, want.data(), incx, exala::exec{backend::reference, 0, md});
    for (kernel_set k : kernel_sets()) {
      exala::force_kernel_set(k);
      for (backend bk : {backend::simd, backend::omp})
        for (std::int64_t block : {0, 1, 5}) {
          if (!exala::is_compiled_in(bk)) continue;
          std::vector<double> got = x0;
          exala::exec ex{bk, 0, md};
          ex.block = block;
          exala::trsv(lay, ul, t, dg, n, a.data(), lda, got.data(), incx, ex);
          for (std::size_t i = 0; i < got.size(); ++i)
            if (!same_bits(got[i], want[i])) {
              BOOST_ERROR(what << ": " << exala::to_string(k) << " " << exala::to_string(bk) << " block "
                               << block << (lay == layout::row_major ? " row" : " col")
                               << (ul == uplo::lower ? " L" : " U") << (t == transpose::none ? "N" : "T")
                               << (dg == diag::unit ? "U" : "N") << " n = " << n << " " << name(md)
                               << " x[" << i << "] = " << hex(got[i]) << ", reference " << hex(want[i]));
              break;
            }
        }
    }
  }
}

}  // namespace

// Random well-conditioned systems, every variant, sizes around the lane and
// row blocks; and systems built so that some solutions are exact small
// integers (x = 1, 2, ...: directed modes cannot decide them from a bound
// when they are exact) or midpoints (b_i = d_i (1 + 2^-53) exactly with
// d_i = 2: the quotient is the midpoint 1 + 2^-53).
BOOST_AUTO_TEST_CASE(every_variant_and_ties) {
  restore_kernel_set restore;
  rng_t r(8);
  for (layout lay : {layout::row_major, layout::col_major})
    for (uplo ul : {uplo::lower, uplo::upper})
      for (transpose t : {transpose::none, transpose::trans})
        for (diag dg : {diag::non_unit, diag::unit})
          for (std::int64_t n : {1, 7, 9, 17, 40}) {
            const std::int64_t lda = n + 1;
            std::vector<double> a(static_cast<std::size_t>(lda * n), std::nan(""));
            for (std::int64_t i = 0; i < n; ++i)
              for (std::int64_t j = 0; j < n; ++j) a[i * lda + j] = i == j ? 2.0 + uniform(r) * 0.5 : uniform(r) / n;
            std::vector<double> b(n);
            for (double& v : b) v = uniform(r);
            check_trsv(lay, ul, t, dg, n, a, lda, b, n % 2 ? 1 : -2, "random");
            // Exact and midpoint solutions: op(A) has 3 on the diagonal and
            // -5 * 2^-53 in the first solved column, b_first = 3 and the
            // other b = 3 + 2^-51, so the first x is 1 and every other
            // numerator is 3 + 9 * 2^-53: x = 1 + 3 * 2^-53, the midpoint of
            // 1 + 2^-52 and 1 + 2^-51 (nearest must fall back, and ties go to
            // 1 + 2^-51 only with the first x's product counted).
            const bool fwd = (ul == uplo::lower) == (t == transpose::none);
            const std::int64_t first = fwd ? 0 : n - 1;
            std::vector<double> z(static_cast<std::size_t>(lda * n), 0.0);
            auto put = [&](std::int64_t i, std::int64_t j, double v) {  // op(A)(i, j) = v
              const std::int64_t rr = t == transpose::none ? i : j, qq = t == transpose::none ? j : i;
              z[static_cast<std::size_t>(lay == layout::row_major ? rr * lda + qq : qq * lda + rr)] = v;
            };
            for (std::int64_t i = 0; i < n; ++i) {
              put(i, i, 3.0);
              if (i != first) put(i, first, -5.0 * 0x1p-53);
              b[i] = i == first ? 3.0 : 3.0 + 0x1p-51;
            }
            check_trsv(lay, ul, t, dg, n, z, lda, b, 1, "ties");
          }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(small_gemm)

using exala::layout;
using exala::transpose;

// C = alpha A B + beta C where some rows of entries are midpoints (1 + 2^-53,
// scaled): those are formed exactly (counted in last_gemm_path) while the
// others are decided; with every other row a tie the path retreats to the
// CRT engine, restoring C first when beta != 0. Every entry has the
// reference's bits, below and above the size limit.
BOOST_AUTO_TEST_CASE(ties_fall_back_per_entry) {
  restore_kernel_set restore;
  rng_t r(9);
  for (layout lay : {layout::row_major, layout::col_major})
    for (transpose ta : {transpose::none, transpose::trans})
      for (transpose tb : {transpose::none, transpose::trans})
        for (int tie_every : {2, 40})
          for (double beta : {0.0, 0.75}) {
            const std::int64_t m = 80, n = 5, k = 40;
            // Logical op(A) (m x k) and op(B) (k x n), stored per layout/transpose.
            std::vector<double> opa(m * k), opb(k * n);
            for (std::int64_t i = 0; i < m; ++i)
              for (std::int64_t l = 0; l < k; ++l)
                // (random_exp rather than uniform: sums of uniform(-1, 1)
                // doubles, multiples of 2^-53, are themselves midpoints about
                // half the time, and the path would retreat on them)
                opa[i * k + l] = i % tie_every == 0 ? (l == 0 ? 1.0 : (l == 1 ? 0x1p-53 : 0.0)) : random_exp(r, -30, 0);
            for (double& v : opb) v = 1.0;
            auto store = [&](const std::vector<double>& op, std::int64_t rows, std::int64_t cols, transpose t,
                             std::int64_t& ld) {
              const bool tr = t == transpose::trans;
              const std::int64_t rs = tr ? cols : rows, cs = tr ? rows : cols;
              ld = lay == layout::row_major ? cs : rs;
              std::vector<double> st(static_cast<std::size_t>(rs * cs));
              for (std::int64_t i = 0; i < rs; ++i)
                for (std::int64_t j = 0; j < cs; ++j) {
                  const double v = tr ? op[j * cols + i] : op[i * cols + j];
                  st[static_cast<std::size_t>(lay == layout::row_major ? i * ld + j : j * ld + i)] = v;
                }
              return st;
            };
            std::int64_t lda, ldb;
            const auto a = store(opa, m, k, ta, lda), b = store(opb, k, n, tb, ldb);
            const std::int64_t ldc = lay == layout::row_major ? n : m;
            std::vector<double> c0(m * n);
            for (double& v : c0) v = beta == 0.0 ? std::nan("") : 0x1p-60 * uniform(r);
            for (rounding md : all_modes)
              for (std::int64_t limit : {std::int64_t{1} << 21, std::int64_t{0}}) {
                const std::int64_t old = exala::detail::set_small_gemm_limit(limit);
                std::vector<double> want = c0, got = c0;
                exala::gemm(lay, ta, tb, m, n, k, 1.0, a.data(), lda, b.data(), ldb, beta, want.data(), ldc,
                            exala::exec{backend::reference, 0, md});
                exala::gemm(lay, ta, tb, m, n, k, 1.0, a.data(), lda, b.data(), ldb, beta, got.data(), ldc,
                            exala::exec{backend::simd, 0, md});
                const auto path = exala::detail::last_gemm_path();
                exala::detail::set_small_gemm_limit(old);
                for (std::size_t e = 0; e < got.size(); ++e)
                  BOOST_TEST(same_bits(got[e], want[e]), "entry " << e << " " << name(md) << " limit " << limit
                                                                  << " tie_every " << tie_every << " beta " << beta);
                // 2 tie rows of 5 entries stay on the small path (at most
                // m n / 16 = 25 exact entries); 40 tie rows make it retreat.
                if (limit > 0 && tie_every == 40 && beta == 0.0 && md == rounding::to_nearest_even &&
                    !simd_sets().empty())
                  BOOST_TEST((path.exact_dot_entries >= 2 * n && path.moduli == 0),
                             "ties formed exactly: " << path.exact_dot_entries << ", moduli " << path.moduli);
              }
          }
}

// Rank-1 updates (k = 1, beta = 1: dger) take one vector pass per column
// (rank1_nearest) and leave what its bound cannot decide to the scalar
// paths: ties (c + alpha x y exactly a midpoint), exact results, signed
// zeros, rows whose alpha x_i cannot be split exactly (tiny or huge x_i),
// zero and special y_j, subnormal and overflowing results; every layout
// and transpose, lengths around the vector width, all modes, against the
// reference.
BOOST_AUTO_TEST_CASE(rank1_updates) {
  restore_kernel_set restore;
  rng_t r(11);
  for (layout lay : {layout::col_major, layout::row_major})
    for (transpose ta : {transpose::none, transpose::trans})
      for (transpose tb : {transpose::none, transpose::trans})
        for (std::int64_t m : {1, 3, 4, 9, 37})
          for (int kind = 0; kind < 6; ++kind) {
            const std::int64_t n = 6;
            std::vector<double> x(m), y(n);
            for (std::int64_t i = 0; i < m; ++i) {
              switch (kind) {
                case 0: x[i] = uniform(r); break;
                case 1: x[i] = i % 3 == 0 ? 0x1p-53 : (i % 3 == 1 ? -0.0 : 1.0); break;  // ties, zeros
                case 2: x[i] = i % 4 == 0 ? 0x1p-1000 : (i % 4 == 1 ? 0x1p1000 : random_exp(r, -30, 30)); break;
                case 3: x[i] = i == 1 ? INFINITY : (i == 2 ? NAN : random_exp(r, -1074, -1020)); break;
                case 4: x[i] = i % 2 ? 0x1p-972 : random_exp(r, -975, -965); break;  // LAPACK's scaled tests
                default: x[i] = random_exp(r, -545, -535); break;                     // results near 2^-1022
              }
            }
            for (std::int64_t j = 0; j < n; ++j)
              y[j] = j == 0 ? 0.0 : (j == 1 ? -1.0 : (kind == 1 ? 1.0 : (kind == 5 ? random_exp(r, -485, -478) : random_exp(r, -20, 20))));
            // C: ones (the tie partner of 2^-53), signed zeros, randoms, near the top.
            const std::int64_t ldc = (lay == layout::col_major ? m : n) + 2;
            std::vector<double> c0(static_cast<std::size_t>(ldc * (lay == layout::col_major ? n : m)), 7.0);
            for (std::int64_t i = 0; i < m; ++i)
              for (std::int64_t j = 0; j < n; ++j) {
                const std::size_t at = static_cast<std::size_t>(lay == layout::col_major ? i + j * ldc : i * ldc + j);
                if (kind == 4)  // exact cancellations for alpha = 1 (x_i a power of two), else tiny values
                  c0[at] = (i % 2 && (i + j) % 3) ? -(x[i] * y[j]) : random_exp(r, -1000, -960);
                else if (kind == 5)
                  c0[at] = random_exp(r, -1023, -1019);
                else
                  c0[at] = kind == 1 ? ((i + j) % 2 ? 1.0 : -0.0) : ((i + j) % 5 == 0 ? 0x1.fffffffffffffp1023 : uniform(r));
              }
            // op(A) is m x 1 (x), op(B) is 1 x n (y^T), stored per layout and transpose.
            const std::int64_t lda = lay == layout::col_major ? (ta == transpose::none ? m : 1) : (ta == transpose::none ? 1 : m);
            const std::int64_t ldb = lay == layout::col_major ? (tb == transpose::none ? 1 : n) : (tb == transpose::none ? n : 1);
            for (double alpha : {1.0, -0x1.3p-3, 3.0})
              for (rounding md : all_modes) {
                std::vector<double> want = c0, got = c0;
                exala::gemm(lay, ta, tb, m, n, 1, alpha, x.data(), lda, y.data(), ldb, 1.0, want.data(), ldc,
                            exala::exec{backend::reference, 0, md});
                exala::gemm(lay, ta, tb, m, n, 1, alpha, x.data(), lda, y.data(), ldb, 1.0, got.data(), ldc,
                            exala::exec{backend::simd, 0, md});
                for (std::size_t e = 0; e < got.size(); ++e)
                  if (!same_bits(got[e], want[e])) {
                    BOOST_ERROR("rank-1 kind " << kind << " m = " << m << " alpha " << alpha << " " << name(md)
                                               << " entry " << e << ": " << hex(got[e]) << " vs " << hex(want[e]));
                    break;
                  }
              }
          }
}

// Products with k = 2, alpha = 1, beta = 0 (drot: [x y] times a rotation)
// take one vector pass per column (two_products_nearest); ties, exact
// cancellations, zero factors b (a rotation with s = 0), a zero facing an
// infinity, products below the TwoProd range and subnormal results go to the
// scalar paths. All modes (the pass runs to nearest only), against the
// reference.
BOOST_AUTO_TEST_CASE(two_term_products) {
  restore_kernel_set restore;
  rng_t r(12);
  for (std::int64_t m : {1, 4, 7, 33})
    for (int kind = 0; kind < 5; ++kind)
      for (int bk = 0; bk < 3; ++bk) {
        std::vector<double> a(static_cast<std::size_t>(2 * m));  // column-major m x 2: x | y
        for (std::int64_t i = 0; i < m; ++i) {
          double& x = a[i];
          double& y = a[m + i];
          switch (kind) {
            case 0: x = uniform(r), y = uniform(r); break;
            case 1: x = i % 2 ? 1.0 : 0.75, y = i % 3 ? 0x1p-53 : -x; break;             // ties, cancellations
            case 2: x = i == 0 ? INFINITY : uniform(r), y = i == 1 ? NAN : (i == 2 ? -0.0 : uniform(r)); break;
            case 3: x = random_exp(r, -540, -530), y = random_exp(r, -540, -530); break;  // products near 2^-1070
            default: x = random_exp(r, -30, 30), y = random_exp(r, -30, 30); break;
          }
        }
        // B (2 x 2, column-major): a rotation, one with s = 0, or randoms.
        const double cs = 0.6, sn = 0.8;
        std::vector<double> b = bk == 0 ? std::vector<double>{cs, sn, -sn, cs}
                                : bk == 1 ? std::vector<double>{1.0, 0.0, -0.0, 1.0}
                                          : std::vector<double>{random_exp(r, -5, 5), random_exp(r, -540, -530),
                                                                random_exp(r, -5, 5), 1.0};
        if (kind == 3 && bk == 2) b = {random_exp(r, -540, -530), random_exp(r, -540, -530), 1.0, 1.0};
        for (rounding md : all_modes) {
          std::vector<double> want(static_cast<std::size_t>(2 * m), 5.0), got = want;
          exala::gemm(layout::col_major, transpose::none, transpose::none, m, 2, 2, 1.0, a.data(), m, b.data(), 2,
                      0.0, want.data(), m, exala::exec{backend::reference, 0, md});
          exala::gemm(layout::col_major, transpose::none, transpose::none, m, 2, 2, 1.0, a.data(), m, b.data(), 2,
                      0.0, got.data(), m, exala::exec{backend::simd, 0, md});
          for (std::size_t e = 0; e < got.size(); ++e)
            if (!same_bits(got[e], want[e])) {
              BOOST_ERROR("two terms kind " << kind << " b " << bk << " m = " << m << " " << name(md) << " entry "
                                            << e << ": " << hex(got[e]) << " vs " << hex(want[e]));
              break;
            }
        }
      }
}

// Entries whose products are all exact zeros (triangular factors: the
// entries below a triangle's product, and a signed-zero row) are finished
// without an accumulator: every sign rule (+0 / -0 products, alpha < 0,
// beta = 0, -0, or nonzero with c = +-0 or nonzero, every rounding mode)
// must give the reference's bits, and the path must not retreat. A zero
// factor whose partner is infinite (0 inf = NaN) is not a zero entry.
BOOST_AUTO_TEST_CASE(zero_entries_without_accumulator) {
  restore_kernel_set restore;
  rng_t r(10);
  const std::int64_t m = 24, n = 24, k = 24;
  for (int variant = 0; variant < 3; ++variant)
    for (double alpha : {1.0, -0.75})
      for (double beta : {0.0, -0.0, 1.5}) {
        // op(A) upper triangular, op(B) upper triangular: (A B)_ij = 0 for
        // i > j exactly; row 3 of A is all signed zeros.
        std::vector<double> a(m * k), b(k * n), c0(m * n);
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t l = 0; l < k; ++l)
            a[i + l * m] = l >= i ? random_exp(r, -20, 20) : ((i + l) % 3 == 0 ? -0.0 : 0.0);
        for (std::int64_t l = 0; l < k; ++l)
          for (std::int64_t j = 0; j < n; ++j)
            b[l + j * k] = l <= j ? random_exp(r, -20, 20) : (l % 2 ? -0.0 : 0.0);
        for (std::int64_t l = 0; l < k; ++l) a[3 + l * m] = (l % 2) ? -0.0 : 0.0;
        if (variant == 1) b[5 + 0 * k] = INFINITY;  // column 0: 0 * inf in rows i > 5
        for (std::size_t e = 0; e < c0.size(); ++e)
          c0[e] = variant == 2 ? ((e % 2) ? -0.0 : 0.0) : (e % 3 == 0 ? -0.0 : random_exp(r, -5, 5));
        for (rounding md : all_modes) {
          std::vector<double> want = c0, got = c0;
          exala::gemm(layout::col_major, transpose::none, transpose::none, m, n, k, alpha, a.data(), m, b.data(), k,
                      beta, want.data(), m, exala::exec{backend::reference, 0, md});
          exala::gemm(layout::col_major, transpose::none, transpose::none, m, n, k, alpha, a.data(), m, b.data(), k,
                      beta, got.data(), m, exala::exec{backend::simd, 0, md});
          const auto path = exala::detail::last_gemm_path();
          for (std::size_t e = 0; e < got.size(); ++e)
            BOOST_TEST(same_bits(got[e], want[e]), "entry (" << e % m << ", " << e / m << ") variant " << variant
                                                             << " alpha " << alpha << " beta " << hex(beta) << " "
                                                             << name(md) << ": " << hex(got[e]) << " vs "
                                                             << hex(want[e]));
          // (With beta c nonzero most zero entries are decided by the bound
          // already; with beta = 0 all of the i > j ones reach zero_entry.)
          if (!simd_sets().empty())
            BOOST_TEST((path.moduli == 0 && (beta != 0.0 || variant == 1 || path.zero_entries >= m * (m - 1) / 2)),
                       "zero entries " << path.zero_entries << ", moduli " << path.moduli);
        }
      }
}

BOOST_AUTO_TEST_SUITE_END()

// nrm2's fast path: the short dot's bound on sum x_i^2, then the rounded
// square root decided by round_bounded_sqrt.
BOOST_AUTO_TEST_SUITE(nrm2_fast_path)

// Values near squares of doubles and of midpoints between doubles (the
// rounding boundaries of sqrt to nearest), with errors from 0 up to far
// beyond an ulp: every decision is checked against the exact square root
// of both ends of the interval (round_sqrt is monotone).
BOOST_AUTO_TEST_CASE(round_bounded_sqrt_is_sound) {
  rng_t r(81);
  long decided = 0, total = 0;
  for (int t = 0; t < 40000; ++t) {
    double m = std::fabs(random_exp(r, -440, 490));
    if (t % 5 == 0) m = std::ldexp(1.0, std::ilogb(m));  // a power of two: the gap below is half
    // A 27-bit m: (m + ulp(m)/2)^2 (f = 1/2 below) is then exactly hi + lo,
    // and its square root exactly a midpoint.
    if (t % 3 == 1 && t % 2 == 0) m = std::ldexp(std::ldexp(std::floor(std::ldexp(m, -std::ilogb(m) + 26)), -26), std::ilogb(m));
    const int e = std::ilogb(m);
    // s = (m + f ulp(m))^2 as hi + lo, f in {0, 1/2, random}: TwoProd of m
    // plus the cross term.
    const double f = t % 3 == 0 ? 0.0 : (t % 3 == 1 ? 0.5 : uniform(r));
    const double h = std::ldexp(f, e - 52);  // f ulp(m), exact
    exala::superaccumulator a;
    a.add_product(m, m);
    a.add_product(2.0 * m, h);
    a.add_product(h, h);
    const double hi0 = a.round();
    exala::superaccumulator rest = a;
    rest.add(-hi0);
    const double lo0 = rest.round();
    const double hi = hi0 + lo0, lo = lo0 - (hi - hi0);  // FastTwoSum: hi = fl(hi + lo)
    const double err = t % 7 == 0 ? 0.0 : std::ldexp(std::fabs(uniform(r)), 2 * e - 53 - static_cast<int>(r() % 70));
    for (rounding md : all_modes) {
      ++total;
      double got = 0.0;
      if (!exala::detail::round_bounded_sqrt(exala::detail::bounded{hi, lo, err}, md, got)) continue;
      ++decided;
      for (int sg : {-1, 1}) {
        exala::superaccumulator v;
        v.add(hi);
        v.add(lo);
        v.add(sg * err);
        const double want = v.round_sqrt(md);
        BOOST_TEST(same_bits(got, want), "sqrt(" << hex(hi) << " + " << hex(lo) << " +- " << hex(err) << ") "
                                                << name(md) << ": decided " << hex(got) << ", end "
                                                << sg << " rounds to " << hex(want));
      }
    }
  }
  BOOST_TEST_MESSAGE("round_bounded_sqrt decided " << decided << " of " << total);
  BOOST_TEST(decided > total / 4);
}

BOOST_AUTO_TEST_CASE(refuses_what_it_leaves_to_the_exact_path) {
  double got;
  using exala::detail::bounded;
  for (rounding m : all_modes) {
    BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{0.0, 0.0, 0.0}, m, got));
    BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{0x1p-901, 0.0, 0.0}, m, got));
    BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{0x1p1001, 0.0, 0.0}, m, got));
    BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{-1.0, 0.0, 0.0}, m, got));
    BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{1.0, 0.0, NAN}, m, got));
    BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{NAN, 0.0, 0.0}, m, got));
    BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{1.0, 0x1p-40, 0.0}, m, got));  // lo too large
  }
  // An exact square: to nearest it is decided, in a directed mode the
  // interval around it straddles the result and is not.
  BOOST_TEST(exala::detail::round_bounded_sqrt(bounded{25.0, 0.0, 0x1p-1000}, rounding::to_nearest_even, got));
  BOOST_TEST(got == 5.0);
  BOOST_TEST(!exala::detail::round_bounded_sqrt(bounded{25.0, 0.0, 0x1p-1000}, rounding::upward, got));
}

// exala::nrm2 on simd and omp against the reference: lengths around the
// short path's limits, strides, and data where the decision must fall back
// (an exact square root in a directed mode; sqrt exactly at a midpoint:
// 1 + 2^-52 + 2^-106 = (1 + 2^-53)^2; squares that underflow or overflow;
// zeros and specials).
BOOST_AUTO_TEST_CASE(against_the_reference) {
  restore_kernel_set restore;
  rng_t r(82);
  for (kernel_set k : kernel_sets()) {
    exala::force_kernel_set(k);
    for (std::int64_t n : {1, 2, 3, 7, 8, 15, 16, 17, 64, 255, 256, 257, 4095, 4096, 4097})
      for (std::int64_t inc : {1, -1, 2, -3})
        for (int kind = 0; kind < 7; ++kind) {
          std::vector<double> x(static_cast<std::size_t>(1 + (n - 1) * std::abs(inc)), 0.0);
          for (std::int64_t i = 0; i < n; ++i) {
            double v = 0.0;
            switch (kind) {
              case 0: v = uniform(r); break;
              case 1: v = random_exp(r, -200, 200); break;
              case 2: v = i == 0 ? 3.0 : (i == 1 ? 4.0 : 0.0); break;                // 5 exactly
              case 3: v = i == 0 ? 0x1p+300 : (i == 1 ? 0x1p+274 : (i == 2 ? 0x1p+247 : 0.0)); break;  // a midpoint
              case 4: v = random_exp(r, -620, -560); break;                          // squares below 2^-900
              case 5: v = random_exp(r, 505, 530); break;                            // squares overflow
              case 6: v = i == n / 2 ? (r() & 1 ? NAN : -INFINITY) : uniform(r); break;
            }
            x[exala::detail::vector_offset(i, n, inc)] = v;
          }
          for (rounding m : all_modes) {
            const double want = exala::nrm2(n, x.data(), inc, exala::exec{backend::reference, 0, m});
            for (backend b : {backend::simd, backend::omp}) {
              if (!exala::is_compiled_in(b)) continue;
              const double got = exala::nrm2(n, x.data(), inc, exala::exec{b, 0, m});
              BOOST_TEST(same_bits(got, want), exala::to_string(k) << " " << exala::to_string(b) << " nrm2 n = " << n
                                                                    << " inc " << inc << " kind " << kind << " "
                                                                    << name(m) << ": " << hex(got) << " vs "
                                                                    << hex(want));
            }
          }
        }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// The long kernels (n above the short path's limit) take the exponent bins
// for blocks whose terms spread over more binades than the expansions
// hold. `spreaders` puts +-2^k pairs (they cancel) every 8th term, so each
// block is wide and the other terms go through the bins.
BOOST_AUTO_TEST_SUITE(wide_bins)

namespace {

// (An unpaired last spreader is left out: the spreaders must cancel, or
// they would swamp every error in the other terms.)
std::vector<double> spread(std::size_t n, int k, rng_t& r, double (*term)(rng_t&, std::size_t)) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool plus = (i / 8) % 2 == 0;
    x[i] = i % 8 != 0 ? term(r, i) : (plus && i + 8 >= n ? 0.0 : std::ldexp(plus ? 1.0 : -1.0, k));
  }
  return x;
}

// sum, asum and (with y) dot under every simd set, simd and omp, every
// rounding mode, against the reference backend.
void check_all(const std::vector<double>& x, const std::vector<double>* y, const char* what) {
  restore_kernel_set restore;
  const auto n = static_cast<std::int64_t>(x.size());
  for (kernel_set k : simd_sets()) {
    exala::force_kernel_set(k);
    for (rounding m : all_modes) {
      const exala::exec ref{backend::reference, 0, m};
      const double ws = exala::sum(n, x.data(), 1, ref), wa = exala::asum(n, x.data(), 1, ref);
      const double wd = y ? exala::dot(n, x.data(), 1, y->data(), 1, ref) : 0.0;
      for (backend b : {backend::simd, backend::omp}) {
        if (!exala::is_compiled_in(b)) continue;
        const exala::exec ex{b, 2, m};
        std::string where = what;
        where.append(" ").append(exala::to_string(k)).append(" ").append(exala::to_string(b));
        where.append(" ").append(name(m)).append(" n = ").append(std::to_string(n));
        BOOST_TEST(same_bits(exala::sum(n, x.data(), 1, ex), ws), where << " sum");
        BOOST_TEST(same_bits(exala::asum(n, x.data(), 1, ex), wa), where << " asum");
        if (y) BOOST_TEST(same_bits(exala::dot(n, x.data(), 1, y->data(), 1, ex), wd), where << " dot");
      }
    }
  }
}

}  // namespace

// 7 * 4096 terms of one value in one bin: its value below 2^56 (the largest
// significand, shifted by 2) carries out of the 64-bit bin every 2^9 adds or
// so. Against the reference, and against the exact value: the sum is
// 28672 c = 2^12 (7 c), and fl(7 c) is IEEE's correctly rounded product.
BOOST_AUTO_TEST_CASE(one_bin_carries) {
  rng_t r(71);
  for (double c : {0x1.fffffffffffffp+3, -0x1.fffffffffffffp+3, 0x1.fffffffffffffp-1020, 0x0.0000000000003p-1022,
                   -0x0.fffffffffffffp-1022}) {
    auto x = spread(32768, 900, r, +[](rng_t&, std::size_t) { return 0.0; });
    for (std::size_t i = 0; i < x.size(); ++i)
      if (i % 8 != 0) x[i] = c;
    check_all(x, nullptr, "one bin");
    BOOST_TEST(same_bits(exala::sum(static_cast<std::int64_t>(x.size()), x.data(), 1), std::ldexp(7.0 * c, 12)));
  }
}

// Random terms over every binade, subnormals and signed zeros included,
// with the +-2^1000 spreaders (the top bins) or without any (the whole
// range is already wide).
BOOST_AUTO_TEST_CASE(whole_range_subnormals_zeros) {
  rng_t r(72);
  auto any = +[](rng_t& g, std::size_t i) {
    switch (i % 5) {
      case 0: return random_exp(g, -1074, -1023);  // subnormal
      case 1: return (g() & 1) ? 0.0 : -0.0;
      default: return random_any_finite(g);
    }
  };
  for (std::size_t n : {std::size_t{8191}, std::size_t{20001}}) {
    auto x = spread(n, 1000, r, any);
    auto y = spread(n, 0, r, any);
    check_all(x, &y, "whole range");
    std::vector<double> z(n);
    for (std::size_t i = 0; i < n; ++i) z[i] = any(r, i);
    check_all(z, &x, "whole range, no spreaders");
    auto sub = spread(n, 900, r, +[](rng_t& g, std::size_t) { return random_exp(g, -1074, -1000); });
    check_all(sub, &sub, "subnormal and tiny terms");
  }
}

// Products: wide ones (both parts of TwoProd through the bins), tiny ones
// whose TwoProd error would underflow (the scalar path), exact zeros, and
// a run of one product value (carries in the products' bins).
BOOST_AUTO_TEST_CASE(dot_products) {
  rng_t r(73);
  const std::size_t n = 12000;
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 6) {
      case 0: x[i] = std::ldexp(1.0, 450); y[i] = (i / 6) % 2 ? std::ldexp(1.0, 450) : -std::ldexp(1.0, 450); break;
      case 1: x[i] = random_exp(r, -520, -480); y[i] = random_exp(r, -520, -480); break;  // tiny products
      case 2: x[i] = 0.0; y[i] = random_any_finite(r); break;
      case 3: x[i] = 0x1.fffffffffffffp+1; y[i] = 0x1.fffffffffffffp+1; break;  // one value, one bin
      default: x[i] = random_exp(r, -300, 300); y[i] = random_exp(r, -300, 300); break;
    }
  }
  check_all(x, &y, "products");
}

// Past the point where the bins are folded into the superaccumulator in the
// middle of a call (every 2^22 terms of one thread's work).
BOOST_AUTO_TEST_CASE(fold_in_the_middle) {
  rng_t r(74);
  const std::size_t n = (std::size_t{1} << 23) + (std::size_t{1} << 21) + 5;
  auto x = spread(n, 600, r, +[](rng_t& g, std::size_t) { return random_exp(g, -500, 500); });
  std::vector<double> y(n, 1.0);
  restore_kernel_set restore;
  const auto len = static_cast<std::int64_t>(n);
  const exala::exec ref{backend::reference};
  const double ws = exala::sum(len, x.data(), 1, ref), wd = exala::dot(len, x.data(), 1, y.data(), 1, ref);
  for (kernel_set k : simd_sets()) {
    exala::force_kernel_set(k);
    BOOST_TEST(same_bits(exala::sum(len, x.data(), 1, exala::exec{backend::simd}), ws));
    BOOST_TEST(same_bits(exala::dot(len, x.data(), 1, y.data(), 1, exala::exec{backend::simd}), wd));
  }
}

// Long: many lengths and spreads, terms of random binades around a random
// centre (narrow to the whole range), so blocks switch between the
// expansions and the bins within one call.
BOOST_AUTO_TEST_CASE(random_spreads_sweep, *utf::label("long")) {
  rng_t r(75);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 4097 + static_cast<std::size_t>(r() % 60000);
    const int width = std::uniform_int_distribution<int>(1, 2000)(r);
    const int centre = std::uniform_int_distribution<int>(-1074 + width / 2, 1023 - width / 2)(r);
    const int lo = std::max(-1074, centre - width / 2), hi = std::min(1000, centre + width / 2);
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = random_exp(r, lo, hi);
      y[i] = (i % 3 == 0) ? 1.0 : random_exp(r, -20, 20);
    }
    check_all(x, &y, ("sweep width " + std::to_string(width)).c_str());
  }
}

BOOST_AUTO_TEST_SUITE_END()

