// exala/detail/ozaki8.hpp - the exact gemm by the integer-modular Ozaki
// scheme II with 8-bit residues: the per-line and per-entry arithmetic that
// the host engine (blas3/src/gemm_ozaki8.cpp, run in CI) and the CUDA engine
// (gpu/cuda/src/gemm_ozaki8.cu, INT8 tensor cores through cublasGemmEx) share
// as one copy (EXALA_HD), so that both take the same decisions.
//
// Guarantee: C_ij = round(alpha S_ij + beta C_ij), S_ij = sum_l op(A)_il
// op(B)_lj exactly, one correct rounding in the requested direction; an
// entry this arithmetic cannot decide is left to the caller's exact path
// (finish_entry returns false), so the bits are the reference backend's.
//
// Method (Ozaki, Uchino, Imamura, "Ozaki Scheme II: A GEMM-oriented
// emulation of floating-point matrix multiplication using an integer
// modular technique", 2025; the exact variant of blas3/src/gemm_crt.cpp with
// moduli below 2^8 instead of 2^24):
//  1. Row i of op(A) is scaled to integers a_il = trunc(A_il 2^-t_i),
//     |a_il| < 2^wa (t_i the lowest set bit of the row when the row spans at
//     most wa bits: exact; else truncated, with a rigorous bound); likewise
//     column j of op(B) with u_j, wb. X_ij = sum_l a_il b_lj is an integer,
//     |X_ij| < k 2^(wa + wb).
//  2. For N pairwise coprime moduli m_t <= 256 with M = prod m_t >=
//     2^(2 + ceil(log2 k) + wa + wb) (so |X| < M/4), the balanced residues
//     of a and b lie in [-128, 127]: int8. One int8 x int8 -> int32 GEMM per
//     modulus gives X mod m_t; the int32 sums are exact while a k-chunk holds
//     at most k_chunk terms (k_chunk 128^2 < 2^31); chunks are folded modulo
//     m_t.
//  3. CRT with the quotient from a double sum: y_t = (X mod m_t) (M/m_t)^-1
//     mod m_t, sum_t y_t (M/m_t) = X + q M with q = round(sum_t y_t / m_t)
//     (the sum is within 2^-42 of q + X/M and |X/M| < 1/4), so X =
//     sum_t y_t (M/m_t) - q M exactly, in 32-bit limbs.
//  4. X 2^(t_i + u_j) as hi + lo (its top 106 bits) with a bound covering
//     the bits below and the truncation bound; round_bounded(_axpby) (the
//     host library's own, exala/detail/round_bounded_hd.hpp) decides the
//     rounding of alpha S + beta C_ij, or says it cannot.
// Entries of a row or column holding inf or NaN (or with alpha or beta inf
// or NaN), exact zero results whose sign the IEEE rules decide, results
// outside [2^-960, 2^1022] and undecided roundings return false.
#pragma once

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>

#include "exala/detail/round_bounded_hd.hpp"
#include "exala/hd.hpp"
#include "exala/rounding.hpp"

namespace exala::detail::ozaki8 {

using i64 = std::int64_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using u128 = unsigned __int128;

inline constexpr int max_moduli = 32;
inline constexpr int width_cap = 96;    // |a_il| < 2^96: three 32-bit limbs
inline constexpr int limbs = 8;         // X in at most 8 x 32 bits
inline constexpr int k_align = 16;      // the residue rows are padded to 16
inline constexpr i64 k_chunk = 131056;  // 16 * 8191; k_chunk * 128^2 < 2^31
static_assert(k_chunk * 128 * 128 < (i64{1} << 31), "int32 residue sums would overflow");
static_assert(k_chunk % k_align == 0, "chunks keep the padding");

EXALA_HD constexpr int ceil_log2(i64 k) noexcept {
  int c = 0;
  while ((i64{1} << c) < k) ++c;
  return c;
}

// ------------------------------------------------------------------ moduli

constexpr int gcd_of(int a, int b) {
  while (b != 0) {
    const int r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// The moduli: from 256 down, each number coprime to all chosen before
// (256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, ...).
struct moduli_list {
  int m[max_moduli];
};
constexpr moduli_list make_moduli() {
  moduli_list l{};
  int n = 0;
  for (int v = 256; v > 1 && n < max_moduli; --v) {
    bool ok = true;
    for (int t = 0; t < n; ++t) ok = ok && gcd_of(v, l.m[t]) == 1;
    if (ok) l.m[n++] = v;
  }
  return l;
}
inline constexpr moduli_list moduli = make_moduli();
static_assert(moduli.m[max_moduli - 1] > 1, "not enough coprime moduli below 256");

// What one call needs of the moduli (built on the host by make_plan, passed
// to the CUDA kernels by value): N, the widths, and the CRT constants.
struct crt_plan {
  int n = 1;              // moduli used
  int wa = 1, wb = 1;     // integer widths of the rows of op(A), columns of op(B)
  int clog2k = 0;         // ceil(log2 k)
  int limbs_used = 1;     // 32-bit limbs of the CRT sum
  bool exact = true;      // no line is truncated
  int m[max_moduli];
  int p32[max_moduli];    // 2^32 mod m_t
  int p64[max_moduli];    // 2^64 mod m_t
  int inv[max_moduli];    // (M / m_t)^-1 mod m_t
  u32 w[max_moduli][limbs];  // M / m_t
  u32 big_m[limbs];          // M
};

// ------------------------------------------------------------------ lines

// Per row of op(A) (column of op(B)): the exponent range of its finite
// nonzero entries, and whether it holds inf or NaN.
// (Also gemm_crt's scan.)
struct line_info {
  int emax = INT_MIN;    // floor(log2 |x|) of the largest entry
  int low = INT_MAX;     // weight of the lowest set bit over the entries
  double abs_sum = 0;    // fl(sum |x|) in element order (a truncation bound)
  bool special = false;  // an entry is inf or NaN
  EXALA_HD bool nonzero() const noexcept { return emax != INT_MIN; }
};

EXALA_HD inline void scan_value(double x, line_info& li) noexcept {
  const u64 bits = std::bit_cast<u64>(x);
  const int ex = static_cast<int>((bits >> 52) & 0x7ff);
  const u64 frac = bits & ((u64{1} << 52) - 1);
  if (ex == 0x7ff) {
    li.special = true;
    return;
  }
  if (ex == 0 && frac == 0) return;
  const u64 mant = frac | (u64{ex != 0} << 52);
  const int e0 = (ex != 0 ? ex : 1) - 1075;  // |x| = mant 2^e0
  const int lo = e0 + exala::hd::countr_zero(mant);
  const int hi = e0 + 63 - exala::hd::countl_zero(mant);
  if (hi > li.emax) li.emax = hi;
  if (lo < li.low) li.low = lo;
  li.abs_sum += std::fabs(x);
}

// The bits the line spans (0 for a zero or special line).
EXALA_HD inline int natural_width(const line_info& li) noexcept {
  return li.special || li.emax == INT_MIN ? 0 : li.emax + 1 - li.low;
}

// How a line becomes integers: a_l = trunc(x_l 2^-scale), |a_l| < 2^width.
struct line_scale {
  int scale = 0;
  int norm_exp = 0;        // sum_l |x_l| < 2^(norm_exp + scale)
  bool truncated = false;  // some bit below 2^scale was dropped
  bool skip = true;        // zero or special line: its integers are 0
  bool special = false;    // the line holds inf or NaN
};

// As gemm_crt's scale_of: the norm bound is rigorous for the sum in any
// order (fl(sum |x|) >= half the exact sum for k <= 2^50).
EXALA_HD inline line_scale scale_of(const line_info& li, int width, i64 k, int clog2k) noexcept {
  line_scale s;
  s.special = li.special;
  if (li.special || li.emax == INT_MIN) return s;
  s.skip = false;
  const int top = li.emax + 1 - width;
  s.scale = li.low >= top ? li.low : top;
  s.truncated = li.low < top;
  int ne = clog2k + li.emax + 1;
  if (k <= (i64{1} << 50) && li.abs_sum > 0.0 && li.abs_sum <= 0x1.fffffffffffffp1023) {
    const int e = exala::exponent_of(li.abs_sum) + 2;
    if (e < ne) ne = e;
  }
  s.norm_exp = ne - s.scale;
  return s;
}

// The integer of x at a line scale, as sign and three 32-bit limbs.
struct int96 {
  u32 l[3];
  bool neg;
};
EXALA_HD inline int96 to_integer(double x, const line_scale& s) noexcept {
  int96 v{{0, 0, 0}, false};
  if (s.skip) return v;
  const u64 bits = std::bit_cast<u64>(x);
  const int ex = static_cast<int>((bits >> 52) & 0x7ff);
  const u64 frac = bits & ((u64{1} << 52) - 1);
  if (ex == 0x7ff || (ex == 0 && frac == 0)) return v;
  const u64 mant = frac | (u64{ex != 0} << 52);
  const int sh = (ex != 0 ? ex : 1) - 1075 - s.scale;
  u128 w;
  if (sh >= 0) w = static_cast<u128>(mant) << sh;  // sh <= width - 53 < 44
  else w = -sh >= 64 ? 0 : mant >> (-sh);          // truncation toward zero
  v.l[0] = static_cast<u32>(w);
  v.l[1] = static_cast<u32>(w >> 32);
  v.l[2] = static_cast<u32>(w >> 64);
  v.neg = (bits >> 63) != 0;
  return v;
}

// The balanced residue of v modulo m: in [-m/2, m/2), i.e. [-128, 127] for
// m <= 256 (an int8).
EXALA_HD inline int residue(const int96& v, int m, int p32, int p64) noexcept {
  const u32 um = static_cast<u32>(m);
  u32 r = ((v.l[2] % um) * static_cast<u32>(p64) + (v.l[1] % um) * static_cast<u32>(p32) + v.l[0] % um) % um;
  if (v.neg && r != 0) r = um - r;
  int ri = static_cast<int>(r);
  if (2 * ri >= m) ri -= m;
  return ri;
}

// acc + c modulo m, in [0, m): adds one k-chunk's int32 sum c to the sum of
// the chunks before (any int32 values congruent to their sums).
EXALA_HD inline std::int32_t fold(std::int32_t acc, std::int32_t c, int m) noexcept {
  return ((acc % m + c % m) % m + m) % m;
}

// ---------------------------------------------------------------- entries

// X_ij from its residues c[t * stride] (each congruent to X mod m_t: an
// int32 sum or a folded value), as two's complement limbs x[0..limbs_used).
EXALA_HD inline void reconstruct(const std::int32_t* c, i64 stride, const crt_plan& P, u32* x) noexcept {
  std::int64_t acc[limbs] = {};
  double qs = 0.0;
  const int nl = P.limbs_used;
  for (int t = 0; t < P.n; ++t) {
    const int m = P.m[t];
    const int r = (static_cast<int>(c[t * stride] % m) + m) % m;
    const int y = (r * P.inv[t]) % m;
    qs += static_cast<double>(y) / static_cast<double>(m);
    for (int l = 0; l < nl; ++l) acc[l] += static_cast<std::int64_t>(y) * P.w[t][l];  // < 2^45
  }
  const std::int64_t q = static_cast<std::int64_t>(std::floor(qs + 0.5));
  std::int64_t carry = 0;
  for (int l = 0; l < nl; ++l) {
    const std::int64_t v = acc[l] - q * static_cast<std::int64_t>(P.big_m[l]) + carry;
    x[l] = static_cast<u32>(v);
    carry = v >> 32;  // arithmetic: floor division
  }
}

// What X 2^(si.scale + sj.scale) is known as: bounded (hi + lo within err,
// hi = fl(hi + lo), the truncation bound included), zero (X = 0: hi = lo =
// 0, err the truncation bound or 0 when S = 0 exactly), or unknown (a line
// holds inf or NaN, or the value lies outside the range where the scalings
// below are exact). x: reconstruct's limbs (overwritten).
enum class known { bounded, zero, unknown };

EXALA_HD inline known bound_value(u32* x, const crt_plan& P, const line_scale& si, const line_scale& sj,
                                  bounded& b) noexcept {
  b = bounded{0.0, 0.0, 0.0};
  if (si.special || sj.special) return known::unknown;
  const bool truncated = (si.truncated || sj.truncated) && !si.skip && !sj.skip;
  const int s = si.scale + sj.scale;
  double d = 0.0;  // gemm_crt's truncation bound D 2^s
  if (truncated) {
    const int ea = sj.truncated ? si.norm_exp : INT_MIN;
    const int eb = si.truncated ? sj.norm_exp : INT_MIN;
    const int mx = ea > eb ? ea : eb;
    const int dexp = (mx + 1 > 0 ? mx + 1 : 0) + s;
    d = dexp > 1023 ? INFINITY : std::ldexp(1.0, dexp < -1074 ? -1074 : dexp);
  }
  const int nl = P.limbs_used;
  bool neg = false;
  int bl = 0;  // bit length of |X|
  if (!si.skip && !sj.skip) {
    neg = (x[nl - 1] >> 31) != 0;
    if (neg) {  // two's complement negation
      u64 cy = 1;
      for (int l = 0; l < nl; ++l) {
        const u64 v = static_cast<u64>(static_cast<u32>(~x[l])) + cy;
        x[l] = static_cast<u32>(v);
        cy = v >> 32;
      }
    }
    for (int l = nl - 1; l >= 0; --l)
      if (x[l] != 0) {
        bl = 32 * l + 32 - exala::hd::countl_zero(x[l]);
        break;
      }
  }
  if (bl == 0) {  // S = 0 exactly, or within the truncation bound of 0
    b.err = truncated ? 2.0 * d : 0.0;
    return known::zero;
  }
  // The top 128 bits of |X| as T (exact), sh the weight of T's lowest bit.
  const int sh = bl > 128 ? bl - 128 : 0;
  u128 t = 0;
  bool below = false;  // a set bit below 2^sh
  for (int l = nl - 1; l >= 0; --l) {
    const int lo = 32 * l;  // the weight of limb l's lowest bit
    if (lo >= sh + 128) continue;  // above T: zero (|X| < 2^bl <= 2^(sh+128))
    if (lo + 32 <= sh) {
      below = below || x[l] != 0;
      continue;
    }
    if (lo >= sh) {
      t |= static_cast<u128>(x[l]) << (lo - sh);
    } else {
      const int cut = sh - lo;  // 1..31
      t |= static_cast<u128>(x[l] >> cut);
      below = below || (x[l] & ((u32{1} << cut) - 1)) != 0;
    }
  }
  const int blt = bl - sh;  // bit length of T, <= 128
  const int e1 = blt > 53 ? blt - 53 : 0;
  const u64 h = static_cast<u64>(t >> e1);
  const u128 rest = t - (static_cast<u128>(h) << e1);  // < 2^e1
  int brest = 0;
  for (int q = 127; q >= 0; --q)
    if ((rest >> q) & 1) {
      brest = q + 1;
      break;
    }
  const int e2 = brest > 53 ? brest - 53 : 0;
  const u64 g = static_cast<u64>(rest >> e2);
  const bool rest2 = rest != (static_cast<u128>(g) << e2);  // bits below 2^e2 dropped
  // |X 2^s - (h 2^(e1+sh) + g 2^(e2+sh)) 2^s| < 2^(e2+sh+1+s) when bits were
  // dropped: (2^e2 for T's tail, 1 more for the bits below T) 2^sh. Every
  // scaling below is exact (integers below 2^53 times powers of two >=
  // 2^-1074, below 2^1023).
  if (e2 + sh + s < -1074 || bl + s > 1023) return known::unknown;
  const double hi = std::ldexp(static_cast<double>(h), e1 + sh + s);
  const double lo = std::ldexp(static_cast<double>(g), e2 + sh + s);
  double err = rest2 || below ? std::ldexp(1.0, e2 + sh + s + 1) : 0.0;
  if (truncated) err = 2.0 * (err + d);  // twice: the rounding of the sum
  hd::two_sum(hi, lo, b.hi, b.lo);       // exact: no overflow below 2^1023
  if (neg) {
    b.hi = -b.hi;
    b.lo = -b.lo;
  }
  b.err = err;
  return known::bounded;
}

// C_ij = round(alpha X 2^(si.scale + sj.scale) + beta c) where that value
// is S_ij (exact lines) or within the truncation bound of it; false when
// this cannot decide (see the file comment). x: reconstruct's limbs.
EXALA_HD inline bool finish_entry(u32* x, const crt_plan& P, const line_scale& si, const line_scale& sj,
                                  double alpha, double beta, double c, rounding mode, double& out) noexcept {
  if (!std::isfinite(alpha) || !std::isfinite(beta)) return false;
  bounded b;
  const known k = bound_value(x, P, si, sj, b);
  if (k == known::unknown) return false;
  if (k == known::zero) {
    // alpha 0 + beta c: decided where beta c is a nonzero exact product; a
    // zero result takes its sign from the IEEE rules (the exact path).
    if (b.err != 0.0 || beta == 0.0 || c == 0.0) return false;
    double ph, pl;
    if (!hd::two_prod_exact(beta, c, ph, pl)) return false;
    return hd::round_bounded(ph, pl, 0.0, mode, out);
  }
  if (alpha == 1.0 && beta == 0.0) return hd::round_bounded(b.hi, b.lo, b.err, mode, out);
  return hd::round_bounded_axpby(alpha, b, beta, c, mode, out);
}

// S_ij unrounded, as gemm_crt's problem::c_lo output: hi + lo within err
// (hi = fl(hi + lo); S = 0 exactly gives 0, 0, 0); err NaN where this
// arithmetic cannot bound it (an inf/NaN line, a value out of range): the
// caller forms those entries exactly. x: reconstruct's limbs.
EXALA_HD inline void unrounded_entry(u32* x, const crt_plan& P, const line_scale& si, const line_scale& sj,
                                     double& hi, double& lo, double& err) noexcept {
  bounded b;
  if (bound_value(x, P, si, sj, b) == known::unknown) {
    hi = lo = 0.0;
    err = NAN;
    return;
  }
  hi = b.hi;
  lo = b.lo;
  err = b.err;
}

}  // namespace exala::detail::ozaki8
