// The exact gemm engine: error-free residue transformation of the operands,
// residue DGEMMs, Chinese-remainder reconstruction, one correct rounding.
//
// Guarantee: every C_ij is round(alpha * S_ij + beta * C_ij) of the exact
// S_ij = sum_l op(A)_il op(B)_lj, bit-identical to exala::round_axpby on an
// exact accumulator (the reference backend), for any thread count, kernel
// set and tile size. Error: 1/2 ulp to nearest, < 1 ulp directed (one
// correct rounding of the exact value).
//
// Method: the integer-modular Ozaki scheme (Ozaki, Uchino, Imamura, "Ozaki
// Scheme II: A GEMM-oriented emulation of floating-point matrix
// multiplication using an integer modular technique", 2025; the splitting
// idea of Ozaki, Ogita, Oishi, Rump, Numer. Algorithms 59, 2012), made exact
// for every input and followed by a correct rounding:
//  1. Row i of op(A) is an integer vector times a power of two: a_il =
//     A_il 2^(-t_i) with t_i the lowest set bit of the row, |a_il| < 2^wa;
//     likewise column j of op(B) with scale u_j and width wb. Then
//     S_ij = X_ij 2^(t_i + u_j) with the exact integer X_ij = sum_l a_il b_lj,
//     |X_ij| < k 2^(wa + wb) <= 2^(ceil(log2 k) + wa + wb).
//  2. For N pairwise coprime moduli m_t (primes in (2^24 - 2^16, 2^24 -
//     2^10)) with M = prod m_t >= 2^(2 + ceil(log2 k) + wa + wb), i.e.
//     |X_ij| < M/4, the residues X_ij mod m_t come from N ordinary DGEMMs of
//     residue matrices: every residue is an integer of magnitude < m/2 + 8,
//     every product and partial sum an integer <= 2^53 (the micro-kernel
//     reduces its accumulators every max_kc = 128 steps), so the
//     floating-point DGEMM is exact (blas1/kernels/gemm_kernels.hpp).
//  3. Garner's algorithm with balanced digits (the kernels' garner) and
//     Horner's rule in integer arithmetic give X_ij itself (see horner).
//  4. gemm_round.hpp rounds alpha X_ij 2^(t_i+u_j) + beta C_ij once.
// For 53-bit data and k <= 2^11, N = 5; N grows with the widths and k.
// Widths are capped at 97 bits (two 53-bit limbs per operand entry, and
// N <= max_moduli = 10). A row or column spanning more (e.g. data over
// 2^-200..2^200) is truncated to the cap: a_il = trunc(A_il 2^-t_i) with
// t_i = emax_i + 1 - wa, |A_il - a_il 2^t_i| < 2^t_i. The neglected part is
// bounded rigorously, |S_ij - X_ij 2^(t_i+u_j)| < 2^(t_i+u_j) D_ij with D_ij
// from the 1-norms of row i and column j (derivation at "Truncation
// bound"), and the result is accepted only where X_ij - D_ij and X_ij + D_ij
// round to the same nonzero double (rounding is monotone, so every value
// between does too); the few remaining entries, and every entry of a row or
// column holding inf or NaN, get an exact dot product into a
// superaccumulator and exala::round_axpby, as in the reference backend.
//
// Work is split into tiles of C (one thread each, dynamic schedule); the
// bits cannot depend on the split since every step above is exact.
#ifdef EXALA_HAVE_OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/exact_ops.hpp"
#include "gemm_engine.hpp"
#include "gemm_round.hpp"

namespace exala::detail::gemm3 {

namespace {

#ifdef EXALA_HAVE_OPENMP
int thread_id() { return omp_get_thread_num(); }
int thread_count() { return omp_get_num_threads(); }
#else
int thread_id() { return 0; }
int thread_count() { return 1; }
#endif

// ------------------------------------------------------------------ moduli

constexpr std::int64_t modulus_top = (std::int64_t{1} << 24) - (std::int64_t{1} << 10);
constexpr std::int64_t modulus_floor = (std::int64_t{1} << 24) - (std::int64_t{1} << 16);

// The exactness condition of the micro-kernel (blas1/kernels/gemm_kernels.hpp)
// for the largest admissible modulus: max_kc (m/2 + 8)^2 + (m/2 + 8) <= 2^53.
constexpr bool kernel_bound_holds() {
  const u128 r = static_cast<u128>(modulus_top / 2 + 9);  // > m/2 + 8
  return static_cast<u128>(max_kc) * r * r + r <= (u128{1} << 53);
}
static_assert(kernel_bound_holds(), "residue DGEMM would not be exact");

struct crt_tables {
  garner_consts g;                      // the moduli and the inverses, as doubles
  u64 m[max_moduli];
  int log2_m[max_moduli + 1];           // floor(log2 M_N), M_N = m_0 ... m_(N-1)
};

bool is_prime(std::int64_t v) {
  if (v % 2 == 0) return false;
  for (std::int64_t d = 3; d * d <= v; d += 2)
    if (v % d == 0) return false;
  return true;
}

u64 inverse_mod(u64 a, u64 m) {  // a invertible mod m (extended Euclid)
  std::int64_t r0 = static_cast<std::int64_t>(m), r1 = static_cast<std::int64_t>(a % m);
  std::int64_t s0 = 0, s1 = 1;
  while (r1 != 0) {
    const std::int64_t q = r0 / r1;
    std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
    std::tie(s0, s1) = std::make_pair(s1, s0 - q * s1);
  }
  const std::int64_t mm = static_cast<std::int64_t>(m);
  return static_cast<u64>(((s0 % mm) + mm) % mm);
}

// The largest max_moduli primes below 2^24 - 2^10 (pairwise coprime).
crt_tables build_tables() {
  crt_tables t{};
  int count = 0;
  for (std::int64_t v = modulus_top - 1; count < max_moduli && v > modulus_floor; v -= 2)
    if (is_prime(v)) t.m[count++] = static_cast<u64>(v);
  for (int i = 0; i < max_moduli; ++i) {
    const double m = static_cast<double>(t.m[i]);
    u64 p44 = 1;
    for (int b = 0; b < 44; ++b) p44 = (p44 * 2) % t.m[i];
    const double mh = std::floor(m / 4096.0) * 4096.0;
    t.g.md[i] = modulus{m, 1.0 / m, static_cast<double>(p44), mh, m - mh};
  }
  for (int s = 0; s < max_moduli; ++s)
    for (int u = s + 1; u < max_moduli; ++u)
      t.g.inv[s][u] = static_cast<double>(inverse_mod(t.m[s], t.m[u]));
  u64 prod[x_limbs] = {1, 0, 0, 0};
  for (int n = 0; n <= max_moduli; ++n) {
    t.log2_m[n] = top_bit(prod, x_limbs);
    if (n == max_moduli) break;
    u64 carry = 0;
    for (int l = 0; l < x_limbs; ++l) {
      const u128 p = static_cast<u128>(prod[l]) * t.m[n] + carry;
      prod[l] = static_cast<u64>(p);
      carry = static_cast<u64>(p >> 64);
    }
  }
  return t;
}

const crt_tables& tables() {
  static const crt_tables t = build_tables();
  return t;
}

// X from its balanced mixed-radix digits (the kernels' garner):
// X = v_0 + m_0 (v_1 + m_1 (v_2 + ...)) exactly, by Horner's rule in two's
// complement on x_limbs 64-bit limbs (the value is below 2^240 in magnitude,
// so the arithmetic mod 2^256 is exact); returns the magnitude and sign.
// Why this is X itself and not X + jM: the digits satisfy |v_t| < m_t/2 + 8,
// so |Y| <= sum_t (m_t/2 + 8) m_0...m_(t-1) < (M/2)(1 + 2^-20), while the plan
// keeps |X| < M/4 (M >= 2^(2 + ceil(log2 k) + wa + wb)); Y = X (mod M) and
// |Y - X| < M force Y = X.
// (n <= 5: |X| < 2^120, signed 128-bit arithmetic.)
inline __int128 horner128(const double* v, std::int64_t count, int n, const crt_tables& T) noexcept {
  __int128 y = static_cast<std::int64_t>(v[(n - 1) * count]);
  for (int t = n - 2; t >= 0; --t)
    y = y * static_cast<std::int64_t>(T.m[t]) + static_cast<std::int64_t>(v[t * count]);
  return y;
}
inline void magnitude_of(__int128 y, u64 mag[x_limbs], bool& neg) noexcept {
  neg = y < 0;
  const u128 a = neg ? static_cast<u128>(-y) : static_cast<u128>(y);
  mag[0] = static_cast<u64>(a);
  mag[1] = static_cast<u64>(a >> 64);
  mag[2] = mag[3] = 0;
}
inline void horner(const double* v, std::int64_t count, int n, const crt_tables& T,
                   u64 mag[x_limbs], bool& neg) noexcept {
  if (n <= 5) {
    magnitude_of(horner128(v, count, n, T), mag, neg);
    return;
  }
  u64 y[x_limbs];
  const auto top = static_cast<std::int64_t>(v[(n - 1) * count]);
  y[0] = static_cast<u64>(top);
  for (int l = 1; l < x_limbs; ++l) y[l] = top < 0 ? ~u64{0} : 0;
  for (int t = n - 2; t >= 0; --t) {
    const auto d = static_cast<std::int64_t>(v[t * count]);
    // y * m_t mod 2^256 (two's complement), then + d sign-extended
    u64 carry = 0;
    for (int l = 0; l < x_limbs; ++l) {
      const u128 p = static_cast<u128>(y[l]) * T.m[t] + carry;
      y[l] = static_cast<u64>(p);
      carry = static_cast<u64>(p >> 64);
    }
    u128 acc = static_cast<u128>(y[0]) + static_cast<u64>(d);
    y[0] = static_cast<u64>(acc);
    const u64 ext = d < 0 ? ~u64{0} : 0;
    for (int l = 1; l < x_limbs; ++l) {
      acc = static_cast<u128>(y[l]) + ext + static_cast<u64>(acc >> 64);
      y[l] = static_cast<u64>(acc);
    }
  }
  neg = (y[x_limbs - 1] >> 63) != 0;
  if (neg) {  // magnitude = -y
    u64 c = 1;
    for (int l = 0; l < x_limbs; ++l) {
      const u128 t = static_cast<u128>(~y[l]) + c;
      mag[l] = static_cast<u64>(t);
      c = static_cast<u64>(t >> 64);
    }
  } else {
    for (int l = 0; l < x_limbs; ++l) mag[l] = y[l];
  }
}

inline int compare(const u64* a, const u64* b, int n) noexcept {
  for (int l = n - 1; l >= 0; --l)
    if (a[l] != b[l]) return a[l] > b[l] ? 1 : -1;
  return 0;
}
inline void sub(const u64* a, const u64* b, u64* r, int n) noexcept {  // r = a - b, a >= b
  u64 borrow = 0;
  for (int l = 0; l < n; ++l) {
    const u64 d = a[l] - b[l] - borrow;
    borrow = (a[l] < b[l]) || (a[l] - b[l] < borrow) ? 1 : 0;
    r[l] = d;
  }
}
inline void add(const u64* a, const u64* b, u64* r, int n) noexcept {
  u64 carry = 0;
  for (int l = 0; l < n; ++l) {
    const u128 s = static_cast<u128>(a[l]) + b[l] + carry;
    r[l] = static_cast<u64>(s);
    carry = static_cast<u64>(s >> 64);
  }
}
// (neg, mag) + (dneg, d) in sign-magnitude.
inline void add_signed(const u64* mag, bool neg, const u64* d, bool dneg, u64* r, bool& rneg,
                       int n) noexcept {
  if (neg == dneg) {
    add(mag, d, r, n);
    rneg = neg;
  } else if (compare(mag, d, n) >= 0) {
    sub(mag, d, r, n);
    rneg = neg;
  } else {
    sub(d, mag, r, n);
    rneg = dneg;
  }
}

// X 2^s (X = (-1)^neg mag, n limbs, |X| < 2^(64 n - 1)) as hi + lo with
// |X 2^s - hi - lo| <= err, for the unrounded output (problem::c_lo):
// hi = round(X 2^s) to nearest; if ulp(hi) >= 2^s, hi = H 2^s for an integer
// H and R = X - H is exact, lo = round(R 2^s) to nearest, and |R 2^s - lo|
// <= ulp(lo) / 2 <= 2^-53 |lo| + 2^-1075; if ulp(hi) < 2^s, X has fewer
// than 54 significant bits (its rounding would have an ulp >= 2^s), so hi
// is X 2^s exactly (lo = 0). err = inf when hi overflows.
inline void split_hi_lo(const u64* mag, int n, bool neg, int s, double& hi, double& lo,
                        double& err) noexcept {
  lo = err = 0.0;
  hi = 0.0;
  if (top_bit(mag, n) < 0) return;
  hi = round_mag(mag, n, s, neg, rounding::to_nearest_even);
  if (!std::isfinite(hi)) {
    err = k_inf;
    return;
  }
  const scalar h = unpack(hi);
  const int sh = h.exp - s;
  if (sh < 0) return;
  u64 hm[x_limbs + 1] = {};  // H = mant 2^sh <= 2 |X|: one limb more than X
  const int q = sh >> 6, r = sh & 63;
  if (q < x_limbs + 1) hm[q] = h.mant << r;
  if (r != 0 && q + 1 < x_limbs + 1) hm[q + 1] = h.mant >> (64 - r);
  u64 xm[x_limbs + 1] = {};
  for (int l = 0; l < n && l < x_limbs; ++l) xm[l] = mag[l];
  u64 rm[x_limbs + 1];
  bool rneg;
  add_signed(xm, neg, hm, !neg, rm, rneg, x_limbs + 1);  // X - H (H has X's sign)
  if (top_bit(rm, x_limbs + 1) < 0) return;
  lo = round_mag(rm, x_limbs + 1, s, rneg, rounding::to_nearest_even);
  err = std::fabs(lo) * 0x1p-52 + 0x1p-1074;
}

// The common rounding without limbs, for a nonzero X = y (|y| < 2^120) and
// S = X 2^s. |y| = p2 2^80 + p1 2^40 + p0 with 0 <= p_t < 2^40, each an
// exact double; two TwoSums of these nonnegative terms give |y| = s2 + e1 +
// e2 exactly with |e1| <= 2^-53 s1 <= 2^-53 |y| and |e2| <= 2^-53 s2, and
// h + l = TwoSum(s2, fl(e1 + e2)) (signed as y) is within 2^-53 |e1 + e2|
// <= 2^-104 |h| of y. Scaled by f = 2^s (exactly: H = h f
// is normal here; L = l f errs by at most 2^-1075 if it underflows),
// |S - H - L| <= 2^-104 |H| + 2^-1075. Then round(alpha S + beta c):
//  - alpha and beta powers of two (or beta == 0), as the LAPACK updates
//    call it (alpha = -1, beta = 1): A = alpha H, beta c and alpha L are
//    exact (beta c and alpha L within 2^-1075 where they underflow);
//    TwoSum(A, beta c) = h1 + q1, r = fl(alpha L + q1) within 2^-53 |r|,
//    TwoSum(h1, r) = hi + lo, err = 2 (|alpha| (2^-104 |H| + 2^-1075) +
//    2^-53 |r| + 2^-1074) + 2^-1000, decided by round_bounded (Ziv);
//  - other alpha and beta: round_bounded_axpby with that bound.
// False leaves it to finish(): same bits, both are the correct rounding of
// the same exact value.
inline bool power_of_two(double v) noexcept {
  const u64 b = std::bit_cast<u64>(v);
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  return (b & ((u64{1} << 52) - 1)) == 0 && e >= 1023 - 60 && e <= 1023 + 60;
}
inline void two_sum_d(double a, double b, double& t, double& q) noexcept {
  t = a + b;
  const double z = t - a;
  q = (a - (t - z)) + (b - z);
}
// X of more than 120 bits (up to 10 moduli, in limbs): its top 120 bits
// a, X = a 2^z + R with 0 <= R < 2^z <= 2^-119 X; the same steps on a with
// the scale s + z and 2^z more in the bound (relatively 2^-119).
inline bool finish_bounded(u128 a, bool neg, int s, double rest, double alpha, double beta, double c,
                           bool pow2, rounding mode, double& out) noexcept;
inline bool finish_bounded(__int128 y, int s, double alpha, double beta, double c, bool pow2,
                           rounding mode, double& out) noexcept {
  const bool neg = y < 0;
  return finish_bounded(neg ? static_cast<u128>(-y) : static_cast<u128>(y), neg, s, 0.0, alpha, beta, c,
                        pow2, mode, out);
}
inline bool finish_bounded_limbs(const u64* mag, bool neg, int s, double alpha, double beta, double c,
                                 bool pow2, rounding mode, double& out) noexcept {
  const int msb = top_bit(mag, x_limbs);
  if (msb < 0) return false;
  const int z = msb < 120 ? 0 : msb - 119;
  const u128 a = (static_cast<u128>(bits_from(mag, x_limbs, z + 64)) << 64) | bits_from(mag, x_limbs, z);
  return finish_bounded(a, neg, s + z, z > 0 ? 1.0 : 0.0, alpha, beta, c, pow2, mode, out);
}
// rest: 1 when the value carries a truncation R < 2^s (0: exact).
inline bool finish_bounded(u128 a, bool neg, int s, double rest, double alpha, double beta, double c,
                           bool pow2, rounding mode, double& out) noexcept {
  if (s < -1022 || s > 1023) return false;
  const double f = std::bit_cast<double>(static_cast<u64>(s + 1023) << 52);
  constexpr u64 m40 = (u64{1} << 40) - 1;
  const auto p2 = static_cast<double>(static_cast<u64>(a >> 80));
  const auto p1 = static_cast<double>(static_cast<u64>(a >> 40) & m40);
  const auto p0 = static_cast<double>(static_cast<u64>(a) & m40);
  double s1, e1, s2, e2, h, l;
  two_sum_d(p2 * 0x1p80, p1 * 0x1p40, s1, e1);
  two_sum_d(s1, p0, s2, e2);
  two_sum_d(s2, e1 + e2, h, l);
  if (neg) h = -h, l = -l;
  const double hs = h * f;
  const double ah = std::fabs(hs);
  if (!(ah >= 0x1p-900 && ah <= 0x1p1000)) return false;
  const double es = ah * 0x1p-104 + rest * f + 0x1p-1074;
  if (!pow2) {
    const exala::detail::bounded S{hs, l * f, es};
    return exala::detail::round_bounded_axpby(alpha, S, beta, c, mode, out);
  }
  if (!(std::fabs(c) <= 0x1p1000)) return false;  // also NaN
  double h1, q1, hi, lo;
  two_sum_d(alpha * hs, beta * c, h1, q1);
  const double r = alpha * (l * f) + q1;
  two_sum_d(h1, r, hi, lo);
  const double err = 2.0 * (std::fabs(alpha) * es + std::fabs(r) * 0x1p-53 + 0x1p-1074) + 0x1p-1000;
  return exala::detail::round_bounded(hi, lo, err, mode, out);
}

// The unrounded output's bound plus D 2^s for a truncated row or column
// (neither zero): D = 2^dexp bounds the neglected part (see "Truncation
// bound" below).
struct line_scale;
void add_truncation_bound(const line_scale& si, const line_scale& sj, double& err) noexcept;

// ------------------------------------------------------------ operands

// Per row of op(A) (column of op(B)): the exponent range of its finite
// nonzero entries, and whether it holds inf or NaN (one copy with the 8-bit
// engines: exala/detail/ozaki8.hpp).
using ozaki8::line_info;
using ozaki8::scan_value;

// Lines [q0, q1) of a matrix whose line q, element l lives at
// base[q * ld + l] (contiguous lines) or base[q + l * ld].
void scan_lines(const double* base, std::int64_t ld, bool contiguous, std::int64_t len,
                std::int64_t q0, std::int64_t q1, line_info* out) {
  if (contiguous) {
    for (std::int64_t q = q0; q < q1; ++q) {
      line_info li;
      const double* p = base + q * ld;
      for (std::int64_t l = 0; l < len; ++l) scan_value(p[l], li);
      out[q] = li;
    }
  } else {
    for (std::int64_t q = q0; q < q1; ++q) out[q] = line_info{};
    for (std::int64_t l = 0; l < len; ++l) {
      const double* p = base + l * ld;
      for (std::int64_t q = q0; q < q1; ++q) scan_value(p[q], out[q]);
    }
  }
}

// How a line is turned into integers: a_l = trunc(x_l 2^-scale), |a_l| < 2^width.
struct line_scale {
  int scale = 0;
  bool truncated = false;  // some bit below 2^scale was dropped
  bool skip = true;        // zero or special line: all its integers are 0
  double f1 = 1.0, f2 = 1.0;  // 2^-scale = f1 f2, both doubles (see convert)
  int norm_exp = 0;           // sum_l |x_l| < 2^(norm_exp + scale)
};

// A rigorous bound on the line's 1-norm: each addition of nonnegative terms
// errs by at most 2^-52 relatively (any rounding direction; subnormal sums are
// exact), so s = fl(sum |x|) over k terms, in any order, is at least
// (1 - 2^-52)^k >= 1/2 of the exact sum for k <= 2^50: ||x||_1 <= 2 s <
// 2^(ilogb(s) + 2). Also ||x||_1 < k 2^(emax + 1) <= 2^(ceil(log2 k) + emax + 1).
line_scale scale_of(const line_info& li, int width, std::int64_t k, int clog2k) {
  line_scale s;
  if (li.special || !li.nonzero()) return s;
  s.skip = false;
  const int top = li.emax + 1 - width;  // keeps bits 2^(emax) .. 2^(emax+1-width)
  s.scale = li.low >= top ? li.low : top;
  s.truncated = li.low < top;
  const int e = -s.scale;  // in [-1023, 1074]: 2^e alone may overflow
  if (e <= 1000) {
    s.f1 = std::ldexp(1.0, e);  // a subnormal power of two for e < -1022: exact
  } else {
    s.f1 = 0x1p1000;
    s.f2 = std::ldexp(1.0, e - 1000);
  }
  int ne = clog2k + li.emax + 1;
  if (k <= (std::int64_t{1} << 50) && std::isfinite(li.abs_sum) && li.abs_sum > 0.0)
    ne = std::min(ne, std::ilogb(li.abs_sum) + 2);
  s.norm_exp = ne - s.scale;
  return s;
}

// The integer of x at a line scale: one limb (|v| <= 2^53, in lo) or two
// (v = hi 2^44 + lo, |v| < 2^97), both with the sign of x. Truncation
// toward zero drops the bits below 2^scale.
inline void to_integer(double x, int scale, bool two_limbs, double& hi, double& lo) noexcept {
  const u64 bits = std::bit_cast<u64>(x);
  const int ex = static_cast<int>((bits >> 52) & 0x7ff);
  const u64 frac = bits & ((u64{1} << 52) - 1);
  hi = lo = 0.0;
  if (ex == 0x7ff || (ex == 0 && frac == 0)) return;
  const u64 mant = frac | (u64{ex != 0} << 52);
  const int sh = (ex != 0 ? ex : 1) - 1075 - scale;
  u128 v;
  if (sh >= 0) {
    v = static_cast<u128>(mant) << sh;  // sh < 97 (the width bound)
  } else {
    v = -sh >= 64 ? 0 : mant >> (-sh);
  }
  const bool neg = (bits >> 63) != 0;
  if (two_limbs) {
    const double h = static_cast<double>(static_cast<u64>(v >> 44));
    const double l = static_cast<double>(static_cast<u64>(v) & ((u64{1} << 44) - 1));
    hi = neg ? -h : h;
    lo = neg ? -l : l;
  } else {
    const double l = static_cast<double>(static_cast<u64>(v));
    lo = neg ? -l : l;
  }
}

// Element l of line q of a matrix: base[q * ld + l] (contiguous lines) or
// base[q + l * ld].
struct line_access {
  const double* src;
  std::int64_t sld;
  bool contiguous;  // source line contiguous
  double get(std::int64_t q, std::int64_t l) const noexcept {
    return contiguous ? src[q * sld + l] : src[q + l * sld];
  }
};

// One element at its line scale, with the fast exact multiply for one-limb,
// untruncated lines: x 2^-scale is an integer below 2^53, and multiplying by
// a power of two (in two steps when 2^-scale is out of range) is exact.
inline void convert(double x, const line_scale& s, bool two_limbs, double& hi, double& lo) noexcept {
  if (s.skip) {
    hi = lo = 0.0;
    return;
  }
  if (!two_limbs && !s.truncated) {
    // x is finite (the line is not special) and x 2^-scale an integer below
    // 2^53: each product by a power of two is exact (the first raises a
    // subnormal x by 2^1000 at most, into the normal range, when two steps
    // are needed; a subnormal factor only appears when the result is >= 1).
    hi = 0.0;
    lo = (x * s.f1) * s.f2;
    return;
  }
  to_integer(x, s.scale, two_limbs, hi, lo);
}

// ------------------------------------------------------------------ plan

using ozaki8::ceil_log2;

struct plan {
  int moduli = 1;
  int wa = 1, wb = 1;
  bool exact = true;  // no line is truncated
};

// Smallest N with M_N >= 2^(2 + ceil(log2 k) + wa + wb), i.e. M_N > 4 |X|
// (the balanced reconstruction needs |X| < M/4, see horner).
int moduli_for(int bits_needed, const crt_tables& T) {
  for (int n = 1; n <= max_moduli; ++n)
    if (T.log2_m[n] >= bits_needed) return n;
  return max_moduli + 1;
}

constexpr int width_cap = 97;  // two limbs: hi < 2^53 after >> 44
// The unrounded output (problem::c_lo) uses at most this many moduli when
// truncation keeps keep_bits of every line (a bound near 2^-24 ulp of a
// typical entry: few entries left to the caller's exact path).
constexpr int unrounded_moduli = 6;
constexpr int keep_bits = 53 + 24;

// Widths: the exact ones when max_moduli suffice (and both fit two limbs),
// else the widest truncation that fits max_moduli, trimmed from the wider.
plan make_plan(int pa, int pb, std::int64_t k, const crt_tables& T) {
  plan p;
  const int c = ceil_log2(k);
  int wa = std::max(1, std::min(pa, width_cap)), wb = std::max(1, std::min(pb, width_cap));
  const int budget = T.log2_m[max_moduli] - 2 - c;  // wa + wb allowed with max_moduli
  while (wa + wb > budget) {
    if (wa >= wb) --wa;
    else --wb;
  }
  p.wa = wa;
  p.wb = wb;
  p.exact = wa >= pa && wb >= pb;
  p.moduli = moduli_for(2 + c + wa + wb, T);
  return p;
}

void add_truncation_bound(const line_scale& si, const line_scale& sj, double& err) noexcept {
  const int e1 = sj.truncated ? si.norm_exp : INT_MIN;
  const int e2 = si.truncated ? sj.norm_exp : INT_MIN;
  const int dexp = std::max(0, std::max(e1, e2) + 1) + si.scale + sj.scale;
  const double d = dexp > 1023 ? k_inf : std::ldexp(1.0, std::max(dexp, -1074));
  err = 2.0 * (err + d);  // twice: the rounding of the sum
}

// Truncation bound (for a truncated row i or column j). With t = t_i, u = u_j,
// write A_il = a'_il + da_il, B_lj = b'_lj + db_lj with a' = a 2^t, b' = b 2^u
// the truncated parts: |da_il| < 2^t when row i is truncated, 0 otherwise,
// likewise |db_lj| < 2^u, and |b'| <= |B|. Then sum_l (A B - a' b') =
// sum_l (A_il db_lj + da_il b'_lj), so
//   |S_ij - X_ij 2^(t+u)| < [col j truncated] 2^u ||A_i.||_1
//                         + [row i truncated] 2^t ||B_.j||_1
//                         < 2^(t+u) (2^norm_exp_i + 2^norm_exp_j) <= 2^(t+u) 2^dexp
// with dexp = max of the present norm exponents + 1 (and >= 0, so that
// D = 2^dexp is an integer in the units of X). Since norm_exp_i <=
// ceil(log2 k) + wa (scale_of), dexp <= ceil(log2 k) + wa + wb and D <= M/4.

// ------------------------------------------------------------ buffers

struct aligned_buffer {
  double* p = nullptr;
  std::size_t n = 0;
  void resize(std::size_t count) {
    if (count <= n) return;
    release();
    p = static_cast<double*>(::operator new[](count * sizeof(double), std::align_val_t{64}));
    n = count;
  }
  void release() noexcept {
    if (p) ::operator delete[](p, std::align_val_t{64});
    p = nullptr;
    n = 0;
  }
  aligned_buffer() = default;
  aligned_buffer(const aligned_buffer&) = delete;
  aligned_buffer& operator=(const aligned_buffer&) = delete;
  aligned_buffer(aligned_buffer&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr, o.n = 0; }
  ~aligned_buffer() { release(); }
};

// The buffers of one thread: scaled blocks of op(A) (mt x kc, column-major)
// and op(B) (kc x nt, row-major), their packed residues, the residue planes
// of a tile (one per modulus) and the Garner digits of one tile column.
struct thread_work {
  aligned_buffer a_lo, a_hi, b_lo, b_hi, ap, bp, cres, digits;
  std::vector<std::pair<std::int64_t, std::int64_t>> fallback;
  std::vector<unsigned char> left;  // finish_nearest's undecided entries of a tile column
};

// Workspace kept by each thread between calls (the buffers are reused, not
// returned to the system: fresh pages cost a page fault each, ~15% of a
// 2000^3 product on a VM), up to keep_bytes; larger ones are freed on exit.
constexpr std::size_t keep_bytes = std::size_t{48} << 20;
thread_local thread_work cached_work;

std::size_t bytes_of(const thread_work& w) {
  return sizeof(double) * (w.a_lo.n + w.a_hi.n + w.b_lo.n + w.b_hi.n + w.ap.n + w.bp.n + w.cres.n +
                           w.digits.n);
}

thread_local crt_stats stats_tls;

std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

}  // namespace

crt_stats last_crt_stats() noexcept { return stats_tls; }
void clear_crt_stats() noexcept { stats_tls = crt_stats{}; }
void count_exact_dot_entry() noexcept { ++stats_tls.fallback_entries; }
void count_zero_entry() noexcept { ++stats_tls.zero_entries; }

// --------------------------------------------------------------- entries

// Below this k an entry's products go straight into the accumulator (as
// the reference does): the blocked kernels' own accumulator, packing and
// merge cost more than the deposits.
constexpr std::int64_t direct_entry_k = 128;

void entry_sum(const problem& p, std::int64_t i, std::int64_t j, superaccumulator& acc,
               bool reference) {
  if (reference || p.k <= direct_entry_k) {
    for (std::int64_t l = 0; l < p.k; ++l) acc.add_product(p.opa(i, l), p.opb(l, j));
    return;
  }
  const double* x = p.ta ? p.a + i * p.lda : p.a + i;
  const std::int64_t incx = p.ta ? 1 : p.lda;
  const double* y = p.tb ? p.b + j : p.b + j * p.ldb;
  const std::int64_t incy = p.tb ? p.ldb : 1;
  dot_into(acc, p.k, x, incx, y, incy, exec{backend::simd});
}

// The engine's undecided entries (a truncation bound too loose for the
// rounding, wide rows and columns) first try the bounded Dot2 path of the
// small products (a Dot2 bound is far tighter, and costs O(k) with no
// accumulator); what it cannot decide is formed exactly. Same bits.
constexpr std::int64_t bounded_entry_k = 1024;

bool entry_bounded(const problem& p, std::int64_t i, std::int64_t j) {
  if (p.k > bounded_entry_k) return false;
  double bx[bounded_entry_k], by[bounded_entry_k];
  for (std::int64_t l = 0; l < p.k; ++l) {
    bx[l] = p.opa(i, l);
    by[l] = p.opb(l, j);
  }
  exala::detail::bounded s;
  if (!exala::detail::dot_bounded(bx, by, static_cast<std::size_t>(p.k), s)) return false;
  double& c = p.c[i + j * p.ldc];
  double v;
  if (!exala::detail::round_bounded_axpby(p.alpha, s, p.beta, p.beta == 0.0 ? 0.0 : c, p.mode, v)) return false;
  c = v;
  return true;
}

void entry_finish(const problem& p, std::int64_t i, std::int64_t j) {
  if (!entry_bounded(p, i, j)) entry_exact(p, i, j, false);
}

void entry_exact(const problem& p, std::int64_t i, std::int64_t j, bool reference) {
  superaccumulator acc;
  entry_sum(p, i, j, acc, reference);
  double& c = p.c[i + j * p.ldc];
  c = p.beta == 0.0 ? round_axpby(p.alpha, acc, 0.0, 0.0, p.mode)
                    : round_axpby(p.alpha, acc, p.beta, c, p.mode);
}

// ------------------------------------------------------------------ engine

void gemm_crt(const problem& p, int threads, long long block, const gemm_kernels& ks) {
  const crt_tables& T = tables();
  const std::int64_t m = p.m, n = p.n, k = p.k;

  // 1. Exponent ranges of the rows of op(A) and the columns of op(B).
  std::vector<line_info> rows(static_cast<std::size_t>(m)), cols(static_cast<std::size_t>(n));
  const line_access A{p.a, p.lda, p.ta};   // row i of op(A): a[i lda + l] if ta
  const line_access B{p.b, p.ldb, !p.tb};  // column j of op(B): b[j ldb + l] if !tb
  auto scan = [&](const line_access& acc, std::int64_t lines, line_info* out, int nt, int id) {
    const std::int64_t q0 = lines * id / nt, q1 = lines * (id + 1) / nt;
    scan_lines(acc.src, acc.sld, acc.contiguous, k, q0, q1, out);
  };
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    {
      const int id = thread_id(), nt = thread_count();
      scan(A, m, rows.data(), nt, id);
      scan(B, n, cols.data(), nt, id);
    }
  } else {
    scan(A, m, rows.data(), 1, 0);
    scan(B, n, cols.data(), 1, 0);
  }
  int pa = 0, pb = 0;
  for (const line_info& li : rows)
    if (!li.special && li.nonzero()) pa = std::max(pa, li.emax - li.low + 1);
  for (const line_info& li : cols)
    if (!li.special && li.nonzero()) pb = std::max(pb, li.emax - li.low + 1);
  plan pl = make_plan(pa, pb, k, T);
  if (p.c_lo != nullptr && pl.moduli > unrounded_moduli) {
    // The unrounded output carries its truncation bound, and its caller
    // decides with the bound and forms the undecided entries exactly: fewer
    // moduli pay where each truncated line keeps at least keep_bits.
    const int c = ceil_log2(k);
    const int budget = T.log2_m[unrounded_moduli] - 2 - c;
    int wa = std::min(pa, width_cap), wb = std::min(pb, width_cap);
    while (wa + wb > budget && (wa > keep_bits || wb > keep_bits)) {
      if (wa >= wb) --wa;
      else --wb;
    }
    if (wa + wb <= budget) {
      pl.wa = std::max(1, wa);
      pl.wb = std::max(1, wb);
      pl.exact = wa >= pa && wb >= pb;
      pl.moduli = moduli_for(2 + c + pl.wa + pl.wb, T);
    }
  }
  const int nmod = pl.moduli;

  // 2. The scaled integer operands.
  std::vector<line_scale> rs(static_cast<std::size_t>(m)), cs(static_cast<std::size_t>(n));
  const int clog2k = ceil_log2(k);
  for (std::int64_t i = 0; i < m; ++i) rs[i] = gemm3::scale_of(rows[i], pl.wa, k, clog2k);
  for (std::int64_t j = 0; j < n; ++j) cs[j] = gemm3::scale_of(cols[j], pl.wb, k, clog2k);
  const bool two_a = pl.wa > 53, two_b = pl.wb > 53;
  // Fast conversion (two exact multiplications per element) when every line
  // is one-limb and untruncated, and none holds inf or NaN (zero lines have
  // factors 1 and give zeros anyway).
  std::vector<double> fa1(static_cast<std::size_t>(m)), fa2(static_cast<std::size_t>(m));
  std::vector<double> fb1(static_cast<std::size_t>(n)), fb2(static_cast<std::size_t>(n));
  bool simple_a = !two_a, simple_b = !two_b;
  for (std::int64_t i = 0; i < m; ++i) {
    fa1[i] = rs[i].f1, fa2[i] = rs[i].f2;
    simple_a = simple_a && !rows[i].special && !rs[i].truncated;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    fb1[j] = cs[j].f1, fb2[j] = cs[j].f2;
    simple_b = simple_b && !cols[j].special && !cs[j].truncated;
  }

  // 3. Tiles of C (mt x nt): for each modulus, the residue DGEMM of the
  // tile (Goto's loops: k in steps of kc, one packed B panel per step reused
  // by row chunks of mcb, one packed A block per chunk), then the
  // reconstruction and the rounding of every entry of the tile.
  const std::int64_t mr = ks.mr, nr = ks.nr;
  std::int64_t mcb, mt, nt, kc;
  if (block > 0) {  // tests vary it: every loop and edge then gets exercised
    mcb = round_up(std::min<std::int64_t>(block, m), mr);
    mt = 2 * mcb;
    nt = round_up(std::min<std::int64_t>(block, n), nr);
    kc = std::min<std::int64_t>(block, max_kc);
  } else {
    // Defaults measured on Zen 5 (1 MB L2, 32 MB L3): the packed A block
    // (192 x 128 doubles) stays in L2, the B panel (128 x nt) in L3, and a
    // tile's residue planes (5 x 576 x 768 doubles for 53-bit data) in L3.
    constexpr std::int64_t tile_rows = 576, tile_cols = 768, chunk_rows = 192;
    mcb = round_up(std::min<std::int64_t>(m, chunk_rows), mr);
    const std::int64_t mpieces = (m + tile_rows - 1) / tile_rows;
    mt = round_up((m + mpieces - 1) / mpieces, mcb);
    const std::int64_t pieces = (n + tile_cols - 1) / tile_cols;
    nt = round_up((n + pieces - 1) / pieces, nr);
    kc = max_kc;
    // enough tiles for the threads (4 per thread where the sizes allow it)
    while (threads > 1 && ((m + mt - 1) / mt) * ((n + nt - 1) / nt) < 4 * threads) {
      if (mt > mcb) mt = round_up(mt / 2, mcb);
      else if (nt > 4 * nr) nt = round_up(nt / 2, nr);
      else break;
    }
  }
  const std::int64_t mtiles = (m + mt - 1) / mt, ntiles = (n + nt - 1) / nt;
  const std::int64_t ntile = mtiles * ntiles;
  const int nthreads = static_cast<int>(std::min<std::int64_t>(threads, ntile));
  // Each thread's workspace (its cached one, grown as needed); the fallback
  // lists are collected after the tiles.
  auto prepare = [&](thread_work& w) {
    w.a_lo.resize(static_cast<std::size_t>(mt * kc));
    w.b_lo.resize(static_cast<std::size_t>(kc * nt));
    if (two_a) w.a_hi.resize(static_cast<std::size_t>(mt * kc));
    if (two_b) w.b_hi.resize(static_cast<std::size_t>(kc * nt));
    w.ap.resize(static_cast<std::size_t>(mcb * kc));
    w.bp.resize(static_cast<std::size_t>(kc * nt));
    w.cres.resize(static_cast<std::size_t>(nmod * mt * nt));
    w.digits.resize(static_cast<std::size_t>(nmod * mt));
    w.left.resize(static_cast<std::size_t>(mt));
    w.fallback.clear();
  };
  auto release = [](thread_work& w) {
    if (bytes_of(w) <= keep_bytes) return;
    for (aligned_buffer* b : {&w.a_lo, &w.a_hi, &w.b_lo, &w.b_hi, &w.ap, &w.bp, &w.cres, &w.digits})
      b->release();
    w.fallback = {};
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> todo;
  const bool unrounded = p.c_lo != nullptr;
  const bool scale_pow2 = power_of_two(p.alpha) && (p.beta == 0.0 || power_of_two(p.beta));
  const bool vector_finish = ks.finish_nearest != nullptr && scale_pow2 && !unrounded &&
                             p.mode == rounding::to_nearest_even;
  const bool vector_split = ks.split_unrounded != nullptr && unrounded;
  // Row scales for finish_nearest / split_unrounded; rows they must leave
  // alone (special, zero; truncated for the rounding) get a scale no lane
  // accepts.
  std::vector<std::int64_t> row_scale(vector_finish || vector_split ? static_cast<std::size_t>(m) : 0);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(row_scale.size()); ++i)
    row_scale[i] = rows[i].special || rs[i].skip || (rs[i].truncated && !unrounded) ? std::int64_t{1} << 40
                                                                                     : rs[i].scale;

  const scalar alpha = unpack(p.alpha);
  const bool beta_zero = p.beta == 0.0;
  const scalar beta = unpack(beta_zero ? 0.0 : p.beta);
  // Limbs of X and of X +- D: |X| < M/4 and D <= M/4, so |X| + D < M < 2^(log2 M + 1).
  const int xn = (T.log2_m[nmod] + 1) / 64 + 1;

  auto do_tile = [&](std::int64_t tile, thread_work& w) {
    const std::int64_t i0 = (tile % mtiles) * mt, j0 = (tile / mtiles) * nt;
    const std::int64_t mrows = std::min(mt, m - i0), ncol = std::min(nt, n - j0);
    const std::int64_t ldc = mt, plane = mt * nt;
    double* const alo = w.a_lo.p;
    double* const ahi = two_a ? w.a_hi.p : nullptr;
    double* const blo = w.b_lo.p;
    double* const bhi = two_b ? w.b_hi.p : nullptr;
    for (std::int64_t pc = 0; pc < k; pc += kc) {
      const std::int64_t kb = std::min(kc, k - pc);
      // The scaled integers of this k-step: op(A) rows [i0, i0 + mrows)
      // column-major (ld mrows), op(B) columns [j0, j0 + ncol) row-major (ld
      // ncol), read along the contiguous direction of the source.
      double hi = 0, lo = 0;
      auto put_a = [&](std::int64_t i, std::int64_t l) {
        convert(A.get(i, l), rs[i], two_a, hi, lo);
        const std::int64_t d = (i - i0) + (l - pc) * mrows;
        alo[d] = lo;
        if (two_a) ahi[d] = hi;
      };
      auto put_b = [&](std::int64_t j, std::int64_t l) {
        convert(B.get(j, l), cs[j], two_b, hi, lo);
        const std::int64_t d = (l - pc) * ncol + (j - j0);
        blo[d] = lo;
        if (two_b) bhi[d] = hi;
      };
      // A transposing copy goes in strips of 8 lines, so that both the reads
      // (8 streams) and the writes (8 consecutive values) stay in cache lines.
      if (simple_a && A.contiguous) {
        for (std::int64_t i1 = i0; i1 < i0 + mrows; i1 += 8) {
          const std::int64_t w8 = std::min<std::int64_t>(8, i0 + mrows - i1);
          for (std::int64_t l = pc; l < pc + kb; ++l) {
            double* dst = alo + (i1 - i0) + (l - pc) * mrows;
            for (std::int64_t u = 0; u < w8; ++u)
              dst[u] = (A.src[(i1 + u) * A.sld + l] * fa1[i1 + u]) * fa2[i1 + u];
          }
        }
      } else if (simple_a) {
        for (std::int64_t l = pc; l < pc + kb; ++l) {
          const double* src = A.src + l * A.sld;
          double* dst = alo + (l - pc) * mrows - i0;
          for (std::int64_t i = i0; i < i0 + mrows; ++i) dst[i] = (src[i] * fa1[i]) * fa2[i];
        }
      } else if (A.contiguous) {
        for (std::int64_t i1 = i0; i1 < i0 + mrows; i1 += 8)
          for (std::int64_t l = pc; l < pc + kb; ++l)
            for (std::int64_t i = i1; i < std::min(i1 + 8, i0 + mrows); ++i) put_a(i, l);
      } else {
        for (std::int64_t l = pc; l < pc + kb; ++l)
          for (std::int64_t i = i0; i < i0 + mrows; ++i) put_a(i, l);
      }
      if (simple_b && B.contiguous) {
        for (std::int64_t j1 = j0; j1 < j0 + ncol; j1 += 8) {
          const std::int64_t w8 = std::min<std::int64_t>(8, j0 + ncol - j1);
          for (std::int64_t l = pc; l < pc + kb; ++l) {
            double* dst = blo + (l - pc) * ncol + (j1 - j0);
            for (std::int64_t u = 0; u < w8; ++u)
              dst[u] = (B.src[(j1 + u) * B.sld + l] * fb1[j1 + u]) * fb2[j1 + u];
          }
        }
      } else if (simple_b) {
        for (std::int64_t l = pc; l < pc + kb; ++l) {
          const double* src = B.src + l * B.sld;
          double* dst = blo + (l - pc) * ncol - j0;
          for (std::int64_t j = j0; j < j0 + ncol; ++j) dst[j] = (src[j] * fb1[j]) * fb2[j];
        }
      } else if (B.contiguous) {
        for (std::int64_t j1 = j0; j1 < j0 + ncol; j1 += 8)
          for (std::int64_t l = pc; l < pc + kb; ++l)
            for (std::int64_t j = j1; j < std::min(j1 + 8, j0 + ncol); ++j) put_b(j, l);
      } else {
        for (std::int64_t l = pc; l < pc + kb; ++l)
          for (std::int64_t j = j0; j < j0 + ncol; ++j) put_b(j, l);
      }
      for (int t = 0; t < nmod; ++t) {
        const modulus& md = T.g.md[t];
        double* cres = w.cres.p + t * plane;
        ks.pack_b(bhi, blo, ncol, kb, ncol, md, w.bp.p);
        for (std::int64_t ic = 0; ic < mrows; ic += mcb) {
          const std::int64_t mc = std::min(mcb, mrows - ic);
          ks.pack_a(ahi ? ahi + ic : nullptr, alo + ic, mrows, mc, kb, md, w.ap.p);
          for (std::int64_t jr = 0; jr < ncol; jr += nr)
            for (std::int64_t ir = 0; ir < mc; ir += mr)
              ks.kernel(kb, w.ap.p + ir * kb, w.bp.p + jr * kb, cres + jr * ldc + ic + ir, ldc, pc == 0,
                        md);
        }
      }
    }
    // Reconstruction and rounding.
    for (std::int64_t q = 0; q < ncol; ++q) {
      const std::int64_t j = j0 + q;
      const line_scale& sj = cs[j];
      if (cols[j].special) {  // the fallback pass (or the caller) does the whole column
        if (unrounded)
          for (std::int64_t r = 0; r < mrows; ++r) p.c_err[i0 + r + j * p.ldc] = k_nan;
        continue;
      }
      ks.garner(w.cres.p + q * ldc, plane, mrows, nmod, T.g, w.digits.p);
      // The common case in SIMD lanes first (exact lines, nearest, alpha and
      // beta powers of two); the scalar loop does the entries it leaves.
      // (The unrounded output likewise, its truncation bound added below.)
      const bool lanes = vector_finish && !sj.truncated && !sj.skip;
      const bool split_lanes = vector_split && !sj.skip;
      if (lanes)
        ks.finish_nearest(w.digits.p, mrows, nmod, T.g, row_scale.data() + i0, sj.scale, p.alpha,
                          beta_zero ? 0.0 : p.beta, p.c + i0 + j * p.ldc, w.left.data());
      else if (split_lanes)
        ks.split_unrounded(w.digits.p, mrows, nmod, T.g, row_scale.data() + i0, sj.scale,
                           p.c + i0 + j * p.ldc, p.c_lo + i0 + j * p.ldc, p.c_err + i0 + j * p.ldc,
                           w.left.data());
      for (std::int64_t r = 0; r < mrows; ++r) {
        const std::int64_t i = i0 + r;
        const line_scale& si = rs[i];
        if (lanes && w.left[r] == 0) continue;
        if (split_lanes && w.left[r] == 0) {
          if (si.truncated || sj.truncated) add_truncation_bound(si, sj, p.c_err[i + j * p.ldc]);
          continue;
        }
        if (rows[i].special) {
          if (unrounded) p.c_err[i + j * p.ldc] = k_nan;
          continue;
        }
        u64 mag[x_limbs] = {};
        bool neg = false;
        double& cij = p.c[i + j * p.ldc];
        if (!si.skip && !sj.skip) {  // else X = 0
          if (nmod <= 5 && !unrounded && !si.truncated && !sj.truncated) {
            const __int128 y = horner128(w.digits.p + r, mrows, nmod, T);
            double v;
            if (y != 0 &&
                finish_bounded(y, si.scale + sj.scale, p.alpha, beta_zero ? 0.0 : p.beta,
                               beta_zero ? 0.0 : cij, scale_pow2, p.mode, v)) {
              cij = v;
              continue;
            }
            magnitude_of(y, mag, neg);
          } else {
            horner(w.digits.p + r, mrows, nmod, T, mag, neg);
            double v;
            if (!unrounded && !si.truncated && !sj.truncated &&
                finish_bounded_limbs(mag, neg, si.scale + sj.scale, p.alpha, beta_zero ? 0.0 : p.beta,
                                     beta_zero ? 0.0 : cij, scale_pow2, p.mode, v)) {
              cij = v;
              continue;
            }
          }
        }
        if (unrounded) {
          const std::int64_t e = i + j * p.ldc;
          split_hi_lo(mag, x_limbs, neg, si.scale + sj.scale, cij, p.c_lo[e], p.c_err[e]);
          if ((si.truncated || sj.truncated) && !si.skip && !sj.skip) add_truncation_bound(si, sj, p.c_err[e]);
          continue;
        }
        const double cv = beta_zero ? 0.0 : cij;
        const int s = si.scale + sj.scale;
        if ((!si.truncated && !sj.truncated) || si.skip || sj.skip) {
          // The IEEE sign of the exact-zero S_ij as the accumulator rounds it.
          auto zero_sign = [&]() { return zero_sign_of(p, i, j).neg; };
          cij = finish(alpha, mag, xn, neg, s, beta, cv, p.mode, zero_sign);
        } else {
          // D = 2^dexp >= the truncation bound (see truncation_bound)
          const int e1 = sj.truncated ? si.norm_exp : INT_MIN;
          const int e2 = si.truncated ? sj.norm_exp : INT_MIN;
          const int dexp = std::max(0, std::max(e1, e2) + 1);
          u64 dmag[x_limbs] = {};
          dmag[dexp / 64] = u64{1} << (dexp % 64);
          u64 lo[x_limbs], hi[x_limbs];
          bool lneg, hneg;
          add_signed(mag, neg, dmag, true, lo, lneg, x_limbs);
          add_signed(mag, neg, dmag, false, hi, hneg, x_limbs);
          auto no_sign = [] { return false; };  // unused: X +- D == 0 is rejected below
          const double r1 = finish(alpha, lo, xn, lneg, s, beta, cv, p.mode, no_sign);
          const double r2 = finish(alpha, hi, xn, hneg, s, beta, cv, p.mode, no_sign);
          if (std::bit_cast<u64>(r1) == std::bit_cast<u64>(r2) && r1 != 0.0)
            cij = r1;
          else
            w.fallback.emplace_back(i, j);
        }
      }
    }
  };

  std::exception_ptr failure;
  if (nthreads > 1) {
#pragma omp parallel num_threads(nthreads)
    {
      thread_work& w = cached_work;
      try {
        prepare(w);
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t tile = 0; tile < ntile; ++tile) {
          try {
            do_tile(tile, w);
          } catch (...) {
#pragma omp critical(exala_gemm_failure)
            if (!failure) failure = std::current_exception();
          }
        }
#pragma omp critical(exala_gemm_todo)
        todo.insert(todo.end(), w.fallback.begin(), w.fallback.end());
      } catch (...) {
#pragma omp critical(exala_gemm_failure)
        if (!failure) failure = std::current_exception();
      }
      release(w);
    }
  } else {
    thread_work& w = cached_work;
    try {
      prepare(w);
      for (std::int64_t tile = 0; tile < ntile; ++tile) do_tile(tile, w);
      todo.insert(todo.end(), w.fallback.begin(), w.fallback.end());
    } catch (...) {
      release(w);
      throw;
    }
    release(w);
  }
  if (failure) std::rethrow_exception(failure);

  crt_stats st;
  st.moduli = nmod;
  st.width_a = pl.wa;
  st.width_b = pl.wb;
  st.truncated = !pl.exact;
  if (unrounded) {  // the caller forms the entries marked NaN
    stats_tls = st;
    return;
  }

  // 4. Exact dot products where the fast path does not apply.
  // (sorted: the order of the exact recomputations cannot matter, but a
  // fixed order keeps runs identical in every respect)
  std::sort(todo.begin(), todo.end());
  const std::int64_t undecided = static_cast<std::int64_t>(todo.size());
  for (std::int64_t i = 0; i < m; ++i)
    if (rows[i].special)
      for (std::int64_t j = 0; j < n; ++j) todo.emplace_back(i, j);
  for (std::int64_t j = 0; j < n; ++j)
    if (cols[j].special)
      for (std::int64_t i = 0; i < m; ++i)
        if (!rows[i].special) todo.emplace_back(i, j);
  const std::int64_t nt_todo = static_cast<std::int64_t>(todo.size());
  if (threads > 1 && nt_todo > 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
    for (std::int64_t e = 0; e < nt_todo; ++e) {
      try {
        entry_finish(p, todo[e].first, todo[e].second);
      } catch (...) {
#pragma omp critical(exala_gemm_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
  } else {
    for (const auto& e : todo) entry_finish(p, e.first, e.second);
  }

  st.fallback_entries = nt_todo;
  (void)undecided;
  stats_tls = st;
}

}  // namespace exala::detail::gemm3
