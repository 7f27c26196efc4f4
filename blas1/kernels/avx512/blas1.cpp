// The AVX-512 kernel set (the many-core "Phi-class" path). Built with
// -mavx512f -mavx512dq -mfma only; chosen at run time from cpuid.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "exala/arith_simd.hpp"
#include "blas1_kernels.hpp"

namespace exala::detail {
namespace {

struct v512 {
  using reg = __m512d;
  using mask = __mmask8;
  struct eft {
    static void two_sum(reg a, reg b, reg& s, reg& e) { exala::simd::avx512::two_sum(a, b, s, e); }
    static void two_prod(reg a, reg b, reg& p, reg& e) { exala::simd::avx512::two_prod(a, b, p, e); }
    static void fast_two_sum(reg a, reg b, reg& s, reg& e) { exala::simd::avx512::fast_two_sum(a, b, s, e); }
    static void fast_two_sum_fma(reg a, reg b, reg& s, reg& e) { exala::simd::avx512::fast_two_sum_fma(a, b, s, e); }
  };
  static constexpr int width = 8;
  static reg zero() { return _mm512_setzero_pd(); }
  static reg set1(double v) { return _mm512_set1_pd(v); }
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  // Lane k + w moved to lane k (w = 4, 2 or 1; the upper lanes are don't-care).
  template <int w>
  static reg down(reg a) {
    if constexpr (w == 4) return _mm512_shuffle_f64x2(a, a, 0x4e);
    else if constexpr (w == 2) return _mm512_permutex_pd(a, 0x4e);
    else return _mm512_permute_pd(a, 0x55);
  }
  static double first(reg a) { return _mm512_cvtsd_f64(a); }
  static reg select(mask m, reg yes, reg no) { return _mm512_mask_blend_pd(m, no, yes); }
  // The first k (0 <= k <= width) elements, zeros in the other lanes; reads
  // nothing beyond p[k - 1] (masked lanes do not fault).
  static reg load_first(const double* p, int k) {
    return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << k) - 1u), p);
  }
  static void store(double* p, reg v) { _mm512_storeu_pd(p, v); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
  static reg fmsub(reg a, reg b, reg c) { return _mm512_fmsub_pd(a, b, c); }
  static reg fnmadd(reg a, reg b, reg c) { return _mm512_fnmadd_pd(a, b, c); }  // c - a b, one rounding
  static reg div(reg a, reg b) { return _mm512_div_pd(a, b); }
  static reg abs(reg a) {
    return _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(a),
                                                _mm512_set1_epi64(0x7fffffffffffffffLL)));
  }
  static reg bor(reg a, reg b) {
    return _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_castpd_si512(b)));
  }
  // Any bit set other than the sign bits (a -0 spill is harmless).
  static bool any_bits(reg a) {
    const __m512i i = _mm512_castpd_si512(a);
    return _mm512_test_epi64_mask(i, _mm512_set1_epi64(0x7fffffffffffffffLL)) != 0;
  }
  static bool all_zero_value(reg a) {
    return _mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_EQ_OQ) == 0xff;
  }
  static mask lt(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
  static mask gt(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_NLE_UQ); }  // NaN counts as out
  static mask gt_ordered(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }  // false on NaN
  // max that lets a NaN in b through (vmaxpd returns its second operand on NaN)
  static reg min(reg a, reg b) { return _mm512_min_pd(a, b); }
  static reg max_nan(reg acc, reg b) { return _mm512_max_pd(acc, b); }
  static mask ne(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_NEQ_UQ); }
  static mask mask_none() { return 0; }
  static mask mask_or(mask a, mask b) { return static_cast<mask>(a | b); }
  static mask mask_and(mask a, mask b) { return static_cast<mask>(a & b); }
  static bool mask_any(mask a) { return a != 0; }
  static unsigned mask_bits(mask a) { return a; }
  static mask ge(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }
  static mask le(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
  // 64-bit integer lanes (GCC vector extensions give the + - & | ^ operators).
  using ireg = __m512i;
  static ireg as_int(reg a) { return _mm512_castpd_si512(a); }
  static reg as_double(ireg a) { return _mm512_castsi512_pd(a); }
  static ireg iset1(long long v) { return _mm512_set1_epi64(v); }
  static void istore(std::int64_t* p, ireg v) { _mm512_storeu_si512(p, v); }
  static ireg srli(ireg a, int k) { return _mm512_srli_epi64(a, k); }
  static ireg slli(ireg a, int k) { return _mm512_slli_epi64(a, k); }
  static ireg sllv(ireg a, ireg c) { return _mm512_sllv_epi64(a, c); }
  static ireg srlv(ireg a, ireg c) { return _mm512_srlv_epi64(a, c); }
  static ireg nonzero01(ireg a) {
    return _mm512_maskz_set1_epi64(_mm512_test_epi64_mask(a, a), 1);
  }
  // Lanes whose exponent field is all ones (inf or NaN), as a bit mask.
  static unsigned special_lanes(ireg bits) {
    const ireg e = _mm512_set1_epi64(0x7ff0000000000000LL);
    return _mm512_cmpeq_epi64_mask(_mm512_and_si512(bits, e), e);
  }
  static ireg zero_lanes(ireg a, unsigned lanes) {
    return _mm512_maskz_mov_epi64(static_cast<__mmask8>(~lanes), a);
  }
};

#include "blas1_simd_impl.hpp"

void sum512(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v512, false>(acc, x, n); }
void asum512(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v512, true>(acc, x, n); }
void dot512(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  dot_kernel<v512>(acc, x, y, n);
}

// Element-wise kernels: vfmadd (one rounding) and vmulpd; the tail uses
// masked loads and stores, which never touch the lanes masked out.
void axpy512(double alpha, const double* x, double* y, std::size_t n) {
  const __m512d a = _mm512_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512d r0 = _mm512_fmadd_pd(a, _mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i));
    const __m512d r1 = _mm512_fmadd_pd(a, _mm512_loadu_pd(x + i + 8), _mm512_loadu_pd(y + i + 8));
    _mm512_storeu_pd(y + i, r0);
    _mm512_storeu_pd(y + i + 8, r1);
  }
  for (; i < n; i += 8) {
    const std::size_t left = n - i;
    const __mmask8 m = left >= 8 ? static_cast<__mmask8>(0xff)
                                 : static_cast<__mmask8>((1u << left) - 1u);
    const __m512d r =
        _mm512_fmadd_pd(a, _mm512_maskz_loadu_pd(m, x + i), _mm512_maskz_loadu_pd(m, y + i));
    _mm512_mask_storeu_pd(y + i, m, r);
  }
}

void scal512(double alpha, double* x, std::size_t n) {
  const __m512d a = _mm512_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512d r0 = _mm512_mul_pd(a, _mm512_loadu_pd(x + i));
    const __m512d r1 = _mm512_mul_pd(a, _mm512_loadu_pd(x + i + 8));
    _mm512_storeu_pd(x + i, r0);
    _mm512_storeu_pd(x + i + 8, r1);
  }
  for (; i < n; i += 8) {
    const std::size_t left = n - i;
    const __mmask8 m = left >= 8 ? static_cast<__mmask8>(0xff)
                                 : static_cast<__mmask8>((1u << left) - 1u);
    _mm512_mask_storeu_pd(x + i, m, _mm512_mul_pd(a, _mm512_maskz_loadu_pd(m, x + i)));
  }
}

std::size_t two_products_nearest512(const double* u, const double* v, double b0, double b1, double* c,
                                    std::size_t m, unsigned char* left) {
  return two_products_nearest_kernel<v512>(u, v, b0, b1, c, m, left);
}

std::size_t axpby_nearest512(const double* hi, const double* lo, const double* err, double alpha, double beta,
                             const double* y, double* out, std::size_t r, unsigned char* left) {
  return axpby_nearest_kernel<v512>(hi, lo, err, alpha, beta, y, out, r, left);
}

std::size_t rank1_nearest512(const double* uh, const double* ul, double b, double* c, std::size_t m,
                             unsigned char* left) {
  return rank1_nearest_kernel<v512>(uh, ul, b, c, m, left);
}

bool dot_bounded512(const double* x, const double* y, std::size_t n, bounded& b) {
  return dot_bounded_kernel<v512>(x, y, n, b);
}
bool sum_bounded512(const double* x, std::size_t n, bool absolute, bounded& b) {
  return absolute ? dot_bounded_kernel<v512, 2>(x, nullptr, n, b) : dot_bounded_kernel<v512, 1>(x, nullptr, n, b);
}

std::size_t rows_solve512(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* w,
                        const double* extra, double d, double* x, unsigned char* left) {
  return rows_solve_kernel<v512>(a, ld, r, n, w, extra, d, x, left);
}

void rows_bounded512(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* x,
                    bounded* out) {
  rows_bounded_kernel<v512>(a, ld, r, n, x, out);
}

constexpr blas1_kernels table{sum512, asum512, dot512, axpy512, scal512, dot_bounded512,
                              rows_bounded512, 16, strided_bounded_kernel, sum_bounded512,
                              rank1_nearest512, two_products_nearest512, axpby_nearest512,
                              rows_solve512};

}  // namespace

const blas1_kernels blas1_avx512 = table;

}  // namespace exala::detail
