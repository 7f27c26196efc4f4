// The AVX2 kernel set. Built with -mavx2 -mfma only; chosen at run time from
// cpuid when AVX-512 is absent (or forced with EXALA_SIMD=avx2).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels.hpp"

namespace exala::detail {
namespace {

struct v256 {
  using reg = __m256d;
  using mask = __m256d;  // all-ones / all-zeros lanes
  static constexpr int width = 4;
  static reg zero() { return _mm256_setzero_pd(); }
  static reg set1(double v) { return _mm256_set1_pd(v); }
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, reg v) { _mm256_storeu_pd(p, v); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg fmsub(reg a, reg b, reg c) { return _mm256_fmsub_pd(a, b, c); }
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
  static mask ne(reg a, reg b) { return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ); }
  static mask mask_none() { return _mm256_setzero_pd(); }
  static mask mask_or(mask a, mask b) { return _mm256_or_pd(a, b); }
  static mask mask_and(mask a, mask b) { return _mm256_and_pd(a, b); }
  static bool mask_any(mask a) { return _mm256_movemask_pd(a) != 0; }
};

#include "simd_kernels_impl.hpp"

void sum256(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v256, false>(acc, x, n); }
void asum256(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v256, true>(acc, x, n); }
void dot256(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  dot_kernel<v256>(acc, x, y, n);
}

const kernel_table table{"avx2", sum256, asum256, dot256};

}  // namespace

const kernel_table* kernels_avx2() noexcept { return &table; }

}  // namespace exala::detail
