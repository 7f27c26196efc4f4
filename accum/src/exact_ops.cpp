// Correctly rounded alpha*S + beta*c and S/d for an exact accumulated S.
// Contract in exala/exact_ops.hpp.
#include "exala/exact_ops.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "exala/detail/round_digits.hpp"

namespace exala {

namespace {

using u128 = unsigned __int128;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double dmax = std::numeric_limits<double>::max();

// Significand and exponent of a finite nonzero double: |x| = mant * 2^exp,
// mant < 2^53 (subnormals included), exp >= -1074.
struct unpacked {
  std::uint64_t mant;
  int exp;
};
unpacked unpack(double x) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  return {(bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{biased != 0} << 52),
          (biased + (biased == 0)) - 1075};
}

// The wide fixed-point accumulator of round_axpby. alpha*S spans
// 2^-3250 (2^-1074 times the accumulator's 2^-2176) to below 2^3263 (2^1024
// times the accumulator's top), beta*c spans 2^-2148 .. 2^2048: digits of
// radix 2^32 from 2^wide_min, i.e. superaccumulator digit i sits at wide
// digit i + shift.
constexpr int wide_min = -3264;
constexpr int shift_digits = (superaccumulator::min_exponent - wide_min) / 32;  // 34
static_assert((superaccumulator::min_exponent - wide_min) % 32 == 0);
constexpr int wide_digits = superaccumulator::num_digits + 2 + shift_digits + 40;

struct wide_acc {
  std::array<std::int64_t, wide_digits> d{};

  // Adds (or subtracts) v * 2^(pos + wide_min), v < 2^117 after the shift.
  void deposit(u128 v, int pos, bool negative) noexcept {
    const int i = pos >> 5;
    const u128 w = v << (pos & 31);  // the caller keeps v < 2^96
    for (int k = 0; k < 4; ++k) {
      const auto part = static_cast<std::int64_t>(static_cast<std::uint64_t>(w >> (32 * k)) &
                                                  0xffffffffu);
      d[i + k] += negative ? -part : part;
    }
  }
  void normalize() noexcept {
    std::int64_t carry = 0;
    for (int i = 0; i < wide_digits - 1; ++i) {
      const std::int64_t v = d[i] + carry;
      d[i] = v & 0xffffffff;
      carry = v >> 32;
    }
    d[wide_digits - 1] += carry;
  }
};

// Special-value class of a product in IEEE terms.
enum class cls { finite, pos_inf, neg_inf, nan };

cls combine(cls a, cls b) noexcept {
  if (a == cls::nan || b == cls::nan) return cls::nan;
  if (a == cls::finite) return b;
  if (b == cls::finite || a == b) return a;
  return cls::nan;  // +inf + -inf
}

// The class of alpha * S (S's flags, and the sign of its finite part).
cls class_of_scaled(double alpha, const superaccumulator& s, int s_sign) noexcept {
  const std::uint32_t f = s.flags();
  const bool s_nan = (f & superaccumulator::flag_nan) ||
                     ((f & superaccumulator::flag_pos_inf) && (f & superaccumulator::flag_neg_inf));
  if (std::isnan(alpha) || s_nan) return cls::nan;
  if (f & (superaccumulator::flag_pos_inf | superaccumulator::flag_neg_inf)) {
    if (alpha == 0.0) return cls::nan;  // 0 * inf
    const bool neg = ((f & superaccumulator::flag_neg_inf) != 0) != std::signbit(alpha);
    return neg ? cls::neg_inf : cls::pos_inf;
  }
  if (std::isinf(alpha)) {
    if (s_sign == 0) return cls::nan;  // inf * 0
    return (s_sign < 0) != std::signbit(alpha) ? cls::neg_inf : cls::pos_inf;
  }
  return cls::finite;
}

cls class_of_product(double b, double c) noexcept {
  if (std::isfinite(b) && std::isfinite(c)) return cls::finite;
  const double p = b * c;  // IEEE: NaN, inf*0 = NaN, or a signed infinity
  if (std::isnan(p)) return cls::nan;
  return p > 0 ? cls::pos_inf : cls::neg_inf;
}

double value_of(cls c) noexcept {
  return c == cls::nan ? nan : c == cls::pos_inf ? inf : -inf;
}

// The IEEE sign of an exact zero sum x + y of two exact zero terms with
// signs sx, sy (x + y keeps a common sign; otherwise +0, or -0 downward).
double zero_sum(bool sx, bool sy, rounding mode) noexcept {
  if (sx == sy) return sx ? -0.0 : 0.0;
  return mode == rounding::downward ? -0.0 : 0.0;
}

}  // namespace

double round_axpby(double alpha, const superaccumulator& s, double beta, double c,
                   rounding mode) noexcept {
  superaccumulator t = s;
  if (alpha == 1.0) {
    // S + beta * c is a plain exact sum of S's terms and one product, and
    // IEEE's zero-sign rules for it agree with those for (1 S) + (beta c), so
    // the accumulator's own rounding applies. (Not for alpha = -1: -S of an
    // exact cancellation rounded downward is +0, while the negated terms
    // would sum to -0.)
    t.add_product(beta, c);
    return t.round(mode);
  }
  t.normalize();
  const int s_sign = t.sign();
  const cls k = combine(class_of_scaled(alpha, s, s_sign), class_of_product(beta, c));
  if (k != cls::finite) return value_of(k);

  const bool term1_zero = alpha == 0.0 || s_sign == 0;
  const bool term2_zero = beta == 0.0 || c == 0.0;
  wide_acc w;
  bool any = false;
  if (!term1_zero) {
    // |S| digit by digit (normalized, top digit split into 32-bit words) times
    // the 53-bit significand of alpha, shifted by alpha's exponent.
    if (s_sign < 0) t.negate();  // normalized magnitude digits (t is not used as S below)
    const auto& mag = t.digits();
    const unpacked a = unpack(alpha);
    const bool negative = (s_sign < 0) != std::signbit(alpha);
    for (int i = 0; i < superaccumulator::num_digits; ++i) {
      auto v = static_cast<std::uint64_t>(mag[i]);  // top digit: < 2^63
      for (int part = 0; v != 0; ++part, v >>= 32) {
        const std::uint64_t word = v & 0xffffffffu;
        if (word == 0) continue;
        // word * 2^(32 (i + part) + min_exponent) * mant * 2^exp
        const int pos = 32 * (i + part + shift_digits) + a.exp;  // >= 1088 - 1074 > 0
        w.deposit(static_cast<u128>(word) * a.mant, pos, negative);
      }
    }
    any = true;
  }
  if (!term2_zero) {
    const unpacked b = unpack(beta);
    const unpacked cc = unpack(c);
    const bool negative = std::signbit(beta) != std::signbit(c);
    const u128 p = static_cast<u128>(b.mant) * cc.mant;  // < 2^106
    const int pos = b.exp + cc.exp - wide_min;              // >= -2148 + 3264
    w.deposit(p & ((u128{1} << 64) - 1), pos, negative);
    w.deposit(p >> 64, pos + 64, negative);
    any = true;
  }
  if (any) {
    w.normalize();
    const bool negative = w.d[wide_digits - 1] < 0;
    if (negative) {
      for (auto& x : w.d) x = -x;
      w.normalize();
    }
    int h = wide_digits - 1;
    while (h >= 0 && w.d[h] == 0) --h;
    if (h >= 0) return detail::round_magnitude(w.d.data(), h, wide_min, negative, mode);
    if (!term1_zero || !term2_zero) return mode == rounding::downward ? -0.0 : 0.0;  // cancellation
  }
  // Both terms are exact zeros: IEEE signs of the products, then of the sum.
  // S's sign, or for an exact zero S its IEEE zero sign (as S rounds).
  const bool s_neg = s_sign != 0 ? s_sign < 0 : std::signbit(s.round(mode));
  const bool sign1 = std::signbit(alpha) != s_neg;
  const bool sign2 = std::signbit(beta) != std::signbit(c);
  return zero_sum(sign1, sign2, mode);
}

namespace {

// Exact comparisons against the magnitude |S| (a nonnegative accumulator)
// for a positive divisor dv: sign(|S| - q dv), and for the midpoint between
// q and q + ulp, sign(2|S| - 2 q dv - ulp dv) (doubled so that every term is
// a product of two doubles: exact even where ulp/2 is not a double).
int cmp_at(const superaccumulator& mag, double q, double dv) noexcept {
  superaccumulator t = mag;
  t.add_product(-q, dv);
  return t.sign();
}
int cmp_mid(const superaccumulator& mag, double q, double ulp, double dv) noexcept {
  superaccumulator t = mag;
  t.merge(mag);
  t.add_product(-q, dv);
  t.add_product(-q, dv);
  t.add_product(-ulp, dv);
  return t.sign();
}
// The gap from q to the next larger double (2^971 above DBL_MAX, as if the
// exponent range went on: the overflow threshold is DBL_MAX + ulp/2).
double gap_up(double q) noexcept {
  return q == dmax ? 0x1p971 : std::nextafter(q, inf) - q;
}
bool odd(double v) noexcept { return (std::bit_cast<std::uint64_t>(v) & 1) != 0; }

struct pair2 {
  double sum, err;
};
pair2 two_sum_pair(double a, double b) noexcept {  // Knuth's TwoSum: a + b = sum + err
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// Fast path of round_div (Ziv's strategy): the leading 128 bits of |S| give
// the quotient to about 2^-95 relative; when that interval holds no rounding
// boundary of the mode, the rounding is decided without further exact work.
// Returns false (undecided) near a boundary, for exact quotients, and
// outside the comfortably normal range, where the exact comparisons decide.
bool round_div_fast(const superaccumulator& s, double d, rounding mode, double& out) noexcept {
  superaccumulator t = s;
  t.normalize();
  constexpr int N = superaccumulator::num_digits;
  const auto& dg = t.digits();
  const bool s_neg = dg[N - 1] < 0;
  if (dg[N - 1] != 0 && dg[N - 1] != -1) return false;  // beyond 2^2176: rare, exact path
  // Magnitude digit i of |S|: for a negative S (two's complement with
  // all-ones high digits) it is 2^32 - d_z at the lowest nonzero digit z,
  // 2^32 - 1 - d_i above it, 0 below.
  int z = 0;
  if (s_neg)
    while (z < N - 1 && dg[z] == 0) ++z;
  auto mag = [&](int i) -> std::uint64_t {
    if (i < 0) return 0;
    const auto v = static_cast<std::uint64_t>(dg[i]);
    if (!s_neg) return v;
    if (i < z) return 0;
    return i == z ? (std::uint64_t{1} << 32) - v : 0xffffffffu - v;
  };
  int h = N - 2;
  while (h >= 0 && mag(h) == 0) --h;
  if (h < 0) return false;
  // |S| = V 2^E (1 + e): V = sum_{k<4} mag(h-k) 2^(-32k) in [1, 2^32) as the
  // double-double vh + vl (error < 2^-100 V), e from the digits below (< 2^-96).
  double vh = 0.0, vl = 0.0;
  for (int k = 0; k < 4; ++k) {
    const double part = std::ldexp(static_cast<double>(mag(h - k)), -32 * k);  // exact
    const auto [sum, err] = two_sum_pair(vh, part);
    vh = sum;
    vl += err;
  }
  const auto [h2, l2] = two_sum_pair(vh, vl);
  vh = h2;
  vl = l2;
  const int E = 32 * h + superaccumulator::min_exponent;
  int ed = 0;
  const double dm = std::frexp(std::fabs(d), &ed);  // [0.5, 1)
  const int scale = E - ed;                          // quotient = (V / dm) 2^scale
  // Keep q comfortably normal: V/dm is in (1, 2^33).
  if (scale < -1000 || scale > 980) return false;
  const double qs = vh / dm;
  const double r = std::fma(-qs, dm, vh);  // exact remainder of the first division
  const double ql = (r + vl) / dm;         // |V/dm - (qs + ql)| < 2^-100 qs
  const double qc = qs + ql;               // the double nearest the estimate
  const double rest = ql - (qc - qs);      // estimate - qc (qc - qs exact: 0 or an ulp)
  const double margin = std::ldexp(qc, -90);
  const double gu = std::nextafter(qc, inf) - qc;
  const double gd = qc - std::nextafter(qc, 0.0);
  const bool negative = s_neg != std::signbit(d);
  bool magnitude_up;  // direction for the magnitude in the directed modes
  double res;
  switch (mode) {
    case rounding::to_nearest_even:
      if (!(rest + margin < 0.5 * gu && rest - margin > -0.5 * gd)) return false;
      res = qc;
      break;
    case rounding::toward_zero:
    case rounding::upward:
    case rounding::downward:
      magnitude_up = mode == rounding::upward ? !negative : mode == rounding::downward ? negative : false;
      if (rest > margin)
        res = magnitude_up ? std::nextafter(qc, inf) : qc;
      else if (rest < -margin)
        res = magnitude_up ? qc : std::nextafter(qc, 0.0);
      else
        return false;  // possibly an exact quotient: decide exactly
      break;
    default:
      return false;
  }
  res = std::ldexp(res, scale);  // exact: the result is a normal double
  out = negative ? -res : res;
  return true;
}

}  // namespace

double round_div(const superaccumulator& s, double d, rounding mode) noexcept {
  if (!s.has_special() && std::isfinite(d) && d != 0.0) {
    double q;
    if (round_div_fast(s, d, mode, q)) return q;
  }
  const int sg = s.sign();
  if (s.has_special() || !std::isfinite(d) || d == 0.0 || sg == 0) {
    // IEEE on the rounded numerator: its specials, its zero sign, and
    // x/0 = +-inf, 0/0 = NaN, finite/inf = +-0 are all exact statements.
    // A nonzero S never rounds to a zero of the wrong sign, and x/inf is 0
    // whatever x's magnitude, so rounding S first loses nothing here.
    const double sv = s.round(sg == 0 ? mode : rounding::toward_zero);
    if (d == 0.0 && sg != 0 && !s.has_special())
      return (sg < 0) != std::signbit(d) ? -inf : inf;
    return sv / d;
  }
  const bool negative = (sg < 0) != std::signbit(d);
  const double dv = std::fabs(d);
  superaccumulator mag = s;
  if (sg < 0) mag.negate();
  // The magnitude is rounded in direction `dir`: nearest, down or up.
  enum class dir { nearest, down, up } r = dir::nearest;
  switch (mode) {
    case rounding::to_nearest_even: r = dir::nearest; break;
    case rounding::toward_zero: r = dir::down; break;
    case rounding::upward: r = negative ? dir::down : dir::up; break;
    case rounding::downward: r = negative ? dir::up : dir::down; break;
  }

  // First guess, the seed's two divisions: q0 = |S|~ / d, then the exact
  // remainder R = |S| - q0 d rounded and divided again. Scaled so that
  // neither division overflows or underflows: |S| = sv 2^e, d = dm 2^ed.
  const int e = mag.exponent();
  const double sv = mag.round_scaled(e);  // in [1, 2]
  int ed = 0;
  const double dm = std::frexp(dv, &ed);  // in [0.5, 1)
  double q = std::ldexp(sv / dm, e - ed);
  if (q > dmax) q = dmax;
  if (q == 0.0) q = std::numeric_limits<double>::denorm_min();
  {
    superaccumulator rem = mag;
    rem.add_product(-q, dv);
    const int re = rem.exponent();
    if (re != std::numeric_limits<int>::min()) {
      const double rv = rem.round_scaled(re);
      const double c = std::ldexp(rv / dm, re - ed);
      const double q1 = q + c;
      if (std::isfinite(q1) && q1 >= 0.0) q = q1 > dmax ? dmax : q1;
    } else {
      return negative ? -q : q;  // q d = |S| exactly: q is the quotient
    }
  }

  // Then exact comparisons; the guess is within a few ulps, so each loop
  // ends after a few steps (the cap turns a future bug into NaN, not a hang).
  constexpr int max_steps = 64;
  for (int step = 0; step < max_steps; ++step) {
    if (r == dir::nearest) {
      // Up if |S|/d lies above the midpoint of q and its successor (or on
      // it with q odd); down if below the midpoint of q and its predecessor.
      const int up = cmp_mid(mag, q, gap_up(q), dv);
      if (up > 0 || (up == 0 && odd(q))) {
        if (q == dmax) return negative ? -inf : inf;
        q = std::nextafter(q, inf);
        continue;
      }
      if (q > 0.0) {
        const double p = std::nextafter(q, 0.0);
        const int lo = cmp_mid(mag, p, q - p, dv);
        if (lo < 0 || (lo == 0 && odd(q))) {
          q = p;
          continue;
        }
      }
      return negative ? -q : q;
    }
    if (r == dir::down) {  // the largest q >= 0 with q d <= |S| (DBL_MAX at most)
      if (cmp_at(mag, q, dv) < 0) {
        q = std::nextafter(q, 0.0);
        continue;
      }
      if (q != dmax && cmp_at(mag, std::nextafter(q, inf), dv) >= 0) {
        q = std::nextafter(q, inf);
        continue;
      }
      return negative ? -q : q;
    }
    // up: the smallest q with q d >= |S| (+inf beyond DBL_MAX)
    if (cmp_at(mag, q, dv) > 0) {
      if (q == dmax) return negative ? -inf : inf;
      q = std::nextafter(q, inf);
      continue;
    }
    if (q > 0.0) {
      const double p = std::nextafter(q, 0.0);
      if (cmp_at(mag, p, dv) <= 0) {
        q = p;
        continue;
      }
    }
    return negative ? -q : q;
  }
  return nan;
}

}  // namespace exala
