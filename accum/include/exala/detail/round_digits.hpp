// exala/detail/round_digits.hpp (internal): correct rounding of a long
// fixed-point magnitude to double.
//
// Shared by the superaccumulator, the wider accumulator of exact_ops.cpp and
// the Eigen adapters' wide accumulator, so that there is one rounding
// routine to test. The magnitude is
// sum_{i<=h} d[i] 2^(32 i + base) with d[i] in [0, 2^32) for i < h and
// 0 < d[h] < 2^63 (a normalized, nonzero, nonnegative digit string); the
// result is that value with the sign `negative`, correctly rounded in `mode`
// with IEEE overflow (+-inf or +-DBL_MAX by direction) and exact subnormals.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

#include "exala/rounding.hpp"

namespace exala::detail {

inline double round_magnitude(const std::int64_t* d, int h, int base, bool negative,
                              rounding mode) noexcept {
  using u128 = unsigned __int128;
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr std::uint64_t frac_mask = (std::uint64_t{1} << 52) - 1;
  // Digit i (0 outside [0, h]) as an unsigned word.
  auto dig = [d, h](int i) -> std::uint64_t {
    return i >= 0 && i <= h ? static_cast<std::uint64_t>(d[i]) : 0;
  };
  // Bit positions are counted from 2^base, the weight of digit 0's lowest
  // bit; positions below 0 hold zeros.
  const int msb = 32 * h + 63 - std::countl_zero(static_cast<std::uint64_t>(d[h]));
  const int e_msb = msb + base;
  const int q = e_msb - 52 > -1074 ? e_msb - 52 : -1074;  // exponent of the result's ulp
  const int qpos = q - base;                               // may be < 0 for large scalings

  // Bits [qpos, msb] form the significand M (at most 53 bits); >> on a
  // negative int floors (C++20), and & 31 gives the matching offset.
  const int j = qpos >> 5;
  u128 window = 0;
  for (int i = 2; i >= 0; --i) window |= static_cast<u128>(dig(j + i)) << (32 * i);
  std::uint64_t m = static_cast<std::uint64_t>(window >> (qpos & 31)) &
                    ((std::uint64_t{1} << 53) - 1);
  // Guard bit at qpos-1 and sticky bit below it.
  const int gpos = qpos - 1;
  const bool guard = (dig(gpos >> 5) >> (gpos & 31)) & 1;
  bool sticky = (dig(gpos >> 5) & ((std::uint64_t{1} << (gpos & 31)) - 1)) != 0;
  const int below = (gpos >> 5) - 1;
  for (int i = below < h ? below : h; i >= 0 && !sticky; --i) sticky = d[i] != 0;

  bool up = false;  // increment the magnitude?
  switch (mode) {
    case rounding::to_nearest_even: up = guard && (sticky || (m & 1)); break;
    case rounding::toward_zero: up = false; break;
    case rounding::upward: up = !negative && (guard || sticky); break;
    case rounding::downward: up = negative && (guard || sticky); break;
  }
  int qq = q;
  if (up) {
    ++m;
    if (m == (std::uint64_t{1} << 53)) {
      m >>= 1;
      ++qq;
    }
  }
  double magnitude;
  if (m == 0) {
    magnitude = 0.0;  // a tiny value rounded to zero (directed or tie to even)
  } else if (m < (std::uint64_t{1} << 52)) {
    magnitude = std::bit_cast<double>(m);  // subnormal: qq == -1074, exact
  } else {
    const int biased = qq + 1075;
    if (biased >= 2047) {
      // Overflow: to infinity unless the direction points toward zero.
      const bool to_inf = mode == rounding::to_nearest_even ||
                          (mode == rounding::upward && !negative) ||
                          (mode == rounding::downward && negative);
      magnitude = to_inf ? inf : std::numeric_limits<double>::max();
    } else {
      magnitude = std::bit_cast<double>((static_cast<std::uint64_t>(biased) << 52) |
                                        (m & frac_mask));
    }
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace exala::detail
