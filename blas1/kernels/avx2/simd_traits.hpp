// Internal (kernel set avx2): the vector-traits class v256 of the AVX2
// kernel set, one __m256d register and its operations as static functions
// over intrinsics. Shared by the set's blas1 kernels (blas1_simd_impl.hpp,
// which use it directly) and trsv kernels (trsv_impl.hpp, two v256 registers
// per 8-lane vector).
//
// This file must be included inside an anonymous namespace (internal
// linkage: the linker must never pick this ISA's copy of an inline function
// for another set's code). The including file includes <immintrin.h>,
// <cstdint> and "exala/arith_simd.hpp" first, and is compiled with
// -mavx2 -mfma.

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
  static reg fmsub(reg a, reg b, reg c) { return _mm256_fmsub_pd(a, b, c); }  // a b - c, one rounding
  static reg fnmadd(reg a, reg b, reg c) { return _mm256_fnmadd_pd(a, b, c); }  // c - a b, one rounding
  static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }  // a b + c, one rounding
  static reg neg(reg a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }  // sign flipped, -0 kept
  // Lanes p[0], p[-1], p[-2], p[-3] (reads p[-3] .. p[0]).
  static reg load_rev(const double* p) { return _mm256_permute4x64_pd(_mm256_loadu_pd(p - 3), 0x1b); }
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
