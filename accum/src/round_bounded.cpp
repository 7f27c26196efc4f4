// round_bounded (exala/detail/round_bounded.hpp): the out-of-line entry
// points; the proofs and bodies of round_bounded and round_bounded_axpby are
// in exala/detail/round_bounded_hd.hpp (shared with the CUDA kernels).
#include "exala/detail/round_bounded.hpp"

#include "exala/arith.hpp"
#include "exala/detail/round_bounded_hd.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

namespace exala::detail {

bool round_bounded(double hi, double lo, double err, rounding mode, double& out) noexcept {
  return hd::round_bounded(hi, lo, err, mode, out);
}

bool bounded_axpby(double alpha, const bounded& s, double beta, double y, bounded& out) noexcept {
  return hd::bounded_axpby(alpha, s, beta, y, out);
}

bool round_bounded_axpby(double alpha, const bounded& s, double beta, double y, rounding mode,
                         double& out) noexcept {
  return hd::round_bounded_axpby(alpha, s, beta, y, mode, out);
}

namespace {
using hd::two_sum;
}  // namespace

bool round_bounded_div(const bounded& n, double d, rounding mode, double& out) noexcept {
  return hd::round_bounded_div(n, d, mode, out);
}

// S >= 0 with |S - (H + L)| <= E, S' = H + L. r = fl(sqrt(H)); t = fma(-r, r, H)
// is H - r^2 within u |t| (exact in fact); w = fl(t + L) within u |w|; so
// D = S' - r^2 satisfies |D - w| <= u (|t| + |w|). q = fl(w / 2r) within
// u |q| + 2^-1075. With sqrt(S') - r = D / (sqrt(S') + r):
//   |sqrt(S') - r - D / 2r| = D^2 / (2r (sqrt(S') + r)^2) <= 2 Q^2 / r,
// where Q = |q| + (|t| + |w|) / r >= |D| / 2r; requiring Q <= 2^-50 r makes
// that <= 2^-49 Q and gives sqrt(S') >= r (1 - 2^-49), so
//   |sqrt(S) - sqrt(S')| <= E / sqrt(S') <= E / r (1 + 2^-48).
// err below is twice the sum of these terms, plus 2^-1000 for the
// underflows of its own terms; hi + lo = r + q exactly (TwoSum).
bool round_bounded_sqrt(const bounded& s, rounding mode, double& out) noexcept {
  if (!(s.err >= 0.0) || !(s.hi >= 0x1p-900 && s.hi <= 0x1p1000)) return false;
  const double r = std::sqrt(s.hi);
  const double t = std::fma(-r, r, s.hi);
  const double w = t + s.lo;
  const double q = w / (2.0 * r);
  const double tw = std::fabs(t) + std::fabs(w);
  const double big_q = std::fabs(q) + tw / r;
  if (!(big_q <= 0x1p-50 * r)) return false;  // also false on NaN
  double hi, lo;
  two_sum(r, q, hi, lo);
  const double err =
      2.0 * (s.err / r + tw * 0x1p-53 / r + std::fabs(q) * 0x1p-52 + big_q * 0x1p-49) + 0x1p-1000;
  if (!(err - err == 0.0)) return false;
  return round_bounded(hi, lo, err, mode, out);
}

}  // namespace exala::detail
