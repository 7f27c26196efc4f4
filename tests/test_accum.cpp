// tests/test_accum.cpp - the accumulation layer: superaccumulator, rounding,
// merge, serialization, fpe<N> and multilevel_accumulator<N>.
//
// Three kinds of oracle, none of them floating-point arithmetic:
//  * exact tables written by hand (ties, sticky bits, every binade,
//    overflow, underflow, special values, signed zeros, four directions);
//  * the integer oracle (tests/exact_fixed.hpp): the value held by an
//    accumulator (its digits) must equal the exact sum of the terms;
//  * MPFR (tests/mpfr_oracle.hpp), when the build found it: random and
//    adversarial term lists rounded bit for bit in all four directions. The
//    MPFR cases are compiled out without MPFR; everything else still runs.
#define BOOST_TEST_MODULE exala_accum
#include <boost/test/unit_test.hpp>

#include <array>
#include <cfloat>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

#include "exact_fixed.hpp"
#include "exala/error.hpp"
#include "exala/fpe.hpp"
#include "exala/rounding.hpp"
#include "exala/superaccumulator.hpp"
#include "mpfr_oracle.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala_test;
using exala::rounding;
using exala::superaccumulator;

namespace {

constexpr rounding RN = rounding::to_nearest_even;
constexpr rounding RZ = rounding::toward_zero;
constexpr rounding RU = rounding::upward;
constexpr rounding RD = rounding::downward;
constexpr std::array<rounding, 4> all_modes = {RN, RZ, RU, RD};

const char* name(rounding m) {
  switch (m) {
    case RN: return "to_nearest_even";
    case RZ: return "toward_zero";
    case RU: return "upward";
    case RD: return "downward";
  }
  return "?";
}

// A term: a double, or the exact product of two doubles.
struct term {
  double a, b;
  bool prod;
};
term V(double x) { return {x, 1.0, false}; }
term P(double a, double b) { return {a, b, true}; }
using terms = std::vector<term>;

std::string describe(const terms& t, std::size_t limit = 12) {
  std::ostringstream os;
  os << "{";
  for (std::size_t i = 0; i < t.size() && i < limit; ++i) {
    if (i) os << ", ";
    if (t[i].prod)
      os << "P(" << hex(t[i].a) << ", " << hex(t[i].b) << ")";
    else
      os << hex(t[i].a);
  }
  if (t.size() > limit) os << ", ... (" << t.size() << " terms)";
  os << "}";
  return os.str();
}

void add_to(superaccumulator& s, const term& t) {
  if (t.prod)
    s.add_product(t.a, t.b);
  else
    s.add(t.a);
}

template <class ML>
void add_to_ml(ML& s, const term& t) {
  if (t.prod)
    s.add_product(t.a, t.b);
  else
    s.add(t.a);
}

superaccumulator acc_of(const terms& t) {
  superaccumulator s;
  for (const term& x : t) add_to(s, x);
  return s;
}

bool all_finite(const terms& t) {
  for (const term& x : t)
    if (!std::isfinite(x.a) || !std::isfinite(x.b)) return false;
  return true;
}

// The exact value of a list of finite terms.
exact_fixed exact_of(const terms& t) {
  exact_fixed v;
  for (const term& x : t) {
    if (x.prod)
      v.add_product(x.a, x.b);
    else
      v.add(x.a);
  }
  return v;
}

// The exact value held by an accumulator: sum of digit_i * 2^(32 i + min_exponent)
// (raw digits: the value does not depend on normalization).
exact_fixed value_of(const superaccumulator& s) {
  exact_fixed v;
  const auto& d = s.digits();
  for (int i = 0; i < superaccumulator::num_digits; ++i) {
    if (d[i] == 0) continue;
    const bool neg = d[i] < 0;
    const auto mag = static_cast<unsigned __int128>(neg ? -static_cast<__int128>(d[i])
                                                        : static_cast<__int128>(d[i]));
    v.add_scaled(mag, superaccumulator::digit_bits * i + superaccumulator::min_exponent, neg);
  }
  return v;
}

// Checks the four directed roundings of a term list against a table row, in
// the given order and reversed (an exact sum does not see the order).
void check_row(const terms& t, std::array<double, 4> want, const char* file, int line) {
  for (int order = 0; order < 2; ++order) {
    terms u = t;
    if (order) std::reverse(u.begin(), u.end());
    const superaccumulator s = acc_of(u);
    for (int m = 0; m < 4; ++m) {
      const double got = s.round(all_modes[m]);
      if (!same_bits(got, want[m]))
        BOOST_ERROR("table row at " << file << ":" << line << " " << describe(u) << " "
                                    << name(all_modes[m]) << ": got " << hex(got) << ", want "
                                    << hex(want[m]));
    }
    if (all_finite(u) && !(value_of(s) == exact_of(u)))
      BOOST_ERROR("table row at " << file << ":" << line << ": held value is not the exact sum");
  }
}
#define ROW(terms_, rn, rz, ru, rd) check_row(terms_, {rn, rz, ru, rd}, __FILE__, __LINE__)
#define ROW_ALL(terms_, v) check_row(terms_, {v, v, v, v}, __FILE__, __LINE__)

double up(double x) { return std::nextafter(x, inf); }

// Exponent of the ulp of a finite nonzero double.
[[maybe_unused]] int ulp_exp(double x) {
  const int e = std::ilogb(x);
  return e >= -1022 ? e - 52 : -1074;
}

// 2^e as a product of two doubles (any e in [-2148, 2046]).
term P2(int e) {
  const int a = std::max(-1074, std::min(1023, e / 2));
  return P(pow2(a), pow2(e - a));
}

// Random terms of all kinds, with rare specials when `specials`.
terms random_terms(rng_t& r, int n, bool specials) {
  terms t;
  for (int i = 0; i < n; ++i) {
    const unsigned k = r() % 100;
    if (specials && k == 0) {
      const double s[] = {inf, -inf, qnan};
      t.push_back(V(s[r() % 3]));
    } else if (specials && k == 1) {
      t.push_back(P(inf, (r() & 1) ? 0.0 : -2.0));
    } else if (k < 30) {
      t.push_back(V(random_any_finite(r)));
    } else if (k < 50) {
      t.push_back(P(random_any_finite(r), random_any_finite(r)));
    } else if (k < 60) {
      t.push_back(V((r() & 1) ? -0.0 : 0.0));
    } else if (k < 80) {
      t.push_back(V(uniform(r)));
    } else {
      t.push_back(V(random_exp(r, -1074, -1022)));
    }
  }
  return t;
}

}  // namespace

// ===================================================================
BOOST_AUTO_TEST_SUITE(rounding_tables)

BOOST_AUTO_TEST_CASE(ties_and_sticky_bits) {
  const double u = 0x1p-52, h = 0x1p-53, t = dmin_sub;
  //                                       nearest      zero      up         down
  ROW(terms({V(1), V(h)}),                 1.0,         1.0,      1 + u,     1.0);
  ROW(terms({V(1), V(3 * h)}),             1 + 2 * u,   1 + u,    1 + 2 * u, 1 + u);
  ROW(terms({V(1 + u), V(h)}),             1 + 2 * u,   1 + u,    1 + 2 * u, 1 + u);
  ROW(terms({V(1), V(h), V(t)}),           1 + u,       1.0,      1 + u,     1.0);
  ROW(terms({V(1), V(h), V(-t)}),          1.0,         1.0,      1 + u,     1.0);
  ROW(terms({V(1), V(h), P(t, t)}),        1 + u,       1.0,      1 + u,     1.0);
  ROW(terms({V(1), V(h), P(-t, t)}),       1.0,         1.0,      1 + u,     1.0);
  ROW(terms({V(1), V(3 * h), P(-t, t)}),   1 + u,       1 + u,    1 + 2 * u, 1 + u);
  ROW(terms({V(1), V(3 * h), P(t, t)}),    1 + 2 * u,   1 + u,    1 + 2 * u, 1 + u);
  ROW(terms({V(-1), V(-h)}),               -1.0,        -1.0,     -1.0,      -1 - u);
  ROW(terms({V(-1), V(-h), V(-t)}),        -1 - u,      -1.0,     -1.0,      -1 - u);
  ROW(terms({V(-1), V(-h), P(t, t)}),      -1.0,        -1.0,     -1.0,      -1 - u);
  ROW(terms({V(1), V(-0x1p-54)}),          1.0,         1 - h,    1.0,       1 - h);
  ROW(terms({V(1), V(-0x1p-54), P(-t, t)}), 1 - h,      1 - h,    1.0,       1 - h);
  ROW(terms({V(1), V(0x1p-60)}),           1.0,         1.0,      1 + u,     1.0);
  ROW(terms({V(1), V(-0x1p-60)}),          1.0,         1 - h,    1.0,       1 - h);
  // the tie made of many small pieces, and a sticky bit 2000 binades down
  ROW(terms({V(1), V(0x1p-54), V(0x1p-55), V(0x1p-56), V(0x1p-56)}), 1.0, 1.0, 1 + u, 1.0);
  ROW(terms({V(1), V(0x1p-54), V(0x1p-55), V(0x1p-56), V(0x1p-56), P2(-2148)}), 1 + u, 1.0, 1 + u,
      1.0);
}

BOOST_AUTO_TEST_CASE(ties_at_every_binade) {
  // For every binade e (normal and subnormal) and significands even, odd and
  // the top of the binade: x + half an ulp, with and without a far sticky
  // bit of either sign, positive and negative. The half ulp is a product
  // when it is below 2^-1074.
  const term sticky_pos = P(dmin_sub, dmin_sub), sticky_neg = P(-dmin_sub, dmin_sub);
  for (int e = -1074; e <= 1023; ++e) {
    const bool normal = e >= -1022;
    const int ulp_e = normal ? e - 52 : -1074;
    std::vector<double> xs;
    if (normal) {
      xs = {pow2(e), pow2(e) * (1 + 0x1p-52), pow2(e) * 0x1.fffffffffffffp+0};
    } else {
      const std::uint64_t lead = std::uint64_t{1} << (e + 1074);
      xs = {std::bit_cast<double>(lead), std::bit_cast<double>(lead + 1),
            std::bit_cast<double>(2 * lead - 1)};
    }
    for (double x : xs) {
      const bool odd = bits(x) & 1;
      const term half = P2(ulp_e - 1);
      const double nearest = odd ? up(x) : x;  // x + ulp may be 2^(e+1) or inf
      ROW(terms({V(x), half}), nearest, x, up(x), x);
      ROW(terms({V(x), half, sticky_pos}), up(x), x, up(x), x);
      ROW(terms({V(x), half, sticky_neg}), x, x, up(x), x);
      const term mhalf = {-half.a, half.b, true};
      ROW(terms({V(-x), mhalf}), -nearest, -x, -x, -up(x));
      ROW(terms({V(-x), mhalf, sticky_neg}), -up(x), -x, -x, -up(x));
      ROW(terms({V(-x), mhalf, sticky_pos}), -x, -x, -x, -up(x));
    }
  }
}

BOOST_AUTO_TEST_CASE(subnormal_results_from_products) {
  const double t = dmin_sub;
  ROW_ALL(terms({P(0x1p-537, 0x1p-537)}), t);                            // 2^-1074 exactly
  ROW_ALL(terms({P(t, 0.5), P(t, 0.5)}), t);                             // two halves
  ROW(terms({P(t, 0.5)}), 0.0, 0.0, t, 0.0);                             // 2^-1075: tie to 0
  ROW(terms({P(-t, 0.5)}), -0.0, -0.0, -0.0, -t);
  ROW(terms({P(3 * t, 0.5)}), 2 * t, t, 2 * t, t);                       // 1.5: tie to 2
  ROW(terms({P(5 * t, 0.5)}), 2 * t, 2 * t, 3 * t, 2 * t);               // 2.5: tie to 2
  ROW(terms({P(t, 0.5), P(t, t)}), t, 0.0, t, 0.0);                      // tie + sticky
  ROW(terms({P(t, t)}), 0.0, 0.0, t, 0.0);                               // 2^-2148
  ROW(terms({P(-t, t)}), -0.0, -0.0, -0.0, -t);
  ROW_ALL(terms({V(0x0.fffffffffffffp-1022), V(t)}), DBL_MIN);           // carry into the normals
  ROW_ALL(terms({V(DBL_MIN), V(-t)}), 0x0.fffffffffffffp-1022);
  ROW_ALL(terms({P(DBL_MIN, 0.5)}), 0x1p-1023);
  ROW(terms({P(0x1.0000000000001p-1022, 0.5)}), 0x1p-1023, 0x1p-1023, 0x1p-1023 + t, 0x1p-1023);
  ROW(terms({P(0x1.0000000000003p-1022, 0.5)}), 0x1p-1023 + 2 * t, 0x1p-1023 + t,
      0x1p-1023 + 2 * t, 0x1p-1023 + t);
  ROW(terms({P(0x1.fffffffffffffp-1022, 0.5)}), DBL_MIN, 0x0.fffffffffffffp-1022, DBL_MIN,
      0x0.fffffffffffffp-1022);                                           // rounds up into 2^-1022
  // products that underflow individually but cancel to a representable sum
  ROW_ALL(terms({P(0x1p-600, 0x1p-600), P(-0x1p-600, 0x1p-600), V(t)}), t);
  ROW_ALL(terms({P(0x1p-700, 0x1p-700), V(t), P(0x1p-700, -0x1p-700)}), t);
  ROW(terms({P(0x1.8p-600, 0x1.8p-600), P(-0x1p-600, 0x1.2p-599)}), 0.0, 0.0, 0.0, -0.0);
}

BOOST_AUTO_TEST_CASE(cancellation_and_exponent_range) {
  const double t = dmin_sub;
  ROW_ALL(terms({V(1e300), V(t), V(-1e300)}), t);
  ROW_ALL(terms({V(DBL_MAX), V(t), V(-DBL_MAX)}), t);
  ROW_ALL(terms({V(1e300), V(-1e300), V(1e-300), V(-1e-300), V(t), V(-t), V(3.5)}), 3.5);
  ROW(terms({V(1e300), V(-1e300)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({V(t), V(-t)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({P(DBL_MAX, DBL_MAX), P(-DBL_MAX, DBL_MAX)}), 0.0, 0.0, 0.0, -0.0);
  // all the powers of two of the format: 2^1024 - 2^-1074 and 2^1023 - 2^-1074
  terms all, below_top;
  for (int e = -1074; e <= 1023; ++e) all.push_back(V(pow2(e)));
  for (int e = -1074; e <= 1022; ++e) below_top.push_back(V(pow2(e)));
  ROW(all, inf, DBL_MAX, inf, DBL_MAX);
  ROW(below_top, 0x1p1023, 0x1.fffffffffffffp+1022, 0x1p1023, 0x1.fffffffffffffp+1022);
  // everything but one power of two cancels
  for (int k : {-1074, -1073, -1023, -1022, -1, 0, 52, 1022, 1023}) {
    terms t2 = all;
    for (int e = -1074; e <= 1023; ++e)
      if (e != k) t2.push_back(V(-pow2(e)));
    ROW_ALL(t2, pow2(k));
  }
  // and all the products 2^-2148 .. 2^2046 (range of the accumulator)
  terms prods;
  for (int e = -2148; e <= 2046; ++e) prods.push_back(P2(e));
  ROW(prods, inf, DBL_MAX, inf, DBL_MAX);
  for (int e = -2148; e <= 2046; ++e)
    if (e != -1074) prods.push_back({-P2(e).a, P2(e).b, true});
  ROW_ALL(prods, dmin_sub);
}

BOOST_AUTO_TEST_CASE(overflow) {
  // sums that overflow only in the middle
  ROW_ALL(terms({V(DBL_MAX), V(DBL_MAX), V(-DBL_MAX)}), DBL_MAX);
  ROW(terms({V(-DBL_MAX), V(-DBL_MAX), V(DBL_MAX), V(1)}), -DBL_MAX, -0x1.ffffffffffffep+1023,
      -0x1.ffffffffffffep+1023, -DBL_MAX);
  // -DBL_MAX - 1 is beyond the range only downward
  ROW(terms({V(-DBL_MAX), V(-DBL_MAX), V(DBL_MAX), V(-1)}), -DBL_MAX, -DBL_MAX, -DBL_MAX, -inf);
  ROW_ALL(terms({P(0x1p1000, 0x1p1000), P(-0x1p1000, 0x1p1000), V(1)}), 1.0);
  ROW_ALL(terms({P(0x1p1000, 0x1p1000), V(-DBL_MAX), P(-0x1p1000, 0x1p1000), V(DBL_MAX), V(2)}),
          2.0);
  // exact results beyond the range, every direction
  ROW(terms({V(DBL_MAX), V(DBL_MAX)}), inf, DBL_MAX, inf, DBL_MAX);
  ROW(terms({V(-DBL_MAX), V(-DBL_MAX)}), -inf, -DBL_MAX, -DBL_MAX, -inf);
  ROW(terms({V(DBL_MAX), V(0x1p970)}), inf, DBL_MAX, inf, DBL_MAX);  // tie: to even = 2^1024
  ROW(terms({V(DBL_MAX), V(0x1p970), V(-dmin_sub)}), DBL_MAX, DBL_MAX, inf, DBL_MAX);
  ROW(terms({V(DBL_MAX), V(0x1p969)}), DBL_MAX, DBL_MAX, inf, DBL_MAX);
  ROW(terms({V(-DBL_MAX), V(-0x1p969)}), -DBL_MAX, -DBL_MAX, -DBL_MAX, -inf);
  ROW(terms({P(0x1p1000, 0x1p1000)}), inf, DBL_MAX, inf, DBL_MAX);
  ROW(terms({P(-0x1p1000, 0x1p1000)}), -inf, -DBL_MAX, -DBL_MAX, -inf);
  ROW(terms({P(DBL_MAX, DBL_MAX), V(-DBL_MAX)}), inf, DBL_MAX, inf, DBL_MAX);
  // the product exactly at 2^1024 and just below the rounding boundary
  ROW(terms({P(0x1p512, 0x1p512)}), inf, DBL_MAX, inf, DBL_MAX);
  ROW_ALL(terms({P(0x1.fffffffffffffp+511, 0x1p512)}), DBL_MAX);
}

BOOST_AUTO_TEST_CASE(special_values) {
  const double n = qnan;
  ROW_ALL(terms({V(inf), V(1)}), inf);
  ROW_ALL(terms({V(1), V(-inf)}), -inf);
  ROW_ALL(terms({V(inf), V(-inf)}), n);
  ROW_ALL(terms({V(-inf), V(1), V(inf)}), n);
  ROW_ALL(terms({V(n), V(1)}), n);
  ROW_ALL(terms({V(inf), V(n)}), n);
  ROW_ALL(terms({V(-n)}), n);
  ROW_ALL(terms({V(inf), V(DBL_MAX), V(DBL_MAX)}), inf);   // inf wins in every direction
  ROW_ALL(terms({V(-inf), V(DBL_MAX), V(DBL_MAX)}), -inf);
  ROW_ALL(terms({V(inf), V(-DBL_MAX), V(-DBL_MAX)}), inf);
  ROW_ALL(terms({V(inf), V(0.0)}), inf);
  ROW_ALL(terms({V(-inf), V(-0.0)}), -inf);
  ROW_ALL(terms({P(inf, 0.0)}), n);        // inf * 0
  ROW_ALL(terms({P(-0.0, inf)}), n);
  ROW_ALL(terms({P(0.0, -inf), V(1)}), n);
  ROW_ALL(terms({P(inf, -2)}), -inf);
  ROW_ALL(terms({P(-inf, -2)}), inf);
  ROW_ALL(terms({P(inf, dmin_sub)}), inf);
  ROW_ALL(terms({P(inf, 2), P(inf, -2)}), n);
  ROW_ALL(terms({P(n, 0.0)}), n);
  ROW_ALL(terms({P(1.0, n)}), n);
  ROW_ALL(terms({P(DBL_MAX, DBL_MAX), V(-inf)}), -inf);
  ROW_ALL(terms({P(0x1p1000, 0x1p1000), V(inf), P(-0x1p1000, 0x1p1000)}), inf);
  // +inf + 1 must stay +inf (not folded into the digits)
  superaccumulator s;
  s.add(inf);
  s.add(1.0);
  BOOST_TEST(same_bits(s.round(), inf));
  BOOST_TEST(s.has_special());
  BOOST_TEST(s.sign() == 1);  // the finite part
}

BOOST_AUTO_TEST_CASE(signed_zeros) {
  ROW_ALL(terms({}), 0.0);  // the empty sum is +0 in every direction
  ROW_ALL(terms({V(-0.0)}), -0.0);
  ROW_ALL(terms({V(-0.0), V(-0.0)}), -0.0);
  ROW_ALL(terms({V(0.0)}), 0.0);
  ROW_ALL(terms({V(0.0), V(0.0)}), 0.0);
  ROW(terms({V(-0.0), V(0.0)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({V(0.0), V(-0.0)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({V(1.5), V(-1.5)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({V(-0.0), V(1.5), V(-1.5)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({V(-0.0), V(dmin_sub), V(-0.0), V(-dmin_sub)}), 0.0, 0.0, 0.0, -0.0);
  ROW_ALL(terms({P(-0.0, 5)}), -0.0);
  ROW_ALL(terms({P(0.0, -5)}), -0.0);
  ROW_ALL(terms({P(-0.0, -5)}), 0.0);
  ROW_ALL(terms({P(0.0, -5), V(-0.0), P(5, -0.0)}), -0.0);
  ROW_ALL(terms({P(-0.0, -0.0)}), 0.0);
  ROW(terms({P(0.0, 5), V(-0.0)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({P(-dmin_sub, dmin_sub), P(dmin_sub, dmin_sub)}), 0.0, 0.0, 0.0, -0.0);
  ROW(terms({P(-0.0, 1.0), P(2.0, 3.0), P(-2.0, 3.0)}), 0.0, 0.0, 0.0, -0.0);
  // tiny nonzero results keep their sign when they round to zero
  ROW(terms({P(-dmin_sub, dmin_sub), V(-0.0)}), -0.0, -0.0, -0.0, -dmin_sub);
}

BOOST_AUTO_TEST_CASE(directed_rounding_table) {
  const double u = 0x1p-52;
  ROW(terms({V(0.1), V(0.2)}), 0x1.3333333333334p-2, 0x1.3333333333333p-2, 0x1.3333333333334p-2,
      0x1.3333333333333p-2);  // 0.1 + 0.2 exactly = 0x1.33333333333334p-2 (tie -> even 4)
  ROW(terms({V(1), V(u), V(0x1p-80)}), 1 + u, 1 + u, 1 + 2 * u, 1 + u);
  ROW(terms({V(-1), V(-u), V(-0x1p-80)}), -1 - u, -1 - u, -1 - u, -1 - 2 * u);
  ROW(terms({V(0x1p53), V(1)}), 0x1p53, 0x1p53, 0x1p53 + 2, 0x1p53);
  ROW(terms({V(0x1p53), V(3)}), 0x1p53 + 4, 0x1p53 + 2, 0x1p53 + 4, 0x1p53 + 2);
  ROW(terms({V(-0x1p53), V(-1), V(-0x1p-1000)}), -0x1p53 - 2, -0x1p53, -0x1p53, -0x1p53 - 2);
  ROW(terms({P(1 + u, 1 + u)}), 1 + 2 * u, 1 + 2 * u, 1 + 3 * u, 1 + 2 * u);
  ROW(terms({P(1 + u, -(1 + u))}), -1 - 2 * u, -1 - 2 * u, -1 - 2 * u, -1 - 3 * u);
  ROW(terms({P(1 + u, 1.5)}), 1.5 + 2 * u, 1.5 + u, 1.5 + 2 * u, 1.5 + u);  // product tie
  ROW(terms({P(3, 1.0 / 3), V(-1)}), -0x1p-54, -0x1p-54, -0x1p-54, -0x1p-54);
}

BOOST_AUTO_TEST_SUITE_END()

// ===================================================================
BOOST_AUTO_TEST_SUITE(accumulator_operations)

BOOST_AUTO_TEST_CASE(held_value_is_exact) {
  // Random finite terms and products over the whole range: the digits hold
  // exactly the integer oracle's value, including across many normalizations.
  rng_t r(21);
  for (int rep = 0; rep < 40; ++rep) {
    terms t;
    const int n = 1 + static_cast<int>(r() % 3000);
    for (int i = 0; i < n; ++i) {
      switch (r() % 4) {
        case 0: t.push_back(V(random_any_finite(r))); break;
        case 1: t.push_back(P(random_any_finite(r), random_any_finite(r))); break;
        case 2: t.push_back(V(uniform(r))); break;
        default: t.push_back(P(random_exp(r, -1074, -1000), random_exp(r, -1074, -1000))); break;
      }
    }
    BOOST_TEST_CONTEXT("rep " << rep << ", " << describe(t, 4)) {
      const superaccumulator s = acc_of(t);
      BOOST_TEST((value_of(s) == exact_of(t)));
    }
  }
  // Many maximal terms: past carry_limit, and far beyond the double range.
  superaccumulator s;
  exact_fixed v;
  for (int i = 0; i < 100000; ++i) {
    s.add_product(DBL_MAX, DBL_MAX);
    v.add_product(DBL_MAX, DBL_MAX);
    s.add(-DBL_MAX);
    v.add(-DBL_MAX);
  }
  BOOST_TEST((value_of(s) == v));
  BOOST_TEST(same_bits(s.round(RZ), DBL_MAX));
  for (int i = 0; i < 100000; ++i) {
    s.add_product(-DBL_MAX, DBL_MAX);
    s.add(DBL_MAX);
  }
  BOOST_TEST(s.sign() == 0);
  BOOST_TEST(same_bits(s.round(RN), 0.0));
  superaccumulator tiny;
  for (int i = 0; i < 3000; ++i) tiny.add(dmin_sub);
  BOOST_TEST(same_bits(tiny.round(), 3000 * dmin_sub));
  superaccumulator negs;
  for (int i = 0; i < 5000; ++i) negs.add_product(-dmin_sub, dmin_sub);
  BOOST_TEST(negs.sign() == -1);
  BOOST_TEST(same_bits(negs.round(RD), -dmin_sub));
  BOOST_TEST(same_bits(negs.round(RN), -0.0));
}

BOOST_AUTO_TEST_CASE(batch_functions_match_scalar_calls) {
  // add_n / add_abs_n / add_products_n / deposit_n against the one-term calls,
  // for lengths around their internal thresholds, with zeros, signed zeros,
  // specials, subnormals and huge values at varied positions.
  rng_t r(22);
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 31, 63, 64, 65, 66, 67, 127, 128, 999, 1000, 1001,
                        1003, 2000, 4097}) {
    for (int kind = 0; kind < 6; ++kind) {
      std::vector<double> x(n), y(n);
      for (std::size_t i = 0; i < n; ++i) {
        switch (kind) {
          case 0: x[i] = uniform(r); y[i] = uniform(r); break;
          case 1: x[i] = random_any_finite(r); y[i] = random_any_finite(r); break;
          case 2: x[i] = -0.0; y[i] = (i % 2) ? -1.0 : 1.0; break;
          case 3: x[i] = (i % 3) ? 0.0 : -0.0; y[i] = -0.0; break;
          case 4: x[i] = random_exp(r, -1074, -1000); y[i] = random_exp(r, -1074, 1023); break;
          default: x[i] = random_exp(r, 1000, 1023); y[i] = random_exp(r, 1000, 1023); break;
        }
      }
      if (kind == 1 && n > 0) {  // specials at some positions
        x[r() % n] = inf;
        if (n > 3) y[r() % n] = -inf;
        if (n > 5) x[n - 1] = qnan;
      }
      superaccumulator a1, a2, b1, b2, c1, c2, d1, d2;
      a1.add_n(x.data(), n);
      b1.add_abs_n(x.data(), n);
      c1.add_products_n(x.data(), y.data(), n);
      for (std::size_t i = 0; i < n; ++i) {
        a2.add(x[i]);
        b2.add(std::fabs(x[i]));
        c2.add_product(x[i], y[i]);
      }
      std::vector<double> f;
      for (double v : x)
        if (std::isfinite(v)) f.push_back(v);
      d1.deposit_n(f.data(), f.size());
      for (double v : f) d2.deposit(v);
      BOOST_TEST_CONTEXT("n = " << n << ", kind " << kind) {
        BOOST_TEST((a1 == a2), "add_n");
        BOOST_TEST((b1 == b2), "add_abs_n");
        BOOST_TEST((c1 == c2), "add_products_n");
        BOOST_TEST((d1 == d2), "deposit_n");
        for (rounding m : all_modes) {
          BOOST_TEST(same_bits(a1.round(m), a2.round(m)));
          BOOST_TEST(same_bits(b1.round(m), b2.round(m)));
          BOOST_TEST(same_bits(c1.round(m), c2.round(m)));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(fold_digits_adds_raw_arrays) {
  rng_t r(23);
  for (int count : {1, 2, 3, 4, 5, 8, 9}) {
    std::vector<std::array<std::int64_t, superaccumulator::num_digits>> parts(count);
    superaccumulator s;
    s.add(-1.5);
    s.add(0x1p-1000);
    exact_fixed want = value_of(s);
    for (auto& p : parts) {
      for (int i = 0; i < superaccumulator::num_digits; ++i) {
        // |d| < 2^61, mostly near the middle digits, some negative
        const int span = i > 20 && i < 110 ? 61 : 40;
        const auto mag = static_cast<std::int64_t>(r() >> (64 - span + 1));
        p[i] = (r() & 1) ? -mag : mag;
        if (r() % 4 == 0) p[i] = 0;
        const bool neg = p[i] < 0;
        want.add_scaled(static_cast<unsigned __int128>(neg ? -p[i] : p[i]),
                        superaccumulator::digit_bits * i + superaccumulator::min_exponent, neg);
      }
    }
    std::vector<std::int64_t> raw(count * superaccumulator::num_digits);
    for (int k = 0; k < count; ++k)
      std::memcpy(&raw[k * superaccumulator::num_digits], parts[k].data(),
                  sizeof(std::int64_t) * superaccumulator::num_digits);
    s.fold_digits(reinterpret_cast<const std::int64_t(*)[superaccumulator::num_digits]>(raw.data()),
                  count);
    BOOST_TEST((value_of(s) == want), "fold_digits of " << count << " arrays");
  }
}


BOOST_AUTO_TEST_CASE(merge_any_split) {
  rng_t r(24);
  for (int rep = 0; rep < 300; ++rep) {
    const int n = static_cast<int>(r() % 400);
    terms t = random_terms(r, n, rep % 3 == 0);
    if (rep % 5 == 1) {  // exact cancellation: append the negation of everything finite
      const terms c = t;
      for (const term& x : c)
        if (std::isfinite(x.a) && std::isfinite(x.b)) t.push_back({-x.a, x.b, x.prod});
      shuffle(t, r);
    }
    if (rep % 7 == 2) t = terms(static_cast<std::size_t>(n % 5), V(-0.0));  // only -0 terms
    const superaccumulator whole = acc_of(t);
    const int k = 1 + static_cast<int>(r() % 9);
    std::vector<superaccumulator> parts(static_cast<std::size_t>(k));
    for (const term& x : t) add_to(parts[r() % k], x);
    // merge in a random order into a fresh one, and as a tree
    std::vector<int> order(static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i) order[i] = i;
    shuffle(order, r);
    superaccumulator merged;
    for (int i : order) merged.merge(parts[static_cast<std::size_t>(i)]);
    std::vector<superaccumulator> level = parts;
    while (level.size() > 1) {
      std::vector<superaccumulator> next;
      for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
        superaccumulator m = level[i + 1];
        m.merge(level[i]);
        next.push_back(m);
      }
      if (level.size() % 2) next.push_back(level.back());
      level = next;
    }
    BOOST_TEST_CONTEXT("rep " << rep << ", k = " << k << ", " << describe(t, 6)) {
      BOOST_TEST((merged == whole));
      BOOST_TEST((level[0] == whole));
      for (rounding m : all_modes) {
        BOOST_TEST(same_bits(merged.round(m), whole.round(m)));
        BOOST_TEST(same_bits(level[0].round(m), whole.round(m)));
      }
    }
  }
  // merging empty accumulators changes nothing (the empty sum stays +0)
  superaccumulator e1, e2;
  e1.merge(e2);
  BOOST_TEST(same_bits(e1.round(RD), 0.0));
  superaccumulator z;
  z.add(-0.0);
  z.merge(e2);
  BOOST_TEST(same_bits(z.round(RN), -0.0));
  // merge into itself doubles the value
  superaccumulator d;
  d.add(1.5);
  d.merge(d);
  BOOST_TEST(d.round() == 3.0);
}

BOOST_AUTO_TEST_CASE(serialize_round_trip) {
  rng_t r(25);
  std::vector<superaccumulator> cases(6);
  cases[1].add(-1.0);
  cases[2].add_product(DBL_MAX, -DBL_MAX);
  cases[2].add(dmin_sub);
  cases[3].add(inf);
  cases[3].add(-0x1p-1074);
  cases[4].add(-0.0);
  for (const term& x : random_terms(r, 2000, true)) add_to(cases[5], x);
  for (int i = 0; i < 50; ++i) {
    superaccumulator s;
    for (const term& x : random_terms(r, static_cast<int>(r() % 50), i % 4 == 0)) add_to(s, x);
    cases.push_back(s);
  }
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const superaccumulator& s = cases[c];
    const std::vector<std::byte> b = s.serialize();
    BOOST_TEST_CONTEXT("case " << c) {
      BOOST_REQUIRE(b.size() == superaccumulator::serialized_size);
      std::array<std::byte, superaccumulator::serialized_size> fixed;
      s.serialize(std::span<std::byte, superaccumulator::serialized_size>(fixed));
      BOOST_TEST(std::memcmp(fixed.data(), b.data(), b.size()) == 0);
      const superaccumulator t = superaccumulator::deserialize(b);
      BOOST_TEST((t == s));
      for (rounding m : all_modes) BOOST_TEST(same_bits(t.round(m), s.round(m)));
      BOOST_TEST((t.serialize() == b));
      BOOST_TEST(t.sign() == s.sign());
      BOOST_TEST(t.has_special() == s.has_special());
    }
  }
  // the fixed header: magic, version 1, 136 digits little-endian
  const std::vector<std::byte> b = cases[1].serialize();
  BOOST_TEST(std::memcmp(b.data(), "EXSA", 4) == 0);
  BOOST_TEST(static_cast<int>(b[4]) == 1);
  BOOST_TEST(static_cast<int>(b[5]) == 0);
  BOOST_TEST(static_cast<int>(b[6]) == (superaccumulator::num_digits & 0xff));
  BOOST_TEST(static_cast<int>(b[7]) == (superaccumulator::num_digits >> 8));
  BOOST_TEST(superaccumulator::serialized_size == 16 + 8 * superaccumulator::num_digits);
}

BOOST_AUTO_TEST_CASE(deserialize_rejects_bad_data) {
  superaccumulator s;
  s.add(3.25);
  s.add(-0x1p-1070);
  const std::vector<std::byte> good = s.serialize();
  auto rejects = [](const std::vector<std::byte>& b) {
    try {
      (void)superaccumulator::deserialize(b);
    } catch (const exala::format_error&) {
      return true;
    } catch (...) {
      return false;
    }
    return false;
  };
  BOOST_TEST(!rejects(good));
  // wrong sizes
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{16}, good.size() - 1,
                        good.size() + 1, 2 * good.size()}) {
    std::vector<std::byte> b(good);
    b.resize(n);
    BOOST_TEST(rejects(b), "size " << n);
  }
  // every magic byte
  for (int i = 0; i < 4; ++i) {
    std::vector<std::byte> b(good);
    b[i] ^= std::byte{0x20};
    BOOST_TEST(rejects(b), "magic byte " << i);
  }
  // version and digit count
  for (int i : {4, 5, 6, 7}) {
    std::vector<std::byte> b(good);
    b[i] = std::byte{static_cast<unsigned char>(static_cast<unsigned>(b[i]) + 1)};
    BOOST_TEST(rejects(b), "header byte " << i);
  }
  // unknown flag bits (the low six bits are the defined flags)
  for (int bit : {6, 7, 8, 31, 32, 63}) {
    std::vector<std::byte> b(good);
    b[8 + bit / 8] |= std::byte{static_cast<unsigned char>(1u << (bit % 8))};
    BOOST_TEST(rejects(b), "flag bit " << bit);
  }
  // unnormalized digits: >= 2^32 or negative, for every digit but the top one
  auto set_digit = [&](std::vector<std::byte>& b, int i, std::uint64_t v) {
    for (int k = 0; k < 8; ++k) b[16 + 8 * i + k] = std::byte{static_cast<unsigned char>(v >> (8 * k))};
  };
  for (int i : {0, 1, 40, 67, 68, 100, superaccumulator::num_digits - 2}) {
    for (std::uint64_t v : {std::uint64_t{1} << 32, ~std::uint64_t{0}, std::uint64_t{1} << 63}) {
      std::vector<std::byte> b(good);
      set_digit(b, i, v);
      BOOST_TEST(rejects(b), "digit " << i << " = " << v);
    }
  }
  // the top digit carries the sign: a negative top digit is valid
  std::vector<std::byte> b(superaccumulator::serialized_size);
  superaccumulator().serialize(std::span<std::byte, superaccumulator::serialized_size>(b.data(), b.size()));
  set_digit(b, superaccumulator::num_digits - 1, ~std::uint64_t{0});
  BOOST_TEST(!rejects(b));
  const superaccumulator neg = superaccumulator::deserialize(b);
  BOOST_TEST(neg.sign() == -1);
  // format_error is an exala::error
  try {
    (void)superaccumulator::deserialize(std::vector<std::byte>(3));
    BOOST_ERROR("no exception");
  } catch (const exala::error& e) {
    BOOST_TEST(std::string(e.what()).size() > 0);
  }
}

// ------------------------------------------------- issue 15, row 11
// The carry-save invariant (exala/superaccumulator.hpp): in a normalized,
// serializable state every digit but the top one is in [0, 2^32) and the top
// digit in [-2^32, 2^32); flags use the low six bits. deserialize() accepts
// exactly these states, so every accepted state merges with any other (and
// with itself) without overflow, and rounds as its exact value says.

namespace {

constexpr int ND = superaccumulator::num_digits;
constexpr std::int64_t p32 = std::int64_t{1} << 32;

// A serialized state with the given flags and digits (no normalization: the
// bytes say exactly what the test wants).
std::vector<std::byte> state_bytes(std::uint64_t flags, const std::array<std::int64_t, ND>& d) {
  std::vector<std::byte> b = superaccumulator().serialize();
  auto put = [&](std::size_t at, std::uint64_t v) {
    for (int k = 0; k < 8; ++k) b[at + k] = std::byte{static_cast<unsigned char>(v >> (8 * k))};
  };
  put(8, flags);
  for (int i = 0; i < ND; ++i) put(16 + 8 * static_cast<std::size_t>(i), static_cast<std::uint64_t>(d[i]));
  return b;
}

// The invariant, stated independently of the library.
bool valid_state(std::uint64_t flags, const std::array<std::int64_t, ND>& d) {
  if (flags >= 64) return false;
  for (int i = 0; i < ND - 1; ++i)
    if (d[i] < 0 || d[i] >= p32) return false;
  return d[ND - 1] >= -p32 && d[ND - 1] < p32;
}

// The exact value of digits d (digit i weighs 2^(32 i - 2176)).
exact_fixed value_of_digits(const std::array<std::int64_t, ND>& d) {
  exact_fixed v;
  for (int i = 0; i < ND; ++i) {
    if (d[i] == 0) continue;
    const bool neg = d[i] < 0;
    const auto mag = static_cast<unsigned __int128>(neg ? -static_cast<__int128>(d[i]) : static_cast<__int128>(d[i]));
    v.add_scaled(mag, 32 * i + superaccumulator::min_exponent, neg);
  }
  return v;
}

exact_fixed fixed_of(double x) { return exact_fixed(x); }

// Whether r is v rounded in `mode` (IEEE, overflow to +-inf or +-DBL_MAX by
// direction), checked by exact comparisons only.
bool is_rounding_of(const exact_fixed& v, double r, rounding mode) {
  if (std::isnan(r)) return false;
  const int sg = v.sign();
  if (sg == 0) return r == 0.0;
  if (r != 0.0 && (r < 0) != (sg < 0)) return false;
  const exact_fixed a = v.abs();
  const double m = std::fabs(r);
  const bool neg = sg < 0;
  const bool away = (mode == RU && !neg) || (mode == RD && neg);  // magnitude rounded up
  exact_fixed over;  // the overflow threshold of nearest: DBL_MAX + 2^970
  over.add(DBL_MAX);
  over.add_scaled(1, 970, false);
  if (std::isinf(m)) {
    if (mode == RN) return compare(a, over) >= 0;
    return away && compare(a, fixed_of(DBL_MAX)) > 0;
  }
  if (mode == RN) {
    // 2|v| between m + pred(m) and m + succ(m) (succ(DBL_MAX) = 2^1024:
    // DBL_MAX + 2^1024 = 2 over); ties pass either way (random data never
    // hits one exactly)
    exact_fixed two_a = a, lo, hi = fixed_of(m);
    two_a.add(a);
    if (m > 0.0) lo = fixed_of(m), lo.add(fixed_of(std::nextafter(m, 0.0)));
    if (m == DBL_MAX) hi = over, hi.add(over);
    else hi.add(fixed_of(std::nextafter(m, inf)));
    return compare(two_a, lo) >= 0 && compare(two_a, hi) <= 0;
  }
  // directed: m <= |v| < succ(m) (magnitude down) or pred(m) < |v| <= m (up)
  if (!away) {
    if (compare(fixed_of(m), a) > 0) return false;
    return m == DBL_MAX || compare(a, fixed_of(std::nextafter(m, inf))) < 0;
  }
  if (compare(fixed_of(m), a) < 0) return false;
  return m == 0.0 || compare(a, fixed_of(std::nextafter(m, 0.0))) > 0;
}

// The rounding a state's flags impose, or nothing for a finite value.
bool special_rounding(std::uint64_t flags, double& r) {
  if ((flags & 1) || ((flags & 2) && (flags & 4))) return r = qnan, true;
  if (flags & 2) return r = inf, true;
  if (flags & 4) return r = -inf, true;
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(deserialize_enforces_the_carry_save_invariant) {
  std::array<std::int64_t, ND> d{};
  d[0] = 1;
  auto accepted = [](const std::vector<std::byte>& b) {
    try {
      (void)superaccumulator::deserialize(b);
      return true;
    } catch (const exala::format_error&) {
      return false;
    }
  };
  // The state: top digit INT64_MAX was accepted, merge(a, a)
  // overflowed and +inf doubled rounded to -inf.
  for (const std::int64_t top : {INT64_MAX, INT64_MIN, INT64_MIN + 1, p32, -p32 - 1, std::int64_t{1} << 62}) {
    d[ND - 1] = top;
    BOOST_TEST(!accepted(state_bytes(0, d)), "top digit " << top);
  }
  // Just inside the bounds.
  for (const std::int64_t top : {p32 - 1, -p32, std::int64_t{0}, std::int64_t{-1}}) {
    d[ND - 1] = top;
    BOOST_TEST(accepted(state_bytes(0, d)), "top digit " << top);
  }
  d[ND - 1] = 0;
  // Lower digits: [0, 2^32) inside, -1 and 2^32 outside, at every position.
  for (int i = 0; i < ND - 1; ++i) {
    std::array<std::int64_t, ND> e{};
    e[i] = p32 - 1;
    BOOST_TEST(accepted(state_bytes(0, e)), "digit " << i);
    e[i] = p32;
    BOOST_TEST(!accepted(state_bytes(0, e)), "digit " << i);
    e[i] = -1;
    BOOST_TEST(!accepted(state_bytes(0, e)), "digit " << i);
  }
  // Flags: any combination of the six bits, nothing else.
  for (std::uint64_t f = 0; f < 64; ++f) BOOST_TEST(accepted(state_bytes(f, d)), "flags " << f);
  for (const std::uint64_t f : {std::uint64_t{64}, std::uint64_t{65}, std::uint64_t{1} << 63}) BOOST_TEST(!accepted(state_bytes(f, d)), "flags " << f);
  // The message names the digit and the bound.
  d[ND - 1] = INT64_MAX;
  try {
    (void)superaccumulator::deserialize(state_bytes(0, d));
  } catch (const exala::format_error& e) {
    BOOST_TEST(std::string(e.what()).find("top digit") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(extreme_accepted_states_merge_exactly) {
  // The largest accepted value (every digit 2^32 - 1: 2^2176 - 2^-2176) and
  // the most negative one (-2^2176), and both with the lowest digit only.
  std::array<std::int64_t, ND> top{}, bottom{};
  top.fill(p32 - 1);
  bottom[ND - 1] = -p32;
  const superaccumulator a = superaccumulator::deserialize(state_bytes(16 | 32 | 8, top));
  const superaccumulator b = superaccumulator::deserialize(state_bytes(16 | 32 | 8, bottom));
  const exact_fixed va = value_of_digits(top), vb = value_of_digits(bottom);
  BOOST_TEST((value_of(a) == va));
  // merge with itself, with the other, up to 30 times: exact (the value is
  // checked digit by digit against the integer oracle), rounding correct
  superaccumulator aa = a, bb = b, ab = a;
  exact_fixed vaa = va, vbb = vb, vab = va;
  ab.merge(b);
  vab.add(vb);
  BOOST_TEST((value_of(ab) == vab));
  for (int k = 1; k <= 30; ++k) {
    aa.merge(aa);
    bb.merge(bb);
    vaa.add(vaa);
    vbb.add(vbb);
    BOOST_TEST_CONTEXT("doubled " << k << " times") {
      BOOST_TEST((value_of(aa) == vaa));
      BOOST_TEST((value_of(bb) == vbb));
      BOOST_TEST(same_bits(aa.round(RN), inf));
      BOOST_TEST(same_bits(aa.round(RZ), DBL_MAX));
      BOOST_TEST(same_bits(bb.round(RN), -inf));
      BOOST_TEST(same_bits(bb.round(RU), -DBL_MAX));
      BOOST_TEST(same_bits(aa.round_sqrt(RN), inf));
    }
  }
  // a + (-a) is exactly zero; (a + s) - a is exactly s
  superaccumulator z = a, na = a;
  na.negate();
  z.merge(na);
  BOOST_TEST(z.is_zero());
  superaccumulator t = a;
  t.add(0x1.8p-1074);
  t.add_product(3.0, 0x1p-1000);
  t.merge(na);
  BOOST_TEST(same_bits(t.round(RN), 3.0 * 0x1p-1000));
  // Beyond the documented capacity (the top digit past 2^62) merges saturate
  // instead of wrapping: the sign is kept and the value still rounds to the
  // right infinity, however often it is doubled.
  superaccumulator big = a, small = b;
  for (int k = 0; k < 200; ++k) {
    big.merge(big);
    small.merge(small);
    BOOST_TEST_REQUIRE(big.sign() == 1);
    BOOST_TEST_REQUIRE(small.sign() == -1);
  }
  BOOST_TEST(same_bits(big.round(RN), inf));
  BOOST_TEST(same_bits(big.round(RD), DBL_MAX));
  BOOST_TEST(same_bits(small.round(RN), -inf));
  BOOST_TEST(std::isnan(small.round_sqrt(RN)));
  // a saturated state is beyond the range: its serialization is refused
  BOOST_CHECK_THROW((void)superaccumulator::deserialize(big.serialize()), exala::format_error);
}

// Random buffers, valid and invalid (digits near and beyond every bound,
// random flags): deserialize() must accept exactly the valid ones; every
// accepted pair is merged (and the sum doubled up to 28 times) and must
// hold the exact value of the integer oracle and round to its correct
// rounding in all four directions.
BOOST_AUTO_TEST_CASE(random_states_deserialize_merge_round) {
  rng_t r(1515);
  auto random_state = [&](std::uint64_t& flags, std::array<std::int64_t, ND>& d) {
    d.fill(0);
    const unsigned kind = r() % 10;
    flags = kind == 0 ? (r() % 4 == 0 ? (r() | 64) : r() % 128) : (r() % 8 == 0 ? r() % 64 : 8 | 16 | 32);
    // the height: digits above it are 0 (or all ones below a top of -1)
    const int h = static_cast<int>(r() % ND);
    const bool neg = r() % 2 != 0;
    for (int i = 0; i < ND - 1; ++i) d[i] = i < h ? static_cast<std::int64_t>(r() & 0xffffffffu) : (neg ? p32 - 1 : 0);
    d[ND - 1] = neg ? -1 : 0;
    switch (r() % 8) {
      case 0: d[ND - 1] = static_cast<std::int64_t>(r() % static_cast<std::uint64_t>(2 * p32)) - p32; break;
      case 1: d[ND - 1] = (r() % 2) ? p32 - 1 + static_cast<std::int64_t>(r() % 3) : -p32 - static_cast<std::int64_t>(r() % 3) + 1; break;
      case 2: d[ND - 1] = static_cast<std::int64_t>(r()); break;  // any 64 bits
      case 3: d[r() % (ND - 1)] = (r() % 2) ? -static_cast<std::int64_t>(1 + r() % 5) : p32 + static_cast<std::int64_t>(r() % 5); break;
      default: break;
    }
  };
  int accepted_count = 0, rejected_count = 0, rounded = 0;
  std::vector<std::pair<superaccumulator, std::uint64_t>> pool;
  std::vector<exact_fixed> pool_values;
  for (int it = 0; it < 3000; ++it) {
    std::uint64_t f;
    std::array<std::int64_t, ND> d;
    random_state(f, d);
    const bool valid = valid_state(f, d);
    bool ok = true;
    superaccumulator s;
    try {
      s = superaccumulator::deserialize(state_bytes(f, d));
    } catch (const exala::format_error&) {
      ok = false;
    }
    BOOST_TEST_REQUIRE(ok == valid, "iteration " << it << ": flags " << f << " top " << d[ND - 1]);
    if (!ok) {
      ++rejected_count;
      continue;
    }
    ++accepted_count;
    pool.emplace_back(s, f);
    pool_values.push_back(value_of_digits(d));
  }
  BOOST_TEST(accepted_count > 1000);
  BOOST_TEST(rejected_count > 300);
  for (std::size_t i = 0; i + 1 < pool.size(); i += 2) {
    superaccumulator m = pool[i].first;
    m.merge(pool[i + 1].first);
    exact_fixed v = pool_values[i];
    v.add(pool_values[i + 1]);
    // 2^(k+1) in-range states: within the documented capacity (2^29) for k <= 28
    const int doublings = static_cast<int>(r() % 29);
    for (int k = 0; k < doublings; ++k) {
      m.merge(m);
      v.add(v);
    }
    BOOST_TEST_CONTEXT("pair " << i << ", doubled " << doublings << " times") {
      BOOST_TEST_REQUIRE((value_of(m) == v));
      const std::uint64_t flags = pool[i].second | pool[i + 1].second;
      for (rounding mode : all_modes) {
        const double got = m.round(mode);
        double want;
        if (special_rounding(flags, want)) {
          BOOST_TEST(same_bits(got, want), name(mode));
        } else if (v.sign() != 0) {
          ++rounded;
          BOOST_TEST(is_rounding_of(v, got, mode), name(mode) << ": " << hex(got));
        }
      }
    }
  }
  BOOST_TEST(rounded > 1000);
}

BOOST_AUTO_TEST_CASE(negate_and_sign) {
  rng_t r(26);
  for (int rep = 0; rep < 200; ++rep) {
    terms t = random_terms(r, static_cast<int>(r() % 100), rep % 4 == 0);
    if (rep % 10 == 3) t = {V(-0.0)};
    if (rep % 10 == 4) t = {V(0.0)};
    if (rep % 10 == 5) t = {};
    if (rep % 10 == 6) t = {V(1.0), V(-1.0)};
    const superaccumulator s = acc_of(t);
    superaccumulator n = s;
    n.negate();
    terms tn;
    for (const term& x : t) tn.push_back({-x.a, x.b, x.prod});
    const superaccumulator direct = acc_of(tn);  // the negated terms, added
    BOOST_TEST_CONTEXT("rep " << rep << ", " << describe(t, 6)) {
      BOOST_TEST(n.sign() == -s.sign());
      if (s.sign() != 0 || s.has_special()) {  // a nonzero or special value: plain symmetry
        BOOST_TEST(same_bits(n.round(RN), -s.round(RN)));
        BOOST_TEST(same_bits(n.round(RZ), -s.round(RZ)));
        BOOST_TEST(same_bits(n.round(RU), -s.round(RD)));
        BOOST_TEST(same_bits(n.round(RD), -s.round(RU)));
      }
      for (rounding m : all_modes) BOOST_TEST(same_bits(n.round(m), direct.round(m)), name(m));
      BOOST_TEST((n == direct));
      superaccumulator nn = n;
      nn.negate();
      BOOST_TEST((nn == s));
    }
  }
  // sign() ignores the flags, is_zero follows it
  BOOST_TEST(superaccumulator().sign() == 0);
  BOOST_TEST(superaccumulator().is_zero());
  BOOST_TEST(acc_of({V(1)}).sign() == 1);
  BOOST_TEST(acc_of({V(-dmin_sub)}).sign() == -1);
  BOOST_TEST(acc_of({P(-dmin_sub, dmin_sub)}).sign() == -1);
  BOOST_TEST(acc_of({P(dmin_sub, dmin_sub)}).sign() == 1);
  BOOST_TEST(acc_of({V(inf)}).sign() == 0);
  BOOST_TEST(acc_of({V(qnan), V(-2)}).sign() == -1);
  BOOST_TEST(acc_of({V(1), V(-1)}).is_zero());
  BOOST_TEST(acc_of({V(DBL_MAX), V(DBL_MAX)}).sign() == 1);
  BOOST_TEST(acc_of({P(-DBL_MAX, DBL_MAX)}).sign() == -1);
  BOOST_TEST(!acc_of({V(DBL_MAX)}).has_special());
  BOOST_TEST(acc_of({P(inf, 0.0)}).has_special());
  // the special flags swap sides
  superaccumulator pi = acc_of({V(inf), V(3)});
  pi.negate();
  BOOST_TEST(same_bits(pi.round(), -inf));
  superaccumulator nan = acc_of({V(qnan)});
  nan.negate();
  BOOST_TEST(std::isnan(nan.round()));
}

BOOST_AUTO_TEST_SUITE_END()

// ===================================================================
BOOST_AUTO_TEST_SUITE(expansions)

namespace {

constexpr exala::fpe<2> constexpr_fpe() {
  exala::fpe<2> e;
  e.add(1.0);
  e.add(0x1p-60);
  e.add(0x1p-61);
  return e;
}
static_assert(constexpr_fpe().a[0] == 1.0);
static_assert(constexpr_fpe().a[1] == 0x1.8p-60);

template <int N, bool EE>
void check_fpe(std::uint64_t seed) {
  rng_t r(seed);
  for (int rep = 0; rep < 60; ++rep) {
    exala::fpe<N, EE> e;
    exact_fixed exact, residuals;
    const int n = 1 + static_cast<int>(r() % 300);
    const int kind = rep % 4;
    for (int i = 0; i < n; ++i) {
      double x;
      switch (kind) {
        case 0: x = uniform(r); break;
        case 1: x = random_exp(r, -1074, 1000); break;                      // wide
        case 2: x = (i % 2) ? -random_exp(r, 990, 1000) : random_exp(r, -1074, -1000); break;
        default: x = random_exp(r, -60, 60) * ((i % 3) ? 1.0 : 0x1p-900); break;
      }
      exact_fixed before;
      for (double v : e.a) before.add(v);
      const double res = e.add(x);
      exact.add(x);
      residuals.add(res);
      // sum(a before) + x == sum(a after) + residual, at every step
      exact_fixed lhs = before, rhs;
      lhs.add(x);
      for (double v : e.a) rhs.add(v);
      rhs.add(res);
      if (!(lhs == rhs)) {
        BOOST_ERROR("fpe<" << N << ", " << EE << "> lost bits adding " << hex(x) << " (rep " << rep
                           << ", step " << i << ")");
        return;
      }
    }
    exact_fixed held = residuals;
    for (double v : e.a) held.add(v);
    BOOST_TEST((held == exact), "fpe<" << N << ", " << EE << "> rep " << rep);
    // flush moves the exact value into a superaccumulator and clears
    superaccumulator s;
    e.flush(s);
    exact_fixed flushed = value_of(s);
    flushed.add(residuals);
    BOOST_TEST((flushed == exact));
    for (double v : e.a) BOOST_TEST(v == 0.0);
  }
  // terms that fit: no residual at all without early exit, nor with it
  exala::fpe<N, EE> e;
  double res = 0.0;
  for (int k = 0; k < N; ++k) res = std::fabs(res) + std::fabs(e.add(std::ldexp(1.0, -100 * k)));
  BOOST_TEST(res == 0.0);
}

template <int... Ns>
void check_all_fpe(std::integer_sequence<int, Ns...>) {
  (check_fpe<Ns + 2, true>(100 + Ns), ...);
  (check_fpe<Ns + 2, false>(200 + Ns), ...);
}

}  // namespace

BOOST_AUTO_TEST_CASE(fpe_is_exact_for_n_2_to_8) {
  check_all_fpe(std::make_integer_sequence<int, 7>{});
}

namespace {

terms adversarial_terms(rng_t& r, int kind, int n) {
  terms t;
  for (int i = 0; i < n; ++i) {
    switch (kind) {
      case 0: t.push_back(V(uniform(r))); break;
      case 1: t.push_back(V(random_any_finite(r))); break;
      case 2: {  // huge values around the multi-level threshold 2^1020 and DBL_MAX
        const double h[] = {DBL_MAX, -DBL_MAX, 0x1p1020, -0x1p1020, 0x1.fffffffffffffp+1019,
                            0x1p1022, 0x1.8p1022, -0x1p1021, 1.0, 0x1p-1074};
        t.push_back(V(h[r() % 10]));
        break;
      }
      case 3: t.push_back(V(random_exp(r, -1074, -1000))); break;  // subnormals
      case 4: t.push_back(P(random_any_finite(r), random_any_finite(r))); break;
      case 5: t.push_back(P(random_exp(r, -600, 600), random_exp(r, -600, 600))); break;
      case 6: {  // products at the edges of two_prod_is_exact
        const int ea = static_cast<int>(r() % 2098) - 1074;
        const int eb = ((r() & 1) ? -970 : 1021) - ea + static_cast<int>(r() % 5) - 2;
        t.push_back(P(random_exp(r, ea, ea), random_exp(r, std::max(-1074, std::min(1023, eb)),
                                                         std::max(-1074, std::min(1023, eb)))));
        break;
      }
      case 7: {  // specials among ordinary values
        const double s[] = {inf, -inf, qnan, 1.0, -2.0, 0.0, -0.0, DBL_MAX};
        if (r() % 2)
          t.push_back(V(s[r() % 8]));
        else
          t.push_back(P(s[r() % 8], s[r() % 8]));
        break;
      }
      case 8: t.push_back(V((r() & 1) ? -0.0 : 0.0)); break;
      default: {  // -0 only, and products giving -0
        if (r() & 1)
          t.push_back(V(-0.0));
        else
          t.push_back(P(-0.0, 1.0 + static_cast<double>(r() % 3)));
        break;
      }
    }
  }
  if (kind <= 6 && r() % 2) {  // cancel everything (plus a tiny remainder)
    const terms c = t;
    for (const term& x : c) t.push_back({-x.a, x.b, x.prod});
    t.push_back(V(dmin_sub));
    shuffle(t, r);
  }
  return t;
}

template <int N, bool EE>
void check_multilevel(std::uint64_t seed) {
  rng_t r(seed);
  for (int rep = 0; rep < 120; ++rep) {
    const int kind = rep % 10;
    const terms t = adversarial_terms(r, kind, static_cast<int>(r() % 500));
    exala::multilevel_accumulator<N, EE> ml;
    for (const term& x : t) add_to_ml(ml, x);
    const superaccumulator want = acc_of(t);
    const superaccumulator got = ml.result();
    BOOST_TEST_CONTEXT("multilevel_accumulator<" << N << ", " << EE << "> rep " << rep << ", kind "
                                                 << kind << ", " << describe(t, 6)) {
      BOOST_TEST((got == want));
      for (rounding m : all_modes) {
        BOOST_TEST(same_bits(ml.round(m), want.round(m)), name(m) << ": " << hex(ml.round(m))
                                                                   << " vs " << hex(want.round(m)));
      }
      if (all_finite(t)) BOOST_TEST((value_of(got) == exact_of(t)));
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(multilevel_equals_superaccumulator) {
  check_multilevel<2, true>(31);
  check_multilevel<2, false>(32);
  check_multilevel<3, true>(33);
  check_multilevel<4, true>(34);
  check_multilevel<4, false>(35);
  check_multilevel<8, true>(36);
  check_multilevel<8, false>(37);
}

BOOST_AUTO_TEST_CASE(multilevel_edge_sequences) {
  // Sequences that push the expansion to its threshold, one term at a time.
  const std::vector<terms> seqs = {
      {V(0x1.fffffffffffffp+1019), V(0x1.fffffffffffffp+1019), V(0x1.fffffffffffffp+1019),
       V(-DBL_MAX)},
      {P(0x1.fffffffffffffp+510, 0x1.fffffffffffffp+510), V(0x1.fffffffffffffp+1019),
       P(0x1.fffffffffffffp+510, 0x1.fffffffffffffp+510), V(-DBL_MAX)},
      {V(DBL_MAX), V(DBL_MAX), V(-DBL_MAX)},
      {V(0x1p1019), V(0x1p1019), V(0x1p1019), V(0x1p1019), V(0x1p-1074), V(-0x1p1021)},
      {P(0x1p-485, 0x1p-485), P(0x1p-485, 0x1p-486), V(-0x1p-970)},
      {V(-0.0), P(-0.0, 2.0), V(-0.0)},
      {V(-0.0), V(0x1p1021), V(-0x1p1021)},
      {V(inf), V(1.0), V(-0x1p1022)},
      {P(inf, 0.0)},
      {},
  };
  for (const terms& t : seqs) {
    exala::multilevel_accumulator<2> ml;
    for (const term& x : t) add_to_ml(ml, x);
    const superaccumulator want = acc_of(t);
    BOOST_TEST_CONTEXT(describe(t)) {
      BOOST_TEST((ml.result() == want));
      for (rounding m : all_modes) BOOST_TEST(same_bits(ml.round(m), want.round(m)), name(m));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ===================================================================
#ifdef EXALA_TEST_HAVE_MPFR
BOOST_AUTO_TEST_SUITE(mpfr_oracle)

namespace {

double round_mpfr(const terms& t, rounding m) {
  mpfr_exact_sum o(m);
  for (const term& x : t) {
    if (x.prod)
      o.add_product(x.a, x.b);
    else
      o.add(x.a);
  }
  return o.round();
}

[[gnu::noinline]] double hw_add(double a, double b) {
  volatile double va = a, vb = b;
  volatile double r = va + vb;
  return r;
}
[[gnu::noinline]] double hw_mul(double a, double b) {
  volatile double va = a, vb = b;
  volatile double r = va * vb;
  return r;
}
int fe_of(rounding m) {
  switch (m) {
    case RN: return FE_TONEAREST;
    case RZ: return FE_TOWARDZERO;
    case RU: return FE_UPWARD;
    case RD: return FE_DOWNWARD;
  }
  return FE_TONEAREST;
}

}  // namespace

// The oracle against the hardware's own single roundings of a + b and a * b
// (subnormal results, underflow ties, overflow) in all four directions: this
// validates the emin/emax/subnormalize recipe before it judges the library.
BOOST_AUTO_TEST_CASE(oracle_matches_hardware) {
  rng_t r(41);
  int bad = 0;
  for (int i = 0; i < 40000 && bad < 10; ++i) {
    double a, b;
    if (i % 3 == 0) {
      a = random_any_finite(r);
      b = random_any_finite(r);
    } else if (i % 3 == 1) {  // subnormal-range products and sums
      a = random_exp(r, -1074, -500);
      b = random_exp(r, -600, 60);
    } else {
      a = random_exp(r, -1074, -1020);
      b = random_exp(r, -1074, -1020);
    }
    if (i % 7 == 0) b = 0.5;
    for (rounding m : all_modes) {
      std::fesetround(fe_of(m));
      const double hs = hw_add(a, b), hp = hw_mul(a, b);
      std::fesetround(FE_TONEAREST);
      mpfr_exact_sum s(m), p(m);
      s.add(a);
      s.add(b);
      p.add_product(a, b);
      if (!same_bits(s.round(), hs) || !same_bits(p.round(), hp)) {
        ++bad;
        BOOST_ERROR("oracle vs hardware, " << name(m) << ", a = " << hex(a) << ", b = " << hex(b)
                                           << ": sum " << hex(s.round()) << " vs " << hex(hs)
                                           << ", product " << hex(p.round()) << " vs " << hex(hp));
      }
    }
  }
}

// The hand-written tables agree with the oracle (a check of both).
BOOST_AUTO_TEST_CASE(oracle_agrees_with_tables) {
  const double t = dmin_sub;
  const std::vector<terms> rows = {
      {V(1), V(0x1p-53)}, {V(1), V(3 * 0x1p-53)}, {V(1), V(0x1p-53), V(t)},
      {V(1), V(0x1p-53), P(t, t)}, {P(t, 0.5)}, {P(3 * t, 0.5)}, {P(t, t)}, {P(-t, t)},
      {V(DBL_MAX), V(0x1p970)}, {V(DBL_MAX), V(DBL_MAX), V(-DBL_MAX)}, {P(0x1p1000, 0x1p1000)},
      {V(-0.0), V(0.0)}, {V(-0.0)}, {}, {V(1.5), V(-1.5)}, {P(inf, 0.0)}, {V(inf), V(-inf)},
      {V(1e300), V(t), V(-1e300)}, {P(0x1.0000000000003p-1022, 0.5)}};
  for (const terms& row : rows) {
    const superaccumulator s = acc_of(row);
    for (rounding m : all_modes)
      BOOST_TEST(same_bits(s.round(m), round_mpfr(row, m)), describe(row) << " " << name(m));
  }
}

namespace {
void compare_with_mpfr(const terms& t, const std::string& what) {
  const superaccumulator s = acc_of(t);
  exala::multilevel_accumulator<2> ml;
  for (const term& x : t) add_to_ml(ml, x);
  for (rounding m : all_modes) {
    const double want = round_mpfr(t, m);
    const double got = s.round(m), got_ml = ml.round(m);
    if (!same_bits(got, want) || !same_bits(got_ml, want))
      BOOST_ERROR(what << " " << name(m) << ": superaccumulator " << hex(got) << ", multilevel "
                       << hex(got_ml) << ", MPFR " << hex(want) << " for " << describe(t, 8));
  }
}

terms mpfr_case(rng_t& r, int kind, int n) {
  terms t;
  switch (kind) {
    case 0:  // wide exponents
      for (int i = 0; i < n; ++i) t.push_back(V(random_exp(r, -1074, 1023)));
      break;
    case 1:  // heavy cancellation with a small random remainder
      for (int i = 0; i < n; ++i) {
        const double x = random_exp(r, -200, 1000);
        t.push_back(V(x));
        t.push_back(V(-x));
      }
      t.push_back(V(random_exp(r, -1074, 0)));
      t.push_back(V(random_exp(r, -1074, -1000)));
      shuffle(t, r);
      break;
    case 2:  // products over the full range (over- and underflowing ones)
      for (int i = 0; i < n; ++i) t.push_back(P(random_any_finite(r), random_any_finite(r)));
      break;
    case 3:  // products that cancel, leaving their TwoProd error terms
      for (int i = 0; i < n; ++i) {
        const double a = random_exp(r, -700, 700), b = random_exp(r, -300, 300);
        t.push_back(P(a, b));
        t.push_back(V(-(a * b)));
      }
      shuffle(t, r);
      break;
    case 4: {  // ties: a random value plus half its ulp, plus cancelling noise
      const double x = random_exp(r, -1074, 1022);
      const int e = ulp_exp(x);
      t.push_back(V(x));
      t.push_back(P2(e - 1));
      if (r() % 2) t.push_back((r() % 2) ? P(dmin_sub, dmin_sub) : P(-dmin_sub, dmin_sub));
      for (int i = 0; i < n; ++i) {
        const double y = random_exp(r, -1074, 1023);
        t.push_back(V(y));
        t.push_back(V(-y));
      }
      shuffle(t, r);
      break;
    }
    case 5:  // near the top: sums that overflow in the middle or for good
      for (int i = 0; i < n; ++i) t.push_back(V(((r() % 3) ? 1 : -1) * random_exp(r, 1015, 1023, false)));
      break;
    case 6:  // subnormal range
      for (int i = 0; i < n; ++i) {
        if (r() % 2)
          t.push_back(V(random_exp(r, -1074, -1022)));
        else
          t.push_back(P(random_exp(r, -1074, -1000), random_exp(r, -60, 10)));
      }
      break;
    default:  // everything at once, with special values
      t = random_terms(r, n, true);
      break;
  }
  return t;
}
}  // namespace

BOOST_AUTO_TEST_CASE(random_and_adversarial_vs_mpfr) {
  rng_t r(42);
  for (int rep = 0; rep < 2000; ++rep) {
    const int kind = rep % 8;
    const terms t = mpfr_case(r, kind, 1 + static_cast<int>(r() % 60));
    compare_with_mpfr(t, "rep " + std::to_string(rep) + " kind " + std::to_string(kind));
  }
}

BOOST_AUTO_TEST_CASE(long_random_vs_mpfr, *utf::label("long")) {
  rng_t r(4242);
  for (int rep = 0; rep < 20000; ++rep) {
    const int kind = rep % 8;
    const terms t = mpfr_case(r, kind, 1 + static_cast<int>(r() % 400));
    compare_with_mpfr(t, "rep " + std::to_string(rep) + " kind " + std::to_string(kind));
  }
}

BOOST_AUTO_TEST_SUITE_END()
#else
BOOST_AUTO_TEST_CASE(mpfr_oracle_compiled_out) {
  BOOST_TEST_MESSAGE("MPFR was not found at configure time: the MPFR-oracle cases are compiled out");
  BOOST_TEST(true);
}
#endif
