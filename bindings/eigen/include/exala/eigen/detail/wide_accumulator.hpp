// exala/eigen/detail/wide_accumulator.hpp - the exact accumulator of
// exact(e) for terms of up to THREE doubles (a * x_i * w_i in
// exact(a * x + b * y).dot(w)).
//
// Guarantee: after any sequence of add(), the held value is the exact sum of
// the terms; round() returns it correctly rounded in the requested IEEE
// direction (subnormals exact, overflow to +-inf or +-DBL_MAX by direction).
// A Kulisch long accumulator (as exala::superaccumulator, whose range stops
// at products of two doubles), widened to products of three.
//
// Assumptions: binary64 doubles (53-bit significands, exponents -1074 ..
// 1023), two's complement int64, unsigned __int128 (GCC/Clang).
// Range (wide_accumulator): a finite nonzero double is m 2^e with m < 2^53, -1074 <= e <= 971;
// a product of three is an integer below 2^159 times 2^E, -3222 <= E <= 2913,
// so below 2^3072. Digits of radix 2^32 from 2^min_exponent = 2^-3264 (a
// multiple of 32 below 2^-3222); num_digits = 202 reach 2^3200, room for the
// sum of 2^64 such products (< 2^3136) and the signed top digit.
// Each add() puts less than 2^33 into a digit, so a carry pass every 2^20
// terms keeps every digit below 2^63 in magnitude.
// Special values are kept in flags beside the digits (NaN in gives NaN, inf *
// 0 in a product gives NaN, +inf with -inf gives NaN, otherwise an infinity
// wins) and an exact zero gets the IEEE sign of the sum of its terms, with
// the rules of exala::superaccumulator (all terms -0: -0; otherwise +0, -0
// rounding downward when terms of both signs cancel).
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "exala/detail/round_digits.hpp"
#include "exala/rounding.hpp"

namespace exala::eigen::detail {

// The exponent span of the exact product f[0] ... f[n-1] when it is finite
// and nonzero: it is an integer below 2^(53 n) times 2^lo, so it lies in
// [2^lo, 2^hi) with hi = lo + 53 n. False for a zero or special product.
inline bool product_span(const double* f, int n, int& lo, int& hi) noexcept {
  int e = 0;
  for (int k = 0; k < n; ++k) {
    if (!std::isfinite(f[k]) || f[k] == 0.0) return false;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(f[k]);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    e += (biased + (biased == 0)) - 1075;
  }
  lo = e;
  hi = e + 53 * n;
  return true;
}

// A fixed-point accumulator of num_digits digits of radix 2^32 from
// 2^min_exponent (chosen at run time by the owner). Preconditions, which its
// two uses below establish: every term's bits lie in [2^min_exponent,
// 2^(32 (num_digits - 1) + min_exponent - 8)), fewer than 2^7 terms per
// 8 bits of headroom (the wide one has 64), and min_exponent is at least 64
// below every term's lowest bit or below -1074 - 64. The last one gives
// round() a result whose last bit is >= 2^(min_exponent + 12): a nonzero
// sum of the terms has its leading bit at or above the lowest term bit, so
// the last bit max(top - 52, -1074) is at least min_exponent + 12.
template <int num_digits>
class fixed_accumulator {
 public:
  static constexpr int carry_interval = 1 << 20;

  explicit fixed_accumulator(int min_exponent) noexcept : min_exponent(min_exponent) {}

  // Adds the exact product f[0] * ... * f[n-1] (n = 1, 2 or 3) as one term.
  void add(const double* f, int n) noexcept {
    bool nan = false, inf = false, zero = false, neg = false;
    for (int k = 0; k < n; ++k) {
      neg = neg != std::signbit(f[k]);
      if (std::isnan(f[k])) nan = true;
      else if (std::isinf(f[k])) inf = true;
      else if (f[k] == 0.0) zero = true;
    }
    if (nan || (inf && zero)) {
      flags_ |= flag_nan;
      return;
    }
    if (inf) {
      flags_ |= neg ? flag_neg_inf : flag_pos_inf;
      return;
    }
    flags_ |= flag_has_term;
    if (zero) {
      flags_ |= neg ? flag_not_poszero : flag_not_negzero;
      return;
    }
    flags_ |= flag_not_negzero | flag_not_poszero;
    // The significands' product as three 64-bit limbs, and its exponent.
    using u128 = unsigned __int128;
    std::uint64_t limb[3] = {0, 0, 0};
    int e = 0;
    std::uint64_t m[3] = {0, 0, 0};  // (only m[0..n) are read; GCC cannot tell)
    for (int k = 0; k < n; ++k) {
      const std::uint64_t bits = std::bit_cast<std::uint64_t>(f[k]);
      const int biased = static_cast<int>((bits >> 52) & 0x7ff);
      m[k] = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{biased != 0} << 52);
      e += (biased + (biased == 0)) - 1075;
    }
    if (n == 1) {
      limb[0] = m[0];
    } else {
      const u128 p = static_cast<u128>(m[0]) * m[1];  // < 2^106
      if (n == 2) {
        limb[0] = static_cast<std::uint64_t>(p);
        limb[1] = static_cast<std::uint64_t>(p >> 64);
      } else {
        const u128 lo = static_cast<u128>(static_cast<std::uint64_t>(p)) * m[2];
        const u128 hi = static_cast<u128>(static_cast<std::uint64_t>(p >> 64)) * m[2] + (lo >> 64);
        limb[0] = static_cast<std::uint64_t>(lo);
        limb[1] = static_cast<std::uint64_t>(hi);
        limb[2] = static_cast<std::uint64_t>(hi >> 64);
      }
    }
    deposit(limb, e - min_exponent, neg);
  }

  // The exact sum, correctly rounded once in direction `mode`.
  double round(rounding mode = rounding::to_nearest_even) const noexcept {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if ((flags_ & flag_nan) || ((flags_ & flag_pos_inf) && (flags_ & flag_neg_inf)))
      return std::numeric_limits<double>::quiet_NaN();
    if (flags_ & flag_pos_inf) return inf;
    if (flags_ & flag_neg_inf) return -inf;
    fixed_accumulator t = *this;
    t.normalize();
    const bool negative = t.d_[num_digits - 1] < 0;
    if (negative) {
      for (auto& x : t.d_) x = -x;
      t.normalize();
    }
    int h = num_digits - 1;
    while (h >= 0 && t.d_[h] == 0) --h;
    if (h < 0) {
      if (!(flags_ & flag_has_term)) return 0.0;
      if (!(flags_ & flag_not_negzero)) return -0.0;
      if (!(flags_ & flag_not_poszero)) return 0.0;
      return mode == rounding::downward ? -0.0 : 0.0;
    }
    return exala::detail::round_magnitude(t.d_.data(), h, min_exponent, negative, mode);
  }

 private:
  enum : std::uint32_t {
    flag_nan = 1u,
    flag_pos_inf = 2u,
    flag_neg_inf = 4u,
    flag_has_term = 8u,
    flag_not_negzero = 16u,
    flag_not_poszero = 32u,
  };

  // Adds (or subtracts) the 192-bit integer limb[] times 2^(pos + min_exponent).
  void deposit(const std::uint64_t* limb, int pos, bool negative) noexcept {
    const int base = pos >> 5, sh = pos & 31;
    for (int k = 0; k < 6; ++k) {
      const std::uint64_t chunk = (limb[k >> 1] >> (32 * (k & 1))) & 0xffffffffu;
      if (chunk == 0) continue;
      const std::uint64_t v = chunk << sh;  // < 2^63
      const auto lo = static_cast<std::int64_t>(v & 0xffffffffu);
      const auto hi = static_cast<std::int64_t>(v >> 32);
      d_[base + k] += negative ? -lo : lo;
      d_[base + k + 1] += negative ? -hi : hi;
    }
    if (++pending_ >= carry_interval) normalize();
  }

  // Carries: every digit but the top one into [0, 2^32).
  void normalize() noexcept {
    std::int64_t carry = 0;
    for (int i = 0; i < num_digits - 1; ++i) {
      const std::int64_t v = d_[i] + carry;
      d_[i] = v & 0xffffffff;
      carry = v >> 32;  // arithmetic shift: floor division
    }
    d_[num_digits - 1] += carry;
    pending_ = 0;
  }

  int min_exponent;
  std::array<std::int64_t, num_digits> d_{};
  int pending_ = 0;
  std::uint32_t flags_ = 0;
};

// The wide accumulator: 2^-3264 .. 2^3200, every sum of up to 2^64 products
// of up to three doubles (see the top of this file).
class wide_accumulator : public fixed_accumulator<202> {
 public:
  wide_accumulator() noexcept : fixed_accumulator<202>(-3264) {}
};

// The window accumulator of one coefficient's few terms (the fast path of
// exact(e)'s coefficients): 12 digits placed 64 bits below the lowest term
// bit. window_base(lo) is that placement; window_fits(base, hi) says whether
// the highest term bit (below 2^hi) leaves 8 bits of carry room below the
// top digit (up to 2^7 terms; the caller passes fewer).
using window_accumulator = fixed_accumulator<12>;
inline int window_base(int lo) noexcept { return ((lo >> 5) << 5) - 64; }  // floor to 32, -64
inline bool window_fits(int base, int hi) noexcept { return hi + 8 - base <= 32 * (12 - 1); }

}  // namespace exala::eigen::detail
