// exala/arith_simd.hpp - error-free transformations on SIMD lanes.
//
// The same guarantees as exala/arith.hpp, lane by lane: for every lane,
// s + e = a + b exactly (two_sum, and fast_two_sum when |a| >= |b|) and
// p + e = a * b exactly (two_prod, under the conditions of two_prod_is_exact).
//
// Each ISA has its own namespace, defined only when the translation unit is
// compiled for that ISA (exala::simd::avx512 needs -mavx512f, exala::simd::avx2
// needs -mavx2 -mfma). A kernel set's translation unit therefore sees exactly
// the lane functions of its own ISA, and no inline function exists in two
// versions built with different -m flags (which the linker could merge).
#pragma once

#include <immintrin.h>

#if defined(__FAST_MATH__)
#error "ExaLA must not be compiled with -ffast-math: it breaks error-free transformations"
#endif

#if defined(__AVX512F__)
namespace exala::simd::avx512 {

using reg = __m512d;
constexpr int width = 8;

// TwoSum (Knuth): s = fl(a+b), e = (a+b) - s, 6 flops per lane.
[[gnu::always_inline]] inline void two_sum(reg a, reg b, reg& s, reg& e) {
  s = _mm512_add_pd(a, b);
  const reg bp = _mm512_sub_pd(s, a);
  const reg ap = _mm512_sub_pd(s, bp);
  e = _mm512_add_pd(_mm512_sub_pd(a, ap), _mm512_sub_pd(b, bp));
}

// FastTwoSum (Dekker): exact when |a| >= |b| lane-wise, 3 flops.
[[gnu::always_inline]] inline void fast_two_sum(reg a, reg b, reg& s, reg& e) {
  s = _mm512_add_pd(a, b);
  e = _mm512_sub_pd(b, _mm512_sub_pd(s, a));
}

// TwoProd with FMA: p = fl(a*b), e = a*b - p, 2 flops.
[[gnu::always_inline]] inline void two_prod(reg a, reg b, reg& p, reg& e) {
  p = _mm512_mul_pd(a, b);
  e = _mm512_fmsub_pd(a, b, p);
}

}  // namespace exala::simd::avx512
#elif defined(__AVX2__) && defined(__FMA__)
namespace exala::simd::avx2 {

using reg = __m256d;
constexpr int width = 4;

[[gnu::always_inline]] inline void two_sum(reg a, reg b, reg& s, reg& e) {
  s = _mm256_add_pd(a, b);
  const reg bp = _mm256_sub_pd(s, a);
  const reg ap = _mm256_sub_pd(s, bp);
  e = _mm256_add_pd(_mm256_sub_pd(a, ap), _mm256_sub_pd(b, bp));
}

[[gnu::always_inline]] inline void fast_two_sum(reg a, reg b, reg& s, reg& e) {
  s = _mm256_add_pd(a, b);
  e = _mm256_sub_pd(b, _mm256_sub_pd(s, a));
}

[[gnu::always_inline]] inline void two_prod(reg a, reg b, reg& p, reg& e) {
  p = _mm256_mul_pd(a, b);
  e = _mm256_fmsub_pd(a, b, p);
}

}  // namespace exala::simd::avx2
#endif
