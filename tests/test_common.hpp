// tests/test_common.hpp - small helpers shared by the ExaLA test suites:
// bit-level comparison of doubles, hex formatting for failure messages, and
// deterministic random doubles over chosen exponent ranges.
//
// Nothing here calls ExaLA numerics: the helpers must not share code with the
// library they check.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace exala_test {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double dmax = std::numeric_limits<double>::max();
constexpr double dmin_sub = std::numeric_limits<double>::denorm_min();  // 2^-1074

inline std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

// Bit equality, except that any NaN equals any NaN (payloads may differ).
inline bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return bits(a) == bits(b);
}

// "0x1.8p+0 (0x3ff8000000000000)": exact and readable in failure messages.
inline std::string hex(double x) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%a (0x%016llx)", x, static_cast<unsigned long long>(bits(x)));
  return buf;
}

// 2^e for every e in [-1074, 1023], computed without libm.
inline double pow2(int e) {
  if (e >= -1022) return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
  return std::bit_cast<double>(std::uint64_t{1} << (e + 1074));
}

// The double with the given sign, biased exponent (0..2046) and fraction.
inline double make_double(bool negative, unsigned biased, std::uint64_t frac) {
  return std::bit_cast<double>((std::uint64_t{negative} << 63) |
                               (static_cast<std::uint64_t>(biased) << 52) |
                               (frac & ((std::uint64_t{1} << 52) - 1)));
}

using rng_t = std::mt19937_64;

// Uniform in [-1, 1].
inline double uniform(rng_t& r) {
  return std::uniform_real_distribution<double>(-1.0, 1.0)(r);
}

// A random finite double with a random sign, random 52-bit fraction and a
// value in [2^lo, 2^(hi+1)) (lo >= -1074 gives subnormals below -1022: then the
// value is a random subnormal with its leading bit at 2^e).
inline double random_exp(rng_t& r, int lo, int hi, bool allow_negative = true) {
  const int e = std::uniform_int_distribution<int>(lo, hi)(r);
  const std::uint64_t frac = r() & ((std::uint64_t{1} << 52) - 1);
  const bool neg = allow_negative && (r() & 1);
  if (e >= -1022) return make_double(neg, static_cast<unsigned>(e + 1023), frac);
  // Subnormal with leading bit 2^e: fraction bits below e + 1074.
  const int shift = e + 1074;  // 0..51
  const std::uint64_t m = (std::uint64_t{1} << shift) | (frac & ((std::uint64_t{1} << shift) - 1));
  return make_double(neg, 0, m);
}

// Random finite bit pattern over the whole range (every biased exponent
// 0..2046 equally likely: many subnormals, many huge values).
inline double random_any_finite(rng_t& r) {
  const unsigned biased = std::uniform_int_distribution<unsigned>(0, 2046)(r);
  return make_double(r() & 1, biased, r());
}

template <class T>
void shuffle(std::vector<T>& v, rng_t& r) {
  std::shuffle(v.begin(), v.end(), r);
}

}  // namespace exala_test
