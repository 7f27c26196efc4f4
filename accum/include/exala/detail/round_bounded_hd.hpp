// exala/detail/round_bounded_hd.hpp - the bodies of round_bounded,
// bounded_axpby, round_bounded_axpby and round_bounded_div
// (exala/detail/round_bounded.hpp),
// callable from host code and from CUDA kernels (EXALA_HD), so that the
// host engines and the GPU decide a rounding by the same code.
//
// Proof sketch. Let S be the exact value, d = sgn(hi) * lo and
// delta = |S| - |hi|, so that |delta - d| <= err. With |hi| in [2^-960, 2^1022]
// the two neighbours of |hi| are |hi| - g_dn and |hi| + g_up, with
// g_up = ulp(|hi|) and g_dn = g_up, or g_up / 2 when |hi| is a power of two.
// Every test below only accepts when the whole interval [d - err, d + err]
// lies in one rounding class of delta, and no accepted interval reaches
// below -|hi|, so S has the sign of hi. The tests compare v = fl(d +- err)
// with 0, which is exact (a sum of two doubles rounds to zero only when it
// is zero, and keeps its sign), and strictly with powers of two: rounding
// is monotone, so fl(v) < t implies v < t and fl(v) > t implies v > t for a
// representable t (a non-strict fl(v) <= t would not imply v <= t).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "exala/arith.hpp"
#include "exala/hd.hpp"
#include "exala/rounding.hpp"

namespace exala::detail {

// A value known as hi + lo to within err: |value - (hi + lo)| <= err, with
// hi = fl(hi + lo). A NaN err marks a value the fast path could not bound.
struct bounded {
  double hi, lo, err;
};

namespace hd {

// Rounding of the magnitude: toward zero or away from zero.
enum class dir { nearest, toward_zero, away };

EXALA_HD inline bool round_bounded(double hi, double lo, double err, rounding mode, double& out) noexcept {
  const double ahi = std::fabs(hi);
  if (!(ahi >= 0x1p-960 && ahi <= 0x1p1022) || !(err >= 0.0 && err <= 0x1p1000)) return false;
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(ahi);
  const int e = static_cast<int>(bits >> 52) - 1023;  // ahi normal here
  const double g_up = std::bit_cast<double>(static_cast<std::uint64_t>(e - 52 + 1023) << 52);
  const double g_dn = (bits & 0x000fffffffffffffULL) == 0 ? 0.5 * g_up : g_up;
  const bool neg = std::signbit(hi);
  const double d = neg ? -lo : lo;  // delta's approximation, away from zero positive
  const double dlo = d - err, dhi = d + err;

  dir how = dir::nearest;
  switch (mode) {
    case rounding::to_nearest_even: how = dir::nearest; break;
    case rounding::toward_zero: how = dir::toward_zero; break;
    case rounding::upward: how = neg ? dir::toward_zero : dir::away; break;
    case rounding::downward: how = neg ? dir::away : dir::toward_zero; break;
  }
  double mag;  // the rounded magnitude
  switch (how) {
    case dir::nearest:
      // Strictly inside the two midpoints (no tie can be decided here).
      if (!(dhi < 0.5 * g_up && dlo > -0.5 * g_dn)) return false;
      mag = ahi;
      break;
    case dir::toward_zero:
      // delta in [0, g_up) -> |hi|;  delta in (-g_dn, 0) -> |hi| - g_dn.
      if (dlo >= 0.0 && dhi < g_up) mag = ahi;
      else if (dhi < 0.0 && dlo > -g_dn) mag = ahi - g_dn;
      else return false;
      break;
    case dir::away:
      // delta in (-g_dn, 0] -> |hi|;  delta in (0, g_up) -> |hi| + g_up.
      if (dhi <= 0.0 && dlo > -g_dn) mag = ahi;
      else if (dlo > 0.0 && dhi < g_up) mag = ahi + g_up;
      else return false;
      break;
  }
  out = neg ? -mag : mag;
  return true;
}

EXALA_HD inline void two_sum(double a, double b, double& t, double& q) noexcept {  // exala::two_sum, unpacked
  const eft_pair r = exala::two_sum(a, b);
  t = r.hi;
  q = r.lo;
}

// a * b = p + e exactly (exala::two_prod where exala::two_prod_is_exact), or false.
EXALA_HD inline bool two_prod_exact(double a, double b, double& p, double& e) noexcept {
  if (!two_prod_is_exact(a, b)) return false;
  const eft_pair r = two_prod(a, b);
  p = r.hi;
  e = r.lo;
  return true;
}

// alpha * S + beta * y = ph + pl + alpha lo + alpha delta + bh + bl, with
// alpha hi = ph + pl and beta y = bh + bl exact, |delta| <= s.err. Then
// ph + bh = h1 + q1 (TwoSum) and r = ((pl + m) + bl) + q1 with m = fl(alpha lo)
// (|m - alpha lo| <= u |m| + 2^-1075) and |r - exact| <= gamma_3 (|pl| + |m| + |bl| + |q1|);
// H + L = h1 + r (TwoSum). err below covers the sum of these errors twice
// over (u |m| + gamma_3 (...) <= 2^-50 (|pl| + |m| + |bl| + |q1|)), plus the
// rounding of its own computation and the underflows (2^-1000: a normal
// number, so that no subnormal arithmetic slows the common case).
EXALA_HD inline bool bounded_axpby(double alpha, const bounded& s, double beta, double y, bounded& out) noexcept {
  if (!(s.err >= 0.0)) return false;
  double ph, pl, bh = 0.0, bl = 0.0;
  if (!two_prod_exact(alpha, s.hi, ph, pl)) return false;
  if (beta != 0.0 && !two_prod_exact(beta, y, bh, bl)) return false;
  const double m = alpha * s.lo;
  double h1, q1;
  two_sum(ph, bh, h1, q1);
  const double r = ((pl + m) + bl) + q1;
  two_sum(h1, r, out.hi, out.lo);
  const double mags = ((std::fabs(pl) + std::fabs(m)) + std::fabs(bl)) + std::fabs(q1);
  out.err = 2.0 * (std::fabs(alpha) * s.err + mags * 0x1p-50) + 0x1p-1000;
  return out.hi - out.hi == 0.0 && out.err - out.err == 0.0;
}

EXALA_HD inline bool round_bounded_axpby(double alpha, const bounded& s, double beta, double y, rounding mode,
                         double& out) noexcept {
  if (beta == 0.0 && alpha == 1.0) return round_bounded(s.hi, s.lo, s.err, mode, out);
  bounded v;
  return bounded_axpby(alpha, s, beta, y, v) && round_bounded(v.hi, v.lo, v.err, mode, out);
}

// N = H + L + delta (|delta| <= E). q1 = fl(H / d); r = fma(-q1, d, H) is
// H - q1 d within u |r| (in fact exact away from underflow); t = fl(r + L)
// within u |t|; q2 = fl(t / d) within u |q2|. So
//   N / d = q1 + q2 + eps,  |eps| <= u |q2| + (E + u |r| + u |t|) / |d|,
// and q1 + q2 = hi + lo exactly (TwoSum). err below is twice that, plus
// 2^-1000 for the underflows of its own terms.
EXALA_HD inline bool round_bounded_div(const bounded& n, double d, rounding mode, double& out) noexcept {
  const double ad = std::fabs(d);
  if (!(n.err >= 0.0) || !(ad > 0.0 && ad <= 0x1.fffffffffffffp1023)) return false;
  const double ah = std::fabs(n.hi);
  if (!(ah >= 0x1p-900 && ah <= 0x1p1000)) return false;
  const double q1 = n.hi / d;
  const double aq = std::fabs(q1);
  if (!(aq >= 0x1p-900 && aq <= 0x1p1000)) return false;
  const double r = std::fma(-q1, d, n.hi);
  const double t = r + n.lo;
  const double q2 = t / d;
  double hi, lo;
  two_sum(q1, q2, hi, lo);
  const double err =
      2.0 * ((n.err + (std::fabs(r) + std::fabs(t)) * 0x1p-53) / ad + std::fabs(q2) * 0x1p-53) + 0x1p-1000;
  if (!(err - err == 0.0)) return false;
  return round_bounded(hi, lo, err, mode, out);
}

}  // namespace hd
}  // namespace exala::detail
