// tests/test_exact_ops.cpp - round_axpby and round_div against MPFR and
// exact tables: random and adversarial accumulated values, every rounding
// direction, ties, overflow, underflow, special values and zero signs.
#define BOOST_TEST_MODULE exala_exact_ops
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "exala/exact_ops.hpp"
#include "mpfr_oracle.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala;
using namespace exala_test;

namespace {

constexpr rounding all_modes[] = {rounding::to_nearest_even, rounding::toward_zero,
                                  rounding::upward, rounding::downward};

// One term of an accumulated value: a double or the product of two.
struct term {
  double a, b;
  bool prod;
};

superaccumulator build(const std::vector<term>& ts) {
  superaccumulator s;
  for (const term& t : ts) {
    if (t.prod)
      s.add_product(t.a, t.b);
    else
      s.add(t.a);
  }
  return s;
}

// A random double with exponent in [lo, hi] (subnormals below -1022), random sign.
double rand_double(rng_t& r, int lo, int hi) {
  const int e = std::uniform_int_distribution<int>(lo, hi)(r);
  const double m = std::uniform_real_distribution<double>(1.0, 2.0)(r);
  const double v = e >= -1022 ? std::ldexp(m, e) : std::ldexp(std::floor(std::ldexp(m, 52)), -1074) *
                                                        pow2(e + 1022 > -52 ? e + 1022 : -52);
  return (r() & 1) ? -v : v;
}

// Random accumulated values of several shapes: ordinary sums, wide ranges,
// products near under/overflow, heavy cancellation leaving a tiny rest.
std::vector<term> random_terms(rng_t& r, int shape) {
  std::vector<term> ts;
  const int n = 1 + static_cast<int>(r() % 6);
  for (int i = 0; i < n; ++i) {
    switch (shape) {
      case 0: ts.push_back({rand_double(r, -5, 5), 0, false}); break;
      case 1: ts.push_back({rand_double(r, -1074, 1023), 0, false}); break;
      case 2: ts.push_back({rand_double(r, -1074, 1023), rand_double(r, -1074, 1023), true}); break;
      case 3: {
        const double a = rand_double(r, -40, 40), b = rand_double(r, -40, 40);
        ts.push_back({a, b, true});
        ts.push_back({-a, b, true});
        ts.push_back({rand_double(r, -1074, -1000), rand_double(r, -100, 0), true});
        break;
      }
      default: ts.push_back({rand_double(r, 900, 1023), rand_double(r, 0, 1023), true}); break;
    }
  }
  return ts;
}

#ifdef EXALA_TEST_HAVE_MPFR
// The exact alpha*S + beta*c and S / d, rounded once by MPFR.
void fill(mpfr_exact_sum& s, const std::vector<term>& ts) {
  for (const term& t : ts) {
    if (t.prod)
      s.add_product(t.a, t.b);
    else
      s.add(t.a);
  }
}
double mpfr_axpby(double alpha, const std::vector<term>& ts, double beta, double c, rounding m) {
  mpfr_exact_sum s(m);
  fill(s, ts);
  return mpfr_round_axpby(s.value(), alpha, beta, c, m);
}
double mpfr_quotient(const std::vector<term>& ts, double d, rounding m) {
  mpfr_exact_sum s(m);
  fill(s, ts);
  return mpfr_round_div(s.value(), d, m);
}

double pick_scalar(rng_t& r) {
  switch (r() % 8) {
    case 0: return 0.0;
    case 1: return (r() & 1) ? 1.0 : -1.0;
    case 2: return std::ldexp(1.0, static_cast<int>(r() % 200) - 100);
    case 3: return rand_double(r, -1074, -1000);
    case 4: return rand_double(r, 1000, 1023);
    default: return rand_double(r, -30, 30);
  }
}
#endif

}  // namespace

#ifdef EXALA_TEST_HAVE_MPFR

BOOST_AUTO_TEST_CASE(axpby_random_vs_mpfr) {
  rng_t r(7);
  int bad = 0;
  for (int i = 0; i < 6000 && bad < 10; ++i) {
    const auto ts = random_terms(r, static_cast<int>(i % 5));
    const double alpha = pick_scalar(r), beta = pick_scalar(r);
    const double c = (r() % 3 == 0) ? rand_double(r, -1074, 1023) : rand_double(r, -30, 30);
    const superaccumulator s = build(ts);
    for (rounding m : all_modes) {
      const double got = round_axpby(alpha, s, beta, c, m);
      const double want = mpfr_axpby(alpha, ts, beta, c, m);
      if (!same_bits(got, want)) {
        ++bad;
        BOOST_ERROR("case " << i << " mode " << static_cast<int>(m) << " alpha " << hex(alpha)
                            << " beta " << hex(beta) << " c " << hex(c) << ": got " << hex(got)
                            << " want " << hex(want));
      }
    }
  }
}

// alpha*S alone lands on a midpoint (ties to even), just above, just below,
// and in the subnormal range; beta*c then decides ties.
BOOST_AUTO_TEST_CASE(axpby_ties_vs_mpfr) {
  rng_t r(11);
  int bad = 0;
  for (int i = 0; i < 3000 && bad < 10; ++i) {
    const int e = static_cast<int>(r() % 2100) - 1100;  // of the result
    const double q = rand_double(r, e, e);
    const double alpha = std::ldexp(1.0, static_cast<int>(r() % 60) - 30) * ((r() & 1) ? 3 : 1);
    // S = (q + half ulp(q)) / alpha exactly when alpha is a power of two or
    // three times one (then the midpoint scaled by 1/3 is not exact, which
    // makes a random sticky pattern instead: still a good case).
    int qe = 0;
    std::frexp(q, &qe);
    const int ulp_e = std::max(qe - 53, -1074);
    std::vector<term> ts{{q, 1.0 / alpha, true}, {std::ldexp(1.0, ulp_e - 1) , 1.0 / alpha, true}};
    if (r() % 3 == 0) ts.push_back({std::ldexp(1.0, ulp_e - 60), (r() & 1) ? 1.0 : -1.0, true});
    const double beta = (r() % 2) ? 0.0 : std::ldexp(1.0, ulp_e - 200 + static_cast<int>(r() % 150));
    const double c = (r() & 1) ? 1.0 : -1.0;
    const superaccumulator s = build(ts);
    for (rounding m : all_modes) {
      const double got = round_axpby(alpha, s, beta, c, m);
      const double want = mpfr_axpby(alpha, ts, beta, c, m);
      if (!same_bits(got, want)) {
        ++bad;
        BOOST_ERROR("tie case " << i << " mode " << static_cast<int>(m) << ": got " << hex(got)
                                << " want " << hex(want));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(div_random_vs_mpfr) {
  rng_t r(13);
  int bad = 0;
  for (int i = 0; i < 6000 && bad < 10; ++i) {
    const auto ts = random_terms(r, static_cast<int>(i % 5));
    double d = 0;
    switch (r() % 4) {
      case 0: d = rand_double(r, -3, 3); break;
      case 1: d = rand_double(r, -1074, -1000); break;
      case 2: d = rand_double(r, 1000, 1023); break;
      default: d = rand_double(r, -1074, 1023); break;
    }
    const superaccumulator s = build(ts);
    for (rounding m : all_modes) {
      const double got = round_div(s, d, m);
      const double want = mpfr_quotient(ts, d, m);
      if (!same_bits(got, want)) {
        ++bad;
        BOOST_ERROR("case " << i << " mode " << static_cast<int>(m) << " d " << hex(d) << ": got "
                            << hex(got) << " want " << hex(want));
      }
    }
  }
}

// S = (q + ulp/2) d exactly: a tie of the quotient, with and without a far
// sticky term of either sign, at normal and subnormal q, and exact quotients.
BOOST_AUTO_TEST_CASE(div_ties_and_exact_quotients_vs_mpfr) {
  rng_t r(17);
  int bad = 0;
  for (int i = 0; i < 4000 && bad < 10; ++i) {
    const int e = static_cast<int>(r() % 2140) - 1100;
    const double q = std::fabs(rand_double(r, e, e));
    const double d = rand_double(r, -60, 60);
    int qe = 0;
    std::frexp(q, &qe);
    const int ulp_e = std::max(qe - 53, -1074);
    std::vector<term> ts{{q, d, true}};
    const int kind = static_cast<int>(r() % 4);
    if (kind >= 1) ts.push_back({std::ldexp(1.0, ulp_e - 1) * 0.5, 2.0 * d, true});
    if (kind == 2) ts.push_back({std::ldexp(1.0, -1074), 0x1p-1000, true});
    if (kind == 3) ts.push_back({-std::ldexp(1.0, -1074), 0x1p-1000, true});
    const superaccumulator s = build(ts);
    for (rounding m : all_modes) {
      const double got = round_div(s, d, m);
      const double want = mpfr_quotient(ts, d, m);
      if (!same_bits(got, want)) {
        ++bad;
        BOOST_ERROR("tie case " << i << " kind " << kind << " mode " << static_cast<int>(m)
                                << " q " << hex(q) << " d " << hex(d) << ": got " << hex(got)
                                << " want " << hex(want));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(long_random_vs_mpfr, *utf::label("long")) {
  rng_t r(19);
  int bad = 0;
  for (int i = 0; i < 200000 && bad < 10; ++i) {
    const auto ts = random_terms(r, static_cast<int>(i % 5));
    const double alpha = pick_scalar(r), beta = pick_scalar(r), c = rand_double(r, -1074, 1023);
    const double d = rand_double(r, -1074, 1023);
    const superaccumulator s = build(ts);
    const rounding m = all_modes[i % 4];
    if (!same_bits(round_axpby(alpha, s, beta, c, m), mpfr_axpby(alpha, ts, beta, c, m)) ||
        !same_bits(round_div(s, d, m), mpfr_quotient(ts, d, m))) {
      ++bad;
      BOOST_ERROR("long case " << i);
    }
  }
}

#endif  // EXALA_TEST_HAVE_MPFR

// Exact tables (no oracle needed): special values and signs of zero.
BOOST_AUTO_TEST_CASE(axpby_special_values_and_zero_signs) {
  superaccumulator one;
  one.add(1.0);
  superaccumulator pinf;
  pinf.add(inf);
  superaccumulator nan_acc;
  nan_acc.add(qnan);
  superaccumulator negzero;
  negzero.add(-0.0);
  superaccumulator empty;
  const auto RN = rounding::to_nearest_even, RD = rounding::downward;
  BOOST_TEST(std::isnan(round_axpby(0.0, pinf, 1.0, 1.0)));      // 0 * inf
  BOOST_TEST(std::isnan(round_axpby(inf, empty, 1.0, 1.0)));     // inf * 0
  BOOST_TEST(std::isnan(round_axpby(1.0, nan_acc, 0.0, 1.0)));   // NaN in S
  BOOST_TEST(std::isnan(round_axpby(1.0, one, qnan, 1.0)));      // NaN beta
  BOOST_TEST(std::isnan(round_axpby(1.0, pinf, 1.0, -inf)));     // inf - inf
  BOOST_TEST(same_bits(round_axpby(-2.0, pinf, 1.0, 5.0), -inf));
  BOOST_TEST(same_bits(round_axpby(inf, one, 1.0, 5.0), inf));
  BOOST_TEST(same_bits(round_axpby(1.0, one, 0.0, inf), qnan));  // 0 * inf in beta*c
  // Overflowing terms that cancel stay exact: 2^1000 * S - 2^1023 * 2^977.
  superaccumulator big;
  big.add(0x1p1000);
  BOOST_TEST(same_bits(round_axpby(0x1p1000, big, -0x1p1023, 0x1p977), 0.0));
  BOOST_TEST(same_bits(round_axpby(0x1p1000, big, -0x1p1023, 0x1p976), dmax * 0 + inf));
  // Zero signs: -0 * +0 + (+0)*(+0) -> +0; -0 + -0 -> -0; x - x -> +0 or -0 downward.
  BOOST_TEST(same_bits(round_axpby(1.0, negzero, 1.0, -0.0), -0.0));
  BOOST_TEST(same_bits(round_axpby(-1.0, negzero, 1.0, 0.0), 0.0));
  BOOST_TEST(same_bits(round_axpby(1.0, negzero, 1.0, 0.0, RD), -0.0));
  BOOST_TEST(same_bits(round_axpby(1.0, one, -1.0, 1.0, RN), 0.0));
  BOOST_TEST(same_bits(round_axpby(1.0, one, -1.0, 1.0, RD), -0.0));
  BOOST_TEST(same_bits(round_axpby(-0.0, one, -1.0, 0.0), -0.0));
  // The wide range: alpha * S below 2^-2176 and above 2^2176 before scaling back.
  superaccumulator tiny;
  tiny.add_product(0x1p-1074, 0x1p-1074);  // 2^-2148
  BOOST_TEST(same_bits(round_axpby(0x1p1023, tiny, 0.0, 0.0), 0.0));
  BOOST_TEST(same_bits(round_axpby(0x1p1023, tiny, 0.0, 0.0, rounding::upward), 0x1p-1074));
  BOOST_TEST(same_bits(round_axpby(0x1p-1074, big, 1.0, 0.0), 0x1p-74));
  superaccumulator huge;
  huge.add_product(0x1p1023, 0x1p1023);
  BOOST_TEST(same_bits(round_axpby(0x1p-1074, huge, 0.0, 0.0), 0x1p972));
  BOOST_TEST(same_bits(round_axpby(0x1p-1000, huge, 0.0, 0.0), inf));
  BOOST_TEST(same_bits(round_axpby(0x1p-1000, huge, 0.0, 0.0, rounding::toward_zero), dmax));
}

BOOST_AUTO_TEST_CASE(div_special_values_and_range) {
  superaccumulator one;
  one.add(1.0);
  superaccumulator zero;
  zero.add(0.0);
  superaccumulator negzero;
  negzero.add(-0.0);
  superaccumulator pinf;
  pinf.add(inf);
  BOOST_TEST(same_bits(round_div(one, 0.0), inf));
  BOOST_TEST(same_bits(round_div(one, -0.0), -inf));
  BOOST_TEST(std::isnan(round_div(zero, 0.0)));
  BOOST_TEST(std::isnan(round_div(pinf, inf)));
  BOOST_TEST(same_bits(round_div(pinf, -2.0), -inf));
  BOOST_TEST(same_bits(round_div(one, -inf), -0.0));
  BOOST_TEST(same_bits(round_div(negzero, 3.0), -0.0));
  BOOST_TEST(same_bits(round_div(zero, -3.0), -0.0));
  BOOST_TEST(std::isnan(round_div(one, qnan)));
  BOOST_TEST(same_bits(round_div(one, 3.0), 1.0 / 3.0));
  BOOST_TEST(same_bits(round_div(one, 3.0, rounding::upward), std::nextafter(1.0 / 3.0, 1.0)));
  // Quotients beyond the double range and below it.
  superaccumulator huge;
  huge.add_product(0x1p1023, 0x1p1023);  // 2^2046
  BOOST_TEST(same_bits(round_div(huge, 0x1p1023), 0x1p1023));
  BOOST_TEST(same_bits(round_div(huge, 0x1p1022), inf));
  BOOST_TEST(same_bits(round_div(huge, 0x1p1022, rounding::toward_zero), dmax));
  BOOST_TEST(same_bits(round_div(huge, -0x1p1022, rounding::upward), -dmax));
  superaccumulator tiny;
  tiny.add_product(0x1p-1074, 0x1p-1074);  // 2^-2148
  BOOST_TEST(same_bits(round_div(tiny, 0x1p-1074), 0x1p-1074));
  BOOST_TEST(same_bits(round_div(tiny, 0x1p-1073), 0.0));  // exactly half the least: tie to even 0
  BOOST_TEST(same_bits(round_div(tiny, 0x1p-1073, rounding::upward), 0x1p-1074));
  BOOST_TEST(same_bits(round_div(tiny, -0x1p-1073, rounding::downward), -0x1p-1074));
  BOOST_TEST(same_bits(round_div(tiny, -0x1p-1073), -0.0));
}
