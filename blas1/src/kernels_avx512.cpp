// The AVX-512 kernel set (the many-core "Phi-class" path). Built with
// -mavx512f -mavx512dq -mfma only; chosen at run time from cpuid.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels.hpp"

namespace exala::detail {
namespace {

struct v512 {
  using reg = __m512d;
  using mask = __mmask8;
  static constexpr int width = 8;
  static reg zero() { return _mm512_setzero_pd(); }
  static reg set1(double v) { return _mm512_set1_pd(v); }
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, reg v) { _mm512_storeu_pd(p, v); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
  static reg fmsub(reg a, reg b, reg c) { return _mm512_fmsub_pd(a, b, c); }
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
  static mask ne(reg a, reg b) { return _mm512_cmp_pd_mask(a, b, _CMP_NEQ_UQ); }
  static mask mask_none() { return 0; }
  static mask mask_or(mask a, mask b) { return static_cast<mask>(a | b); }
  static mask mask_and(mask a, mask b) { return static_cast<mask>(a & b); }
  static bool mask_any(mask a) { return a != 0; }
};

#include "simd_kernels_impl.hpp"

void sum512(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v512, false>(acc, x, n); }
void asum512(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v512, true>(acc, x, n); }
void dot512(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  dot_kernel<v512>(acc, x, y, n);
}

const kernel_table table{"avx512", sum512, asum512, dot512};

}  // namespace

const kernel_table* kernels_avx512() noexcept { return &table; }

}  // namespace exala::detail
