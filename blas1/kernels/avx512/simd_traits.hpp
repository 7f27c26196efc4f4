// Internal (kernel set avx512): the vector-traits class v512 of the AVX-512
// kernel set, one __m512d register and its operations as static functions
// over intrinsics. Shared by the set's blas1 kernels (blas1_simd_impl.hpp)
// and trsv kernels (trsv_impl.hpp).
//
// This file must be included inside an anonymous namespace (internal
// linkage: the linker must never pick this ISA's copy of an inline function
// for another set's code). The including file includes <immintrin.h>,
// <cstdint> and "exala/arith_simd.hpp" first, and is compiled with
// -mavx512f -mavx512dq -mfma.

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
  static reg fmsub(reg a, reg b, reg c) { return _mm512_fmsub_pd(a, b, c); }  // a b - c, one rounding
  static reg fnmadd(reg a, reg b, reg c) { return _mm512_fnmadd_pd(a, b, c); }  // c - a b, one rounding
  static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }  // a b + c, one rounding
  static reg neg(reg a) {  // sign flipped, -0 kept
    return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(a),
                                                _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ULL))));
  }
  // Lanes p[0], p[-1], ..., p[-7] (reads p[-7] .. p[0]).
  static reg load_rev(const double* p) {
    return _mm512_permutexvar_pd(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_loadu_pd(p - 7));
  }
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
