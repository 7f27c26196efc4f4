// The AVX2 kernel set. Built with -mavx2 -mfma only; chosen at run time from
// cpuid when AVX-512 is absent (or forced with EXALA_SIMD=avx2).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "exala/arith_simd.hpp"
#include "blas1_kernels.hpp"

namespace exala::detail {
namespace {

struct v256 {
  using reg = __m256d;
  using mask = __m256d;  // all-ones / all-zeros lanes
  struct eft {
    static void two_sum(reg a, reg b, reg& s, reg& e) { exala::simd::avx2::two_sum(a, b, s, e); }
    static void two_prod(reg a, reg b, reg& p, reg& e) { exala::simd::avx2::two_prod(a, b, p, e); }
    static void fast_two_sum(reg a, reg b, reg& s, reg& e) { exala::simd::avx2::fast_two_sum(a, b, s, e); }
    static void fast_two_sum_fma(reg a, reg b, reg& s, reg& e) { exala::simd::avx2::fast_two_sum_fma(a, b, s, e); }
  };
  static constexpr int width = 4;
  static reg zero() { return _mm256_setzero_pd(); }
  static reg set1(double v) { return _mm256_set1_pd(v); }
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  // Lane k + w moved to lane k (w = 2 or 1; the upper lanes are don't-care).
  template <int w>
  static reg down(reg a) {
    if constexpr (w == 2) return _mm256_permute2f128_pd(a, a, 1);
    else return _mm256_permute_pd(a, 0x5);
  }
  static double first(reg a) { return _mm256_cvtsd_f64(a); }
  static reg select(mask m, reg yes, reg no) { return _mm256_blendv_pd(no, yes, m); }
  // The first k (0 <= k <= width) elements, zeros in the other lanes; reads
  // nothing beyond p[k - 1].
  static reg load_first(const double* p, int k) {
    const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
    return _mm256_maskload_pd(p, _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), lane));
  }
  static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg fmsub(reg a, reg b, reg c) { return _mm256_fmsub_pd(a, b, c); }
  static reg fnmadd(reg a, reg b, reg c) { return _mm256_fnmadd_pd(a, b, c); }  // c - a b, one rounding
  static reg div(reg a, reg b) { return _mm256_div_pd(a, b); }
  static reg abs(reg a) {
    return _mm256_and_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL)));
  }
  static reg bor(reg a, reg b) { return _mm256_or_pd(a, b); }
  static bool any_bits(reg a) {
    const __m256i m = _mm256_set1_epi64x(0x7fffffffffffffffLL);
    return !_mm256_testz_si256(_mm256_castpd_si256(a), m);
  }
  static bool all_zero_value(reg a) {
    return _mm256_movemask_pd(_mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_EQ_OQ)) == 0xf;
  }
  static mask lt(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static mask gt(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_NLE_UQ); }  // NaN counts as out
  static mask gt_ordered(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }  // false on NaN
  // max that lets a NaN in b through (vmaxpd returns its second operand on NaN)
  static reg min(reg a, reg b) { return _mm256_min_pd(a, b); }
  static reg max_nan(reg acc, reg b) { return _mm256_max_pd(acc, b); }
  static mask ne(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ); }
  static mask mask_none() { return _mm256_setzero_pd(); }
  static mask mask_or(mask a, mask b) { return _mm256_or_pd(a, b); }
  static mask mask_and(mask a, mask b) { return _mm256_and_pd(a, b); }
  static bool mask_any(mask a) { return _mm256_movemask_pd(a) != 0; }
  static unsigned mask_bits(mask a) { return static_cast<unsigned>(_mm256_movemask_pd(a)); }
  static mask ge(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
  static mask le(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
  // 64-bit integer lanes (GCC vector extensions give the + - & | ^ operators).
  using ireg = __m256i;
  static ireg as_int(reg a) { return _mm256_castpd_si256(a); }
  static reg as_double(ireg a) { return _mm256_castsi256_pd(a); }
  static ireg iset1(long long v) { return _mm256_set1_epi64x(v); }
  static void istore(std::int64_t* p, ireg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static ireg srli(ireg a, int k) { return _mm256_srli_epi64(a, k); }
  static ireg slli(ireg a, int k) { return _mm256_slli_epi64(a, k); }
  static ireg sllv(ireg a, ireg c) { return _mm256_sllv_epi64(a, c); }
  static ireg srlv(ireg a, ireg c) { return _mm256_srlv_epi64(a, c); }
  static ireg nonzero01(ireg a) {
    return _mm256_add_epi64(_mm256_set1_epi64x(1), _mm256_cmpeq_epi64(a, _mm256_setzero_si256()));
  }
  static unsigned special_lanes(ireg bits) {
    const ireg e = _mm256_set1_epi64x(0x7ff0000000000000LL);
    return static_cast<unsigned>(
        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(bits, e), e))));
  }
  static ireg zero_lanes(ireg a, unsigned lanes) {
    const ireg keep = _mm256_set_epi64x((lanes & 8) ? 0 : -1, (lanes & 4) ? 0 : -1,
                                        (lanes & 2) ? 0 : -1, (lanes & 1) ? 0 : -1);
    return _mm256_and_si256(a, keep);
  }
};

#include "blas1_simd_impl.hpp"

void sum256(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v256, false>(acc, x, n); }
void asum256(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v256, true>(acc, x, n); }
void dot256(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  dot_kernel<v256>(acc, x, y, n);
}

// Element-wise kernels: vfmadd (one rounding) and vmulpd; the tail uses the
// scalar intrinsics (vfmadd231sd), never std::fma, so no inline function is
// shared with baseline code.
void axpy256(double alpha, const double* x, double* y, std::size_t n) {
  const __m256d a = _mm256_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256d r0 = _mm256_fmadd_pd(a, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i));
    const __m256d r1 = _mm256_fmadd_pd(a, _mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4));
    _mm256_storeu_pd(y + i, r0);
    _mm256_storeu_pd(y + i + 4, r1);
  }
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(y + i, _mm256_fmadd_pd(a, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
  const __m128d a1 = _mm_set_sd(alpha);
  for (; i < n; ++i) _mm_store_sd(y + i, _mm_fmadd_sd(a1, _mm_load_sd(x + i), _mm_load_sd(y + i)));
}

void scal256(double alpha, double* x, std::size_t n) {
  const __m256d a = _mm256_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256d r0 = _mm256_mul_pd(a, _mm256_loadu_pd(x + i));
    const __m256d r1 = _mm256_mul_pd(a, _mm256_loadu_pd(x + i + 4));
    _mm256_storeu_pd(x + i, r0);
    _mm256_storeu_pd(x + i + 4, r1);
  }
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, _mm256_mul_pd(a, _mm256_loadu_pd(x + i)));
  const __m128d a1 = _mm_set_sd(alpha);
  for (; i < n; ++i) _mm_store_sd(x + i, _mm_mul_sd(a1, _mm_load_sd(x + i)));
}

std::size_t two_products_nearest256(const double* u, const double* v, double b0, double b1, double* c,
                                    std::size_t m, unsigned char* left) {
  return two_products_nearest_kernel<v256>(u, v, b0, b1, c, m, left);
}

std::size_t axpby_nearest256(const double* hi, const double* lo, const double* err, double alpha, double beta,
                             const double* y, double* out, std::size_t r, unsigned char* left) {
  return axpby_nearest_kernel<v256>(hi, lo, err, alpha, beta, y, out, r, left);
}

std::size_t rank1_nearest256(const double* uh, const double* ul, double b, double* c, std::size_t m,
                             unsigned char* left) {
  return rank1_nearest_kernel<v256>(uh, ul, b, c, m, left);
}

bool dot_bounded256(const double* x, const double* y, std::size_t n, bounded& b) {
  return dot_bounded_kernel<v256>(x, y, n, b);
}
bool sum_bounded256(const double* x, std::size_t n, bool absolute, bounded& b) {
  return absolute ? dot_bounded_kernel<v256, 2>(x, nullptr, n, b) : dot_bounded_kernel<v256, 1>(x, nullptr, n, b);
}

std::size_t rows_solve256(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* w,
                        const double* extra, double d, double* x, unsigned char* left) {
  return rows_solve_kernel<v256>(a, ld, r, n, w, extra, d, x, left);
}

void rows_bounded256(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* x,
                    bounded* out) {
  rows_bounded_kernel<v256>(a, ld, r, n, x, out);
}

constexpr blas1_kernels table{sum256, asum256, dot256, axpy256, scal256, dot_bounded256,
                              rows_bounded256, 16, strided_bounded_kernel, sum_bounded256,
                              rank1_nearest256, two_products_nearest256, axpby_nearest256,
                              rows_solve256};

}  // namespace

const blas1_kernels blas1_avx2 = table;

}  // namespace exala::detail
