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

// FastTwoSum with its two subtractions issued as FMAs (s*1 - a, -(z*1) + b):
// a product by 1 is exact, so each FMA rounds exactly like the subtraction
// and the results are bit-identical to fast_two_sum. Cores whose adders and
// FMA units are separate pipes can then run more of them at once.
[[gnu::always_inline]] inline void fast_two_sum_fma(reg a, reg b, reg& s, reg& e) {
  const reg one = _mm512_set1_pd(1.0);
  s = _mm512_add_pd(a, b);
  e = _mm512_fnmadd_pd(_mm512_fmsub_pd(s, one, a), one, b);
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

[[gnu::always_inline]] inline void fast_two_sum_fma(reg a, reg b, reg& s, reg& e) {
  const reg one = _mm256_set1_pd(1.0);
  s = _mm256_add_pd(a, b);
  e = _mm256_fnmadd_pd(_mm256_fmsub_pd(s, one, a), one, b);
}

}  // namespace exala::simd::avx2
#endif
