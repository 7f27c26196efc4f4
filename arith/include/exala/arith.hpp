// exala/arith.hpp - scalar error-free transformations (EFTs).
//
// Assumptions, stated once for the whole layer:
//  * IEEE 754 binary64 arithmetic, round to nearest, ties to even (the C++
//    default environment; nothing here changes the rounding mode);
//  * no contraction of a*b+c into an FMA and no value-changing optimisation:
//    every ExaLA numeric target is compiled with -ffp-contract=off and never
//    with -ffast-math (this header refuses to compile under __FAST_MATH__);
//  * FMA is used only where std::fma is written explicitly.
//
// The guarantees are the classical ones (Knuth, Dekker, Ogita-Rump-Oishi 2005):
// each EFT returns a pair (h, l) with h = fl(op) and h + l equal to the exact
// result, provided no overflow occurs (and, for products, the error term does
// not underflow: exponent(a) + exponent(b) >= -970, see two_prod_is_exact).
#pragma once

#include <cmath>
#include <cstdint>
#include <bit>
#include <limits>

#include "exala/hd.hpp"

#if defined(__FAST_MATH__)
#error "ExaLA must not be compiled with -ffast-math: it breaks error-free transformations"
#endif

namespace exala {

// A value with its rounding error: hi = fl(op), hi + lo = op exactly.
struct eft_pair {
  double hi;
  double lo;
};

// TwoSum (Knuth 1969, 6 flops): s = fl(a+b) and a + b = s + e exactly, for any
// finite a, b whose sum does not overflow. No ordering assumption.
EXALA_HD constexpr eft_pair two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double bp = s - a;
  const double ap = s - bp;
  return {s, (a - ap) + (b - bp)};
}

// FastTwoSum (Dekker 1971, 3 flops): exact like two_sum, but only when
// |a| >= |b| (more precisely exponent(a) >= exponent(b)) or a == 0.
EXALA_HD constexpr eft_pair fast_two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double z = s - a;
  return {s, b - z};
}

// TwoProd with FMA (2 flops): p = fl(a*b) and a*b = p + e exactly, provided
// a*b does not overflow and e does not underflow (two_prod_is_exact).
EXALA_HD inline eft_pair two_prod(double a, double b) noexcept {
  const double p = a * b;
  return {p, std::fma(a, b, -p)};
}

// Veltkamp/Dekker split (4 flops): a = hi + lo exactly with hi, lo holding at
// most 26 significant bits each, for |a| < 2^996 (the factor 2^27+1 must not
// overflow a*factor).
constexpr eft_pair split(double a) noexcept {
  constexpr double factor = 134217729.0;  // 2^27 + 1
  const double c = factor * a;
  const double hi = c - (c - a);
  return {hi, a - hi};
}

// Dekker's TwoProduct without FMA (17 flops): the portable path, exact under
// the same conditions as two_prod plus |a|, |b| < 2^996.
constexpr eft_pair two_product_dekker(double a, double b) noexcept {
  const double p = a * b;
  const eft_pair as = split(a);
  const eft_pair bs = split(b);
  const double e = as.lo * bs.lo -
                   (((p - as.hi * bs.hi) - as.lo * bs.hi) - as.hi * bs.lo);
  return {p, e};
}

// ApproxTwoDiv (Langlois-Louvet 2007): q = fl(a/b) and the approximate
// remainder term r = fl(fl(a - q*b)/b) computed with an exact FMA residual,
// so that q + r approximates a/b with a relative error below 2^-105 (one more
// rounding than an EFT: a/b itself is not a finite sum of doubles). The bound
// assumes a/b and r stay in the normal range (no underflow of r).
inline eft_pair approx_two_div(double a, double b) noexcept {
  const double q = a / b;
  const double r = std::fma(-q, b, a);  // exact: a - q*b is representable
  return {q, r / b};
}

// Unbiased exponent of a finite nonzero double (floor(log2|a|)), correct for
// subnormals too (16 * 2^-1074 has exponent -1070, not something near -1022).
EXALA_HD constexpr int exponent_of(double a) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(a);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased != 0) return biased - 1023;
  const std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
  return -1074 + (63 - hd::countl_zero(frac));
}

// True when two_prod(a, b) is exact: a*b is finite and the error term cannot
// fall below the subnormal range: with ea, eb the exponents, the lowest bit
// of a*b is at or above 2^(ea+eb-104), so ea+eb >= -970 keeps e exact, and
// ea+eb <= 1021 keeps |a*b| < 2^1023 (no overflow after rounding)
// (both bounds are sufficient, not necessary). Zero products are exact.
EXALA_HD inline bool two_prod_is_exact(double a, double b) noexcept {
  if (a == 0.0 || b == 0.0) return std::isfinite(a) && std::isfinite(b);
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  const int e = exponent_of(a) + exponent_of(b);
  return e >= -970 && e <= 1021;
}

}  // namespace exala
