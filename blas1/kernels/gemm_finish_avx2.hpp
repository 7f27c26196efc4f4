// Internal: the vectorized common case of the gemm rounding, written once
// with AVX2 + FMA intrinsics and included by the AVX2 and AVX-512 kernel
// sets (both translation units compile AVX2 and FMA; the AVX-512 set runs
// this 4-lane version). Contract at gemm_kernels::finish_nearest.
//
// Per entry, in 4 lanes: X = v_0 + m_0 (v_1 + m_1 (... v_(n-1))) by Horner's
// rule in double-double: with X_(t+1) = H + L (|L| <= ulp(H)/2),
// m H = p + e exactly (FMA TwoProd, integers), q = fl(m L), v_t + p = s + f
// exactly (TwoSum), w = fl(fl(e + q) + f), H' + L' = TwoSum(s, w). With
// B_t = |v_t| + m_t B_(t+1) (B_(n-1) = |v_(n-1)|) bounding every magnitude
// met at step t, the step errs by at most 7 * 2^-106 B_t (q: 2^-106 B_t;
// the two roundings of w: 2 * 2^-53 * 3 * 2^-53 B_t), and an error of
// eps B_(t+1) carried in grows to at most eps B_t, so |X - H - L| <= (n - 1)
// 7 2^-106 B_0 < 2^-100 B_0 for n <= max_moduli = 10 (every B and H stays
// below 2^241, far from overflow); fl(B_0) (rounded up by at most
// 2^-50 relatively) times 2^-99 covers it. Then S = X 2^s with
// s = row + column scale in [-1022, 1023] (f = 2^s built from its bits):
// H f exact (checked normal: |H f| in [2^-900, 2^1000]), L f and the bound
// within 2^-1075 where they underflow. With alpha and beta powers of two:
// alpha H f, alpha L f and beta c exact (beta c within 2^-1075 if it
// underflows), TwoSum(alpha H f, beta c) = h1 + q1, r = fl(alpha L f + q1)
// within 2^-53 |r|, TwoSum(h1, r) = hi + lo, err = 2 (|alpha| E + 2^-53 |r|
// + 2^-1074) + 2^-1000, and round_bounded's test to nearest: |hi| in
// [2^-960, 2^1022], err <= 2^1000, and lo (signed toward |hi|) plus and
// minus err strictly inside the half gaps below and above |hi|; the result
// is then hi. Lanes that fail any test (including NaN, inf, an exact zero
// X, a scale out of range) are left to the caller's scalar path.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "gemm_kernels.hpp"

namespace exala::detail::gemm3 {
namespace {

inline __m256d abs4(__m256d x) noexcept {
  return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
}
inline void two_sum4(__m256d a, __m256d b, __m256d& t, __m256d& q) noexcept {
  t = _mm256_add_pd(a, b);
  const __m256d z = _mm256_sub_pd(t, a);
  q = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(t, z)), _mm256_sub_pd(b, z));
}

// Horner's rule in double-double over lanes [e, e + 4) (mask k): X = H + L
// within 2^-100 B (above).
inline void horner_dd4(const double* v, std::int64_t count, std::int64_t e, __m256i k, int nmod,
                       const garner_consts& g, __m256d& H, __m256d& L, __m256d& B) noexcept {
  H = _mm256_maskload_pd(v + (nmod - 1) * count + e, k);
  L = _mm256_setzero_pd();
  B = abs4(H);
  for (int t = nmod - 2; t >= 0; --t) {
    const __m256d m = _mm256_set1_pd(g.md[t].m);
    const __m256d d = _mm256_maskload_pd(v + t * count + e, k);
    const __m256d p = _mm256_mul_pd(H, m);
    const __m256d ee = _mm256_fmsub_pd(H, m, p);
    const __m256d q = _mm256_mul_pd(L, m);
    __m256d s, f;
    two_sum4(p, d, s, f);
    const __m256d w = _mm256_add_pd(_mm256_add_pd(ee, q), f);
    two_sum4(s, w, H, L);
    B = _mm256_fmadd_pd(B, m, abs4(d));  // rounded: the 2^-99 below has the slack
  }
}

// 2^s for the lanes' s = row_scale + col_scale, and which lanes of k have s
// in [-1022, 1023].
inline __m256d scale4(const std::int64_t* row_scale, std::int64_t e, __m256i k, std::int64_t col_scale,
                      __m256d& s_ok) noexcept {
  const __m256i sc =
      _mm256_add_epi64(_mm256_maskload_epi64(reinterpret_cast<const long long*>(row_scale + e), k),
                       _mm256_set1_epi64x(col_scale));
  const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(-1022), sc),
                                      _mm256_cmpgt_epi64(sc, _mm256_set1_epi64x(1023)));
  s_ok = _mm256_castsi256_pd(_mm256_andnot_si256(out, k));
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(sc, _mm256_set1_epi64x(1023)), 52));
}

// X 2^s of lanes [e, e + 4) (mask k) as hs + ls within es = fl(B) 2^-99 2^s
// + 2^-1074 (horner_dd4's bound, scaled), with H itself and which lanes have
// s in range (s_ok): the start of both finishes below.
inline void scaled_dd4(const double* v, std::int64_t count, std::int64_t e, __m256i k, int nmod,
                       const garner_consts& g, const std::int64_t* row_scale, std::int64_t col_scale, __m256d& H,
                       __m256d& hs, __m256d& ls, __m256d& es, __m256d& s_ok) noexcept {
  __m256d L, B;
  horner_dd4(v, count, e, k, nmod, g, H, L, B);
  const __m256d fs = scale4(row_scale, e, k, col_scale, s_ok);
  hs = _mm256_mul_pd(H, fs);
  ls = _mm256_mul_pd(L, fs);
  es = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(B, _mm256_set1_pd(0x1p-99)), fs), _mm256_set1_pd(0x1p-1074));
}

// Every lane left (a moduli count the lanes do not handle); returns count.
inline std::int64_t leave_all(std::int64_t count, unsigned char* left) noexcept {
  for (std::int64_t e = 0; e < count; ++e) left[e] = 1;
  return count;
}

// Sets left[e..] from the lanes of ok (e + 4 may pass count); returns how many are left.
inline std::int64_t mark_left(__m256d ok, std::int64_t e, std::int64_t count, unsigned char* left) noexcept {
  const int done = _mm256_movemask_pd(ok);
  const std::int64_t lanes = count - e < 4 ? count - e : 4;
  std::int64_t n = 0;
  for (std::int64_t u = 0; u < lanes; ++u) {
    left[e + u] = static_cast<unsigned char>(((done >> u) & 1) == 0);
    n += left[e + u];
  }
  return n;
}

// The unrounded output (problem::c_lo) of the same lanes: hi = H 2^s, lo =
// L 2^s, err = fl(B) 2^-99 2^s + 2^-1074 >= |S - hi - lo| (hi exact: checked
// 2^-1000 <= |H 2^s| <= 2^1000, or H = 0 with X = 0; lo and the bound each
// within 2^-1075 where they underflow). Lanes with a scale out of range or
// hi outside that range are left (left[e] = 1, nothing written).
std::int64_t split_unrounded_avx2(const double* v, std::int64_t count, int nmod, const garner_consts& g,
                                  const std::int64_t* row_scale, std::int64_t col_scale, double* hi,
                                  double* lo, double* err, unsigned char* left) noexcept {
  if (nmod < 1 || nmod > max_moduli) return leave_all(count, left);
  const __m256i idx = _mm256_set_epi64x(3, 2, 1, 0);
  std::int64_t nleft = 0;
  for (std::int64_t e = 0; e < count; e += 4) {
    const __m256i k = _mm256_cmpgt_epi64(_mm256_set1_epi64x(count - e), idx);
    __m256d H, hs, ls, es, ok;
    scaled_dd4(v, count, e, k, nmod, g, row_scale, col_scale, H, hs, ls, es, ok);
    // |hi| <= 2^1000, and >= 2^-1000 (so that hi is exact, not rounded in
    // the subnormal range) unless X = 0
    const __m256d ahs = abs4(hs);
    const __m256d normal = _mm256_and_pd(_mm256_cmp_pd(ahs, _mm256_set1_pd(0x1p-1000), _CMP_GE_OQ),
                                         _mm256_cmp_pd(ahs, _mm256_set1_pd(0x1p1000), _CMP_LE_OQ));
    ok = _mm256_and_pd(ok, _mm256_or_pd(normal, _mm256_cmp_pd(H, _mm256_setzero_pd(), _CMP_EQ_OQ)));
    const __m256i store = _mm256_castpd_si256(ok);
    _mm256_maskstore_pd(hi + e, store, hs);
    _mm256_maskstore_pd(lo + e, store, ls);
    _mm256_maskstore_pd(err + e, store, es);
    nleft += mark_left(ok, e, count, left);
  }
  return nleft;
}

std::int64_t finish_nearest_avx2(const double* v, std::int64_t count, int nmod, const garner_consts& g,
                                 const std::int64_t* row_scale, std::int64_t col_scale, double alpha,
                                 double beta, double* c, unsigned char* left) noexcept {
  if (nmod < 1 || nmod > max_moduli) return leave_all(count, left);
  const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
  const __m256d aabs = _mm256_set1_pd(alpha < 0 ? -alpha : alpha);
  const __m256d cmax = _mm256_set1_pd(0x1p1000), hmin = _mm256_set1_pd(0x1p-900);
  const __m256d rmin = _mm256_set1_pd(0x1p-960), rmax = _mm256_set1_pd(0x1p1022);
  const __m256i mant = _mm256_set1_epi64x((std::int64_t{1} << 52) - 1);
  const __m256i idx = _mm256_set_epi64x(3, 2, 1, 0);
  std::int64_t nleft = 0;
  for (std::int64_t e = 0; e < count; e += 4) {
    const __m256i k = _mm256_cmpgt_epi64(_mm256_set1_epi64x(count - e), idx);
    __m256d H, hs, ls, es, s_ok;
    scaled_dd4(v, count, e, k, nmod, g, row_scale, col_scale, H, hs, ls, es, s_ok);
    __m256d ok = _mm256_and_pd(s_ok,
                               _mm256_and_pd(_mm256_cmp_pd(abs4(hs), hmin, _CMP_GE_OQ),
                                             _mm256_cmp_pd(abs4(hs), cmax, _CMP_LE_OQ)));
    __m256d cv = _mm256_setzero_pd();
    if (beta != 0.0) {
      const __m256d c0 = _mm256_maskload_pd(c + e, k);
      ok = _mm256_and_pd(ok, _mm256_cmp_pd(abs4(c0), cmax, _CMP_LE_OQ));
      cv = _mm256_mul_pd(c0, vb);
    }
    __m256d h1, q1, hi, lo;
    two_sum4(_mm256_mul_pd(va, hs), cv, h1, q1);
    const __m256d r = _mm256_add_pd(_mm256_mul_pd(va, ls), q1);
    two_sum4(h1, r, hi, lo);
    const __m256d err = _mm256_add_pd(
        _mm256_mul_pd(_mm256_set1_pd(2.0),
                      _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(aabs, es), _mm256_mul_pd(abs4(r), _mm256_set1_pd(0x1p-53))),
                                    _mm256_set1_pd(0x1p-1074))),
        _mm256_set1_pd(0x1p-1000));
    // round_bounded's test to nearest
    const __m256d ahi = abs4(hi);
    ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(ahi, rmin, _CMP_GE_OQ), _mm256_cmp_pd(ahi, rmax, _CMP_LE_OQ)));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(err, cmax, _CMP_LE_OQ));
    const __m256i bits = _mm256_castpd_si256(ahi);
    const __m256d g_up = _mm256_castsi256_pd(
        _mm256_slli_epi64(_mm256_sub_epi64(_mm256_srli_epi64(bits, 52), _mm256_set1_epi64x(52)), 52));
    const __m256d pow2 = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(bits, mant), _mm256_setzero_si256()));
    const __m256d g_dn = _mm256_blendv_pd(g_up, _mm256_mul_pd(g_up, _mm256_set1_pd(0.5)), pow2);
    const __m256d dl = _mm256_xor_pd(lo, _mm256_and_pd(hi, _mm256_set1_pd(-0.0)));  // lo toward |hi|
    const __m256d half = _mm256_set1_pd(0.5);
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_add_pd(dl, err), _mm256_mul_pd(half, g_up), _CMP_LT_OQ));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_sub_pd(dl, err), _mm256_mul_pd(_mm256_set1_pd(-0.5), g_dn), _CMP_GT_OQ));
    _mm256_maskstore_pd(c + e, _mm256_castpd_si256(ok), hi);
    nleft += mark_left(ok, e, count, left);
  }
  return nleft;
}

}  // namespace
}  // namespace exala::detail::gemm3
