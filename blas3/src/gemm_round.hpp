// Internal: the one rounding of the exact gemm, on exact integers.
//
// finish() returns round(alpha * S + beta * c) for S = X * 2^s, X an exact
// multi-limb integer, correctly rounded in the requested IEEE direction and
// bit-identical to exala::round_axpby on an accumulator holding S (same
// special-value classes, same zero signs, same overflow and subnormal
// results): the fast path of the gemm finalization, ~50x cheaper than
// building the accumulator. Everything here is integer arithmetic, so no
// floating-point rounding happens before the final one.
//
// The two terms alpha*X*2^s and beta*c are exact integers times powers of two
// (alpha = ma 2^ea, beta c = mb mc 2^(eb+ec)); their sum is formed exactly in
// a window of limbs. When the smaller term lies far below the larger one it
// is replaced by a single "sticky" bit (lemma at round_sum), which bounds the
// window without changing the rounded result.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "exala/rounding.hpp"

namespace exala::detail::gemm3 {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

inline constexpr double k_inf = std::numeric_limits<double>::infinity();
inline constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double k_dmax = std::numeric_limits<double>::max();

// Limbs of the exact integers: |X| < 2^240 (10 moduli below 2^24), alpha * X
// one limb more; the window of a two-term sum is bounded in round_sum.
inline constexpr int x_limbs = 4;
inline constexpr int t_limbs = x_limbs + 1;
inline constexpr int window_limbs = 12;

// A finite double as sign, 53-bit integer significand and exponent:
// |v| = mant * 2^exp (exp >= -1074; mant == 0 for zeros).
struct scalar {
  double v;
  bool neg;
  bool zero;
  bool finite;
  u64 mant;
  int exp;
};

inline scalar unpack(double v) noexcept {
  const u64 bits = std::bit_cast<u64>(v);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  scalar s;
  s.v = v;
  s.neg = (bits >> 63) != 0;
  s.finite = biased != 0x7ff;
  s.mant = (bits & ((u64{1} << 52) - 1)) | (u64{biased != 0 && s.finite} << 52);
  s.zero = s.finite && s.mant == 0;
  s.exp = (biased + (biased == 0)) - 1075;
  return s;
}

// --------------------------------------------------------------- limbs

// Bit `pos` of the n-limb integer w (0 outside [0, 64 n)).
inline bool bit_at(const u64* w, int n, int pos) noexcept {
  if (pos < 0 || pos >= 64 * n) return false;
  return (w[pos >> 6] >> (pos & 63)) & 1;
}

// The 64 bits of w starting at bit `pos` (which may be negative: the bits
// below bit 0 are zeros).
inline u64 bits_from(const u64* w, int n, int pos) noexcept {
  if (pos <= -64 || pos >= 64 * n) return 0;
  if (pos < 0) return w[0] << (-pos);
  const int i = pos >> 6, sh = pos & 63;
  u64 r = w[i] >> sh;
  if (sh != 0 && i + 1 < n) r |= w[i + 1] << (64 - sh);
  return r;
}

// True when a bit of w below bit `pos` is set.
inline bool any_below(const u64* w, int n, int pos) noexcept {
  if (pos <= 0) return false;
  const int i = pos >> 6, sh = pos & 63;
  const int full = i < n ? i : n;
  for (int t = 0; t < full; ++t)
    if (w[t] != 0) return true;
  return i < n && sh != 0 && (w[i] & ((u64{1} << sh) - 1)) != 0;
}

// Index of the highest set bit of a nonzero w, or -1 when w == 0.
inline int top_bit(const u64* w, int n) noexcept {
  for (int t = n - 1; t >= 0; --t)
    if (w[t] != 0) return 64 * t + 63 - std::countl_zero(w[t]);
  return -1;
}

// --------------------------------------------------------------- rounding

// The nonzero value (-1)^negative * w * 2^exp correctly rounded to binary64 in
// `mode`: 53-bit significand, or the subnormal grid 2^-1074; results at or
// beyond 2^1024 after rounding give +-inf, or +-DBL_MAX where the direction
// points toward zero (IEEE 754-2019 7.4). Same rules as round_magnitude in
// exala/detail/round_digits.hpp, on 64-bit limbs.
inline double round_mag(const u64* w, int n, int exp, bool negative, rounding mode) noexcept {
  while (n > 0 && w[n - 1] == 0) --n;
  const int msb = top_bit(w, n);
  const int e_msb = exp + msb;
  int q = e_msb - 52 > -1074 ? e_msb - 52 : -1074;  // exponent of the result's ulp
  const int qpos = q - exp;                           // its bit index in w, >= -52
  u64 m;
  bool guard, sticky;
  if (n <= 2) {  // the same extraction on a 128-bit integer
    const u128 x = n == 2 ? (static_cast<u128>(w[1]) << 64) | w[0] : static_cast<u128>(w[0]);
    if (qpos <= 0) {
      m = static_cast<u64>(x << (-qpos));  // exact: at most 53 bits
      guard = sticky = false;
    } else if (qpos <= 127) {
      m = static_cast<u64>(x >> qpos) & ((u64{1} << 53) - 1);
      guard = ((x >> (qpos - 1)) & 1) != 0;
      sticky = qpos >= 2 && (x & ((u128{1} << (qpos - 1)) - 1)) != 0;
    } else {
      m = 0;
      guard = qpos == 128 && (x >> 127) != 0;
      sticky = qpos == 128 ? (x & ((u128{1} << 127) - 1)) != 0 : x != 0;
    }
  } else {
    m = bits_from(w, n, qpos) & ((u64{1} << 53) - 1);
    guard = bit_at(w, n, qpos - 1);
    sticky = any_below(w, n, qpos - 1);
  }
  bool up = false;
  switch (mode) {
    case rounding::to_nearest_even: up = guard && (sticky || (m & 1)); break;
    case rounding::toward_zero: up = false; break;
    case rounding::upward: up = !negative && (guard || sticky); break;
    case rounding::downward: up = negative && (guard || sticky); break;
  }
  if (up) {
    ++m;
    if (m == (u64{1} << 53)) {
      m >>= 1;
      ++q;
    }
  }
  double mag;
  if (m == 0) {
    mag = 0.0;  // below half the smallest subnormal (or toward zero)
  } else if (m < (u64{1} << 52)) {
    mag = std::bit_cast<double>(m);  // subnormal: q == -1074
  } else {
    const int biased = q + 1075;
    if (biased >= 2047) {
      const bool to_inf = mode == rounding::to_nearest_even ||
                          (mode == rounding::upward && !negative) ||
                          (mode == rounding::downward && negative);
      mag = to_inf ? k_inf : k_dmax;
    } else {
      mag = std::bit_cast<double>((static_cast<u64>(biased) << 52) | (m & ((u64{1} << 52) - 1)));
    }
  }
  return negative ? -mag : mag;
}

// An exact nonzero term (-1)^neg * w * 2^exp with n limbs.
struct term {
  const u64* w;
  int n;
  int exp;
  bool neg;
};

// ORs w shifted left by `shift` bits (>= 0) into dst (dst_n limbs, zeroed).
inline void place(u64* dst, int dst_n, const u64* w, int n, int shift) noexcept {
  for (int t = 0; t < n; ++t) {
    if (w[t] == 0) continue;
    const int off = shift + 64 * t;
    const int i = off >> 6, sh = off & 63;
    if (i < dst_n) dst[i] |= w[t] << sh;
    if (sh != 0 && i + 1 < dst_n) dst[i + 1] |= w[t] >> (64 - sh);
  }
}

// round(x + y) for two exact nonzero terms, one rounding; an exact zero sum
// gives +0 (-0 downward), IEEE's sign for an exact cancellation.
//
// Lemma (sticky replacement). Let B be the term with the higher top bit H,
// E its lowest bit weight, and P = min(E - 2, H - 56). If the other term s
// satisfies 0 < |s| < 2^(P+1), then round(B + s) = round(B + sign(s) 2^P) in
// every direction. Proof: both sums lie strictly between B and B +- 2^(P+2),
// two neighbours on the grid G of multiples of 2^(P+2) (B is on G since
// E >= P + 2). Both sums exceed 2^(H-1) in magnitude, so their ulp is at
// least 2^(H-53) >= 2^(P+3) (or 2^-1074 in the subnormal range, larger
// still): every double, every midpoint between doubles, every power of two
// and the overflow thresholds (2^1024 and 2^1024 - 2^970) near them are on G.
// A rounding function is constant on an open interval free of those
// breakpoints, hence on the open G-cell holding both sums.
// With the replacement, the exact sum spans at most max(span(B) + 2, 56) +
// span(s) bits, so it fits the fixed window.
inline double round_sum(term x, term y, rounding mode) noexcept {
  int hx = x.exp + top_bit(x.w, x.n), hy = y.exp + top_bit(y.w, y.n);
  if (hx < hy) {
    const term t = x;
    x = y;
    y = t;
    const int h = hx;
    hx = hy;
    hy = h;
  }
  const int p = (x.exp - 2 < hx - 56) ? x.exp - 2 : hx - 56;
  static const u64 one = 1;
  if (hy <= p) y = term{&one, 1, p, y.neg};
  const int e0 = x.exp < y.exp ? x.exp : y.exp;
  const int width = hx - e0 + 2;  // bits, with room for a carry
  const int nl = (width + 63) / 64;
  u64 a[window_limbs] = {}, b[window_limbs] = {};
  // nl <= window_limbs: span(x) <= 64 t_limbs, span(y) <= 128 (see above).
  place(a, nl, x.w, x.n, x.exp - e0);
  place(b, nl, y.w, y.n, y.exp - e0);
  bool neg = x.neg;
  if (x.neg == y.neg) {
    u64 carry = 0;
    for (int t = 0; t < nl; ++t) {
      const u128 s = static_cast<u128>(a[t]) + b[t] + carry;
      a[t] = static_cast<u64>(s);
      carry = static_cast<u64>(s >> 64);
    }
  } else {
    int cmp = 0;
    for (int t = nl - 1; t >= 0 && cmp == 0; --t)
      if (a[t] != b[t]) cmp = a[t] > b[t] ? 1 : -1;
    if (cmp == 0) return mode == rounding::downward ? -0.0 : 0.0;
    u64* big = cmp > 0 ? a : b;
    const u64* small = cmp > 0 ? b : a;
    if (cmp < 0) neg = y.neg;
    u64 borrow = 0;
    for (int t = 0; t < nl; ++t) {
      const u64 d = big[t] - small[t] - borrow;
      borrow = (big[t] < small[t]) || (big[t] - small[t] < borrow) ? 1 : 0;
      big[t] = d;
    }
    if (cmp < 0) {
      for (int t = 0; t < nl; ++t) a[t] = b[t];
    }
  }
  return round_mag(a, nl, e0, neg, mode);
}

// --------------------------------------------------------------- entries

enum class cls { finite, pos_inf, neg_inf, nan };

inline cls combine(cls a, cls b) noexcept {
  if (a == cls::nan || b == cls::nan) return cls::nan;
  if (a == cls::finite) return b;
  if (b == cls::finite || a == b) return a;
  return cls::nan;  // +inf + -inf
}

inline cls class_of_product(double b, double c) noexcept {
  if (std::isfinite(b) && std::isfinite(c)) return cls::finite;
  const double p = b * c;  // IEEE: NaN, inf*0 = NaN, or a signed infinity
  if (std::isnan(p)) return cls::nan;
  return p > 0 ? cls::pos_inf : cls::neg_inf;
}

inline double value_of(cls c) noexcept {
  return c == cls::nan ? k_nan : c == cls::pos_inf ? k_inf : -k_inf;
}

// round(beta * c) alone, one IEEE product (the alpha == 0 or k == 0 entries):
// beta == 0 gives +0 without reading c, as exala::gemv does.
inline double round_product(const scalar& beta, double c, rounding mode) noexcept {
  if (beta.zero) return 0.0;
  const cls k = class_of_product(beta.v, c);
  if (k != cls::finite) return value_of(k);
  const scalar cc = unpack(c);
  const bool neg = beta.neg != cc.neg;
  if (cc.zero) return neg ? -0.0 : 0.0;
  const u128 p = static_cast<u128>(beta.mant) * cc.mant;
  const u64 w[2] = {static_cast<u64>(p), static_cast<u64>(p >> 64)};
  return round_mag(w, 2, beta.exp + cc.exp, neg, mode);
}

// round(alpha * X 2^s + beta * c) with X = (-1)^xneg * x (xn limbs, all zero
// for X == 0), following exala::round_axpby's rules for the exact expression:
// special values by class (alpha inf times X == 0 is NaN), one rounding of the
// exact sum, +0 (-0 downward) for an exact cancellation, and for two exact
// zero terms the IEEE sign of their sum, where an exact-zero S has the sign
// zero_sign() returns (S's own IEEE zero sign, from its terms). beta == 0
// must be passed as beta = 0, c = 0 (c is then not read, as in gemv).
template <class ZeroSign>
double finish(const scalar& alpha, const u64* x, int xn, bool xneg, int s, const scalar& beta,
              double c, rounding mode, ZeroSign&& zero_sign) noexcept {
  const bool x_zero = top_bit(x, xn) < 0;
  cls k1 = cls::finite;
  if (std::isnan(alpha.v)) {
    k1 = cls::nan;
  } else if (!alpha.finite) {
    k1 = x_zero ? cls::nan : (xneg != alpha.neg ? cls::neg_inf : cls::pos_inf);
  }
  const cls k = combine(k1, class_of_product(beta.v, c));
  if (k != cls::finite) return value_of(k);

  const bool zero1 = alpha.zero || x_zero;
  const scalar cc = unpack(c);
  const bool zero2 = beta.zero || cc.zero;
  u64 t1[t_limbs] = {};
  int n1 = 0;
  if (!zero1) {
    u64 carry = 0;
    for (int t = 0; t < xn; ++t) {
      const u128 p = static_cast<u128>(x[t]) * alpha.mant + carry;
      t1[t] = static_cast<u64>(p);
      carry = static_cast<u64>(p >> 64);
    }
    t1[xn] = carry;
    n1 = xn + 1;
  }
  u64 t2[2] = {};
  if (!zero2) {
    const u128 p = static_cast<u128>(beta.mant) * cc.mant;
    t2[0] = static_cast<u64>(p);
    t2[1] = static_cast<u64>(p >> 64);
  }
  if (!zero1 && zero2 && alpha.mant == (u64{1} << 52))  // alpha = +-2^e: X itself
    return round_mag(x, xn, s + alpha.exp + 52, xneg != alpha.neg, mode);
  const term a{t1, n1, s + alpha.exp, xneg != alpha.neg};
  const term b{t2, 2, beta.exp + cc.exp, beta.neg != cc.neg};
  if (!zero1 && !zero2) return round_sum(a, b, mode);
  if (!zero1) return round_mag(a.w, a.n, a.exp, a.neg, mode);
  if (!zero2) return round_mag(b.w, b.n, b.exp, b.neg, mode);
  // Two exact zero terms: their IEEE signs, then the sign of their sum.
  const bool s_neg = x_zero ? zero_sign() : xneg;
  const bool sign1 = alpha.neg != s_neg;
  const bool sign2 = beta.neg != cc.neg;
  if (sign1 == sign2) return sign1 ? -0.0 : 0.0;
  return mode == rounding::downward ? -0.0 : 0.0;
}

}  // namespace exala::detail::gemm3
