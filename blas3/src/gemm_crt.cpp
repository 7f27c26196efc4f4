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
//     |X_ij| < k 2^(wa + wb).
//  2. For N pairwise coprime moduli m_t (primes just below 2^24) with
//     M = prod m_t > 2 k 2^(wa + wb), the residues X_ij mod m_t come from
//     N ordinary DGEMMs of residue matrices: every residue is an integer of
//     magnitude < m/2 + 8, every product and partial sum an integer <= 2^53
//     (the micro-kernel reduces its accumulators every max_kc = 128 steps),
//     so the floating-point DGEMM is exact (gemm_kernels.hpp).
//  3. Garner's algorithm gives X_ij mod M exactly in integer arithmetic, and
//     |X_ij| < M/2 makes it X_ij itself.
//  4. gemm_round.hpp rounds alpha X_ij 2^(t_i+u_j) + beta C_ij once.
// Rows or columns whose integer width would need more than max_moduli
// moduli (dynamic range above ~90 bits within one row, e.g. data spanning
// 2^-200..2^200) are truncated to wa (wb) bits: a_il = trunc(A_il 2^-t_i)
// with t_i = emax_i + 1 - wa, |A_il - a_il 2^t_i| < 2^t_i. The neglected part
// is bounded rigorously, |S_ij - X_ij 2^(t_i+u_j)| < 2^(t_i+u_j) D with
// D = 2^(ceil(log2 k) + max(wa, wb) + 1) (derivation at truncation_bound), and
// the result is accepted only where both ends of the interval round to the
// same nonzero double (rounding is monotone, so every value between does
// too); the few remaining entries, and every entry of a row or column holding
// inf or NaN, are computed by an exact dot product into a superaccumulator.
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

constexpr int max_moduli = 8;  // M < 2^192: X fits three limbs
constexpr std::int64_t modulus_top = (std::int64_t{1} << 24) - (std::int64_t{1} << 10);
constexpr std::int64_t modulus_floor = (std::int64_t{1} << 24) - (std::int64_t{1} << 16);

// The exactness condition of the micro-kernel (gemm_kernels.hpp) for the
// largest admissible modulus: max_kc (m/2 + 8)^2 + (m/2 + 8) <= 2^53.
constexpr bool kernel_bound_holds() {
  const u128 r = static_cast<u128>(modulus_top / 2 + 9);  // > m/2 + 8
  return static_cast<u128>(max_kc) * r * r + r <= (u128{1} << 53);
}
static_assert(kernel_bound_holds(), "residue DGEMM would not be exact");

struct crt_tables {
  modulus md[max_moduli];
  u64 m[max_moduli];
  u64 inv[max_moduli][max_moduli];    // inv[s][t] = m_s^-1 mod m_t, s < t
  u64 shoup[max_moduli][max_moduli];  // floor(inv[s][t] 2^64 / m_t)
  u64 big_m[max_moduli + 1][x_limbs];   // M_N = m_0 ... m_(N-1)
  u64 half_m[max_moduli + 1][x_limbs];  // (M_N - 1) / 2 (M_N is odd)
  int log2_m[max_moduli + 1];           // floor(log2 M_N)
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
    t.md[i] = modulus{m, 1.0 / m, static_cast<double>(p44), mh, m - mh};
  }
  for (int s = 0; s < max_moduli; ++s)
    for (int u = s + 1; u < max_moduli; ++u) {
      t.inv[s][u] = inverse_mod(t.m[s], t.m[u]);
      t.shoup[s][u] = static_cast<u64>((static_cast<u128>(t.inv[s][u]) << 64) / t.m[u]);
    }
  u64 prod[x_limbs] = {1, 0, 0, 0};
  for (int n = 0; n <= max_moduli; ++n) {
    std::memcpy(t.big_m[n], prod, sizeof prod);
    // (M - 1) / 2: M is odd, so clear bit 0 and shift right by one.
    for (int l = 0; l < x_limbs; ++l)
      t.half_m[n][l] = (prod[l] >> 1) | (l + 1 < x_limbs ? prod[l + 1] << 63 : 0);
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

// x w mod m for a constant w < m with wp = floor(w 2^64 / m) (Shoup 2008):
// exact for every x < 2^64.
inline u64 mulmod(u64 x, u64 w, u64 wp, u64 m) noexcept {
  const u64 q = static_cast<u64>((static_cast<u128>(x) * wp) >> 64);
  u64 r = x * w - q * m;  // in [0, 2m), computed mod 2^64
  return r >= m ? r - m : r;
}

// X mod M_N in [0, M_N) from the residues c_t (|c_t| < m_t/2 + 8, stored
// `stride` doubles apart), by Garner's mixed-radix algorithm (Knuth, TAOCP
// vol. 2, 4.3.2): y = v_0 + m_0 (v_1 + m_1 (v_2 + ...)), all integer.
inline void garner(const double* c, std::int64_t stride, int n, const crt_tables& T,
                   u64 y[x_limbs]) noexcept {
  u64 v[max_moduli] = {};
  for (int t = 0; t < n; ++t) {
    const auto ci = static_cast<std::int64_t>(c[t * stride]);  // an exact integer
    const u64 mt = T.m[t];
    u64 x = ci < 0 ? static_cast<u64>(ci + static_cast<std::int64_t>(mt)) : static_cast<u64>(ci);
    // v_s < 2^24 < 2 m_t, so x + 2 m_t - v_s > 0.
    for (int s = 0; s < t; ++s) x = mulmod(x + 2 * mt - v[s], T.inv[s][t], T.shoup[s][t], mt);
    v[t] = x;
  }
  y[0] = v[n - 1];
  for (int l = 1; l < x_limbs; ++l) y[l] = 0;
  for (int t = n - 2; t >= 0; --t) {
    u64 carry = v[t];
    for (int l = 0; l < x_limbs; ++l) {
      const u128 p = static_cast<u128>(y[l]) * T.m[t] + carry;
      y[l] = static_cast<u64>(p);
      carry = static_cast<u64>(p >> 64);
    }
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

// ------------------------------------------------------------ operands

// Per row of op(A) (column of op(B)): the exponent range of its finite
// nonzero entries, and whether it holds inf or NaN.
struct line_info {
  int emax = INT_MIN;  // floor(log2 |x|) of the largest entry
  int low = INT_MAX;   // weight of the lowest set bit over the entries
  double abs_sum = 0;  // fl(sum |x|) in some order (a truncation bound, see norm_exp)
  bool special = false;
  bool nonzero() const noexcept { return emax != INT_MIN; }
};

inline void scan_value(double x, line_info& li) noexcept {
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
  const int lo = e0 + std::countr_zero(mant);
  const int hi = e0 + 63 - std::countl_zero(mant);
  if (hi > li.emax) li.emax = hi;
  if (lo < li.low) li.low = lo;
  li.abs_sum += std::fabs(x);
}

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

// The scaled operand: op(A) column-major (element (i, l) at lo[i + l m]) or
// op(B) row-major (element (l, j) at lo[l n + j]), hi only for two limbs.
struct scaled_operand {
  std::vector<double> lo, hi;
  bool two_limbs = false;
};

// Fills lines [q0, q1) of the scaled operand. Line q, element l of the source
// is at src[q * sld + l] (contiguous) or src[q + l * sld]; in the destination
// at dst[q + l * dld] (op(A): lines are rows, column-major) when lines_are_fast,
// else dst[q * dld + l]... see the two callers.
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

int ceil_log2(std::int64_t k) {
  int c = 0;
  while ((std::int64_t{1} << c) < k) ++c;
  return c;
}

struct plan {
  int moduli = 1;
  int wa = 1, wb = 1;
  bool exact = true;  // no line is truncated
};

// Smallest N with M_N >= 2^(1 + ceil(log2 k) + wa + wb), i.e. M_N > 2 |X|.
int moduli_for(int bits_needed, const crt_tables& T) {
  for (int n = 1; n <= max_moduli; ++n)
    if (T.log2_m[n] >= bits_needed) return n;
  return max_moduli + 1;
}

// Widths: the exact ones when max_moduli suffice (and both fit two limbs),
// else the widest truncation that fits max_moduli, trimmed from the wider.
plan make_plan(int pa, int pb, std::int64_t k, const crt_tables& T) {
  plan p;
  const int c = ceil_log2(k);
  constexpr int width_cap = 97;  // two limbs: hi < 2^53 after >> 44
  int wa = std::max(1, std::min(pa, width_cap)), wb = std::max(1, std::min(pb, width_cap));
  const int budget = T.log2_m[max_moduli] - 1 - c;  // wa + wb allowed with max_moduli
  while (wa + wb > budget) {
    if (wa >= wb) --wa;
    else --wb;
  }
  p.wa = wa;
  p.wb = wb;
  p.exact = wa >= pa && wb >= pb;
  p.moduli = moduli_for(1 + c + wa + wb, T);
  return p;
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
// D = 2^dexp is an integer in the units of X). Since |a'_il| < 2^(t+wa),
// norm_exp_i <= ceil(log2 k) + wa, and D <= M.

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

struct thread_work {
  aligned_buffer ap, bp, cres;
  std::vector<std::pair<std::int64_t, std::int64_t>> fallback;
};

thread_local crt_stats stats_tls;

std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

}  // namespace

crt_stats last_crt_stats() noexcept { return stats_tls; }
void clear_crt_stats() noexcept { stats_tls = crt_stats{}; }

// --------------------------------------------------------------- entries

void entry_sum(const problem& p, std::int64_t i, std::int64_t j, superaccumulator& acc,
               bool reference) {
  if (reference) {
    for (std::int64_t l = 0; l < p.k; ++l) acc.add_product(p.opa(i, l), p.opb(l, j));
    return;
  }
  const double* x = p.ta ? p.a + i * p.lda : p.a + i;
  const std::int64_t incx = p.ta ? 1 : p.lda;
  const double* y = p.tb ? p.b + j : p.b + j * p.ldb;
  const std::int64_t incy = p.tb ? p.ldb : 1;
  dot_into(acc, p.k, x, incx, y, incy, exec{backend::simd});
}

void entry_exact(const problem& p, std::int64_t i, std::int64_t j, bool reference) {
  superaccumulator acc;
  entry_sum(p, i, j, acc, reference);
  double& c = p.c[i + j * p.ldc];
  c = p.beta == 0.0 ? round_axpby(p.alpha, acc, 0.0, 0.0, p.mode)
                    : round_axpby(p.alpha, acc, p.beta, c, p.mode);
}

// ------------------------------------------------------------------ engine

void gemm_crt(const problem& p, int threads, long long block, const kernel_set_table& ks) {
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
  const plan pl = make_plan(pa, pb, k, T);
  const int nmod = pl.moduli;

  // 2. The scaled integer operands.
  std::vector<line_scale> rs(static_cast<std::size_t>(m)), cs(static_cast<std::size_t>(n));
  const int clog2k = ceil_log2(k);
  for (std::int64_t i = 0; i < m; ++i) rs[i] = scale_of(rows[i], pl.wa, k, clog2k);
  for (std::int64_t j = 0; j < n; ++j) cs[j] = scale_of(cols[j], pl.wb, k, clog2k);
  scaled_operand sa, sb;
  sa.two_limbs = pl.wa > 53;
  sb.two_limbs = pl.wb > 53;
  sa.lo.resize(static_cast<std::size_t>(m * k));
  sb.lo.resize(static_cast<std::size_t>(k * n));
  if (sa.two_limbs) sa.hi.resize(sa.lo.size());
  if (sb.two_limbs) sb.hi.resize(sb.lo.size());
  // op(A) into column-major (i + l m), op(B) into row-major (l n + j), in
  // blocks of 64 x 64 so that transposing reads and writes stay in cache.
  auto fill = [&](std::int64_t blk) {
    constexpr std::int64_t bs = 64;
    const std::int64_t mb = (m + bs - 1) / bs, kb = (k + bs - 1) / bs;
    const std::int64_t na = mb * kb;
    double hi = 0, lo = 0;
    if (blk < na) {
      const std::int64_t i0 = (blk % mb) * bs, l0 = (blk / mb) * bs;
      const std::int64_t i1 = std::min(m, i0 + bs), l1 = std::min(k, l0 + bs);
      for (std::int64_t l = l0; l < l1; ++l)
        for (std::int64_t i = i0; i < i1; ++i) {
          convert(A.get(i, l), rs[i], sa.two_limbs, hi, lo);
          sa.lo[i + l * m] = lo;
          if (sa.two_limbs) sa.hi[i + l * m] = hi;
        }
    } else {
      blk -= na;
      const std::int64_t nb = (n + bs - 1) / bs;
      const std::int64_t j0 = (blk % nb) * bs, l0 = (blk / nb) * bs;
      const std::int64_t j1 = std::min(n, j0 + bs), l1 = std::min(k, l0 + bs);
      for (std::int64_t l = l0; l < l1; ++l)
        for (std::int64_t j = j0; j < j1; ++j) {
          convert(B.get(j, l), cs[j], sb.two_limbs, hi, lo);
          sb.lo[l * n + j] = lo;
          if (sb.two_limbs) sb.hi[l * n + j] = hi;
        }
    }
  };
  const std::int64_t fill_blocks = ((m + 63) / 64) * ((k + 63) / 64) + ((n + 63) / 64) * ((k + 63) / 64);
  if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t b = 0; b < fill_blocks; ++b) fill(b);
  } else {
    for (std::int64_t b = 0; b < fill_blocks; ++b) fill(b);
  }

  // 3. Tiles of C: all moduli, then the reconstruction, per tile.
  const std::int64_t mr = ks.mr, nr = ks.nr;
  std::int64_t mt, nt, kc;
  if (block > 0) {
    mt = round_up(std::min<std::int64_t>(block, m), mr);
    nt = round_up(std::min<std::int64_t>(block, n), nr);
    kc = std::min<std::int64_t>(block, max_kc);
  } else {
    mt = round_up(std::min<std::int64_t>(m, 192), mr);
    const std::int64_t pieces = (n + 1023) / 1024;
    nt = round_up((n + pieces - 1) / pieces, nr);
    kc = max_kc;
    // enough tiles for the threads (4 per thread where the rows allow it)
    while (threads > 1 && mt > 2 * mr && ((m + mt - 1) / mt) * ((n + nt - 1) / nt) < 4 * threads)
      mt = round_up(mt / 2, mr);
  }
  const std::int64_t mtiles = (m + mt - 1) / mt, ntiles = (n + nt - 1) / nt;
  const std::int64_t ntile = mtiles * ntiles;
  const int nthreads = static_cast<int>(std::min<std::int64_t>(threads, ntile));
  std::vector<thread_work> work(static_cast<std::size_t>(std::max(nthreads, 1)));
  for (thread_work& w : work) {
    w.ap.resize(static_cast<std::size_t>(mt * kc));
    w.bp.resize(static_cast<std::size_t>(kc * nt));
    w.cres.resize(static_cast<std::size_t>(nmod * mt * nt));
  }

  const scalar alpha = unpack(p.alpha);
  const bool beta_zero = p.beta == 0.0;
  const scalar beta = unpack(beta_zero ? 0.0 : p.beta);
  // Limbs of X and of X +- D: |X| < M/2 and D <= M, so |X| + D < 2^(log2 M + 2).
  const int xn = (T.log2_m[nmod] + 2) / 64 + 1;

  auto do_tile = [&](std::int64_t tile, thread_work& w) {
    const std::int64_t i0 = (tile % mtiles) * mt, j0 = (tile / mtiles) * nt;
    const std::int64_t mc = std::min(mt, m - i0), ncol = std::min(nt, n - j0);
    const std::int64_t ldc = mt, plane = mt * nt;
    for (int t = 0; t < nmod; ++t) {
      const modulus& md = T.md[t];
      double* cres = w.cres.p + t * plane;
      for (std::int64_t pc = 0; pc < k; pc += kc) {
        const std::int64_t kb = std::min(kc, k - pc);
        ks.pack_b(sb.two_limbs ? sb.hi.data() + pc * n + j0 : nullptr, sb.lo.data() + pc * n + j0, n,
                  kb, ncol, md, w.bp.p);
        ks.pack_a(sa.two_limbs ? sa.hi.data() + i0 + pc * m : nullptr, sa.lo.data() + i0 + pc * m, m,
                  mc, kb, md, w.ap.p);
        for (std::int64_t jr = 0; jr < ncol; jr += nr)
          for (std::int64_t ir = 0; ir < mc; ir += mr)
            ks.kernel(kb, w.ap.p + ir * kb, w.bp.p + jr * kb, cres + jr * ldc + ir, ldc, pc == 0, md);
      }
    }
    // Reconstruction and rounding.
    for (std::int64_t q = 0; q < ncol; ++q) {
      const std::int64_t j = j0 + q;
      const line_scale& sj = cs[j];
      if (cols[j].special) continue;  // the fallback pass does the whole column
      for (std::int64_t r = 0; r < mc; ++r) {
        const std::int64_t i = i0 + r;
        const line_scale& si = rs[i];
        if (rows[i].special) continue;
        u64 y[x_limbs], mag[x_limbs];
        bool neg = false;
        if (si.skip || sj.skip) {
          std::fill(mag, mag + x_limbs, 0);  // a zero line: X = 0 exactly
        } else {
          garner(w.cres.p + q * ldc + r, plane, nmod, T, y);
          if (compare(y, T.half_m[nmod], x_limbs) > 0) {
            sub(T.big_m[nmod], y, mag, x_limbs);
            neg = true;
          } else {
            std::memcpy(mag, y, sizeof y);
          }
        }
        double& cij = p.c[i + j * p.ldc];
        const double cv = beta_zero ? 0.0 : cij;
        const int s = si.scale + sj.scale;
        if ((!si.truncated && !sj.truncated) || si.skip || sj.skip) {
          auto zero_sign = [&]() {
            // The IEEE sign of the exact-zero S_ij as the accumulator rounds
            // it: -0 if every product is -0, +0 if every product is +0, else
            // +0 (-0 downward).
            bool all_neg = true, all_pos = true;
            for (std::int64_t l = 0; l < k; ++l) {
              const double av = p.opa(i, l), bv = p.opb(l, j);
              if (av != 0.0 && bv != 0.0) return p.mode == rounding::downward;
              const bool sg = std::signbit(av) != std::signbit(bv);
              all_neg = all_neg && sg;
              all_pos = all_pos && !sg;
            }
            if (all_neg) return true;
            if (all_pos) return false;
            return p.mode == rounding::downward;
          };
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
      thread_work& w = work[static_cast<std::size_t>(thread_id())];
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t tile = 0; tile < ntile; ++tile) {
        try {
          do_tile(tile, w);
        } catch (...) {
#pragma omp critical(exala_gemm_failure)
          if (!failure) failure = std::current_exception();
        }
      }
    }
  } else {
    for (std::int64_t tile = 0; tile < ntile; ++tile) do_tile(tile, work[0]);
  }
  if (failure) std::rethrow_exception(failure);

  // 4. Exact dot products where the fast path does not apply.
  std::vector<std::pair<std::int64_t, std::int64_t>> todo;
  for (thread_work& w : work) todo.insert(todo.end(), w.fallback.begin(), w.fallback.end());
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
        entry_exact(p, todo[e].first, todo[e].second, false);
      } catch (...) {
#pragma omp critical(exala_gemm_failure)
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
  } else {
    for (const auto& e : todo) entry_exact(p, e.first, e.second, false);
  }

  crt_stats st;
  st.moduli = nmod;
  st.width_a = pl.wa;
  st.width_b = pl.wb;
  st.truncated = !pl.exact;
  st.fallback_entries = nt_todo;
  (void)undecided;
  stats_tls = st;
}

}  // namespace exala::detail::gemm3
