// The avx512 kernel set, gemm part (compiled with -mavx512f -mfma; used only
// when the avx512 set is active: cpuid reports AVX-512F and DQ).
//
// Micro-kernel: a 24 x 8 block of C in 24 zmm accumulators (three vectors of
// 8 rows per column), one broadcast of B per column and step, the usual
// register-blocked DGEMM (Goto & van de Geijn, "Anatomy of high-performance
// matrix multiplication", ACM TOMS 2008). Every operation is an exact
// integer operation (bounds in gemm_kernels.hpp), so the FMAs neither round
// nor depend on the order; the residue reduction uses VRNDSCALEPD with an
// explicit round-to-nearest and an exact FNMADD.
#include <immintrin.h>

#include <cstdint>

#include "gemm_finish_avx2.hpp"
#include "gemm_kernels.hpp"

namespace exala::detail::gemm3 {

namespace {

constexpr int mr = 24;
constexpr int nr = 8;

inline __m512d reduce(__m512d v, __m512d m, __m512d minv) noexcept {
  // (the zero-masking form: same instruction, without GCC 12's false
  // -Wuninitialized on _mm512_undefined_pd in the unmasked one)
  const __m512d q = _mm512_maskz_roundscale_pd(static_cast<__mmask8>(0xff), _mm512_mul_pd(v, minv),
                                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_fnmadd_pd(q, m, v);  // v - q m, exact (an integer below 2^24)
}

// Residues of 8 (masked) elements at lo + idx (and hi + idx).
inline __m512d residue8(const double* hi, const double* lo, std::int64_t idx, __mmask8 k,
                        __m512d m, __m512d minv, __m512d p44) noexcept {
  const __m512d vlo = _mm512_maskz_loadu_pd(k, lo + idx);
  if (hi == nullptr) return reduce(vlo, m, minv);
  const __m512d vhi = reduce(_mm512_maskz_loadu_pd(k, hi + idx), m, minv);
  // reduce(hi) * p44 + lo is an exact integer below 2^48: the FMA is exact.
  return reduce(_mm512_fmadd_pd(vhi, p44, vlo), m, minv);
}

inline __mmask8 mask_upto(std::int64_t count) noexcept {
  return count >= 8 ? static_cast<__mmask8>(0xff)
                    : static_cast<__mmask8>((1u << (count > 0 ? count : 0)) - 1u);
}

void pack_a(const double* hi, const double* lo, std::int64_t ld, std::int64_t mc, std::int64_t kc,
            const modulus& md, double* dst) {
  const __m512d m = _mm512_set1_pd(md.m), minv = _mm512_set1_pd(md.minv),
                p44 = _mm512_set1_pd(md.p44);
  for (std::int64_t p = 0; p * mr < mc; ++p) {
    double* d = dst + p * mr * kc;
    const std::int64_t i0 = p * mr;
    const __mmask8 k0 = mask_upto(mc - i0), k1 = mask_upto(mc - i0 - 8),
                   k2 = mask_upto(mc - i0 - 16);
    for (std::int64_t l = 0; l < kc; ++l) {
      const std::int64_t base = i0 + l * ld;
      _mm512_storeu_pd(d + l * mr, residue8(hi, lo, base, k0, m, minv, p44));
      _mm512_storeu_pd(d + l * mr + 8, residue8(hi, lo, base + 8, k1, m, minv, p44));
      _mm512_storeu_pd(d + l * mr + 16, residue8(hi, lo, base + 16, k2, m, minv, p44));
    }
  }
}

void pack_b(const double* hi, const double* lo, std::int64_t ld, std::int64_t kc, std::int64_t nc,
            const modulus& md, double* dst) {
  const __m512d m = _mm512_set1_pd(md.m), minv = _mm512_set1_pd(md.minv),
                p44 = _mm512_set1_pd(md.p44);
  for (std::int64_t q = 0; q * nr < nc; ++q) {
    double* d = dst + q * nr * kc;
    const __mmask8 k = mask_upto(nc - q * nr);
    for (std::int64_t l = 0; l < kc; ++l)
      _mm512_storeu_pd(d + l * nr, residue8(hi, lo, l * ld + q * nr, k, m, minv, p44));
  }
}

void kernel(std::int64_t kc, const double* ap, const double* bp, double* c, std::int64_t ldc,
            bool first, const modulus& md) {
  __m512d acc[nr][3];
#pragma GCC unroll 8
  for (int j = 0; j < nr; ++j) acc[j][0] = acc[j][1] = acc[j][2] = _mm512_setzero_pd();
  for (std::int64_t l = 0; l < kc; ++l) {
    const __m512d a0 = _mm512_loadu_pd(ap + l * mr);
    const __m512d a1 = _mm512_loadu_pd(ap + l * mr + 8);
    const __m512d a2 = _mm512_loadu_pd(ap + l * mr + 16);
#pragma GCC unroll 8
    for (int j = 0; j < nr; ++j) {
      const __m512d b = _mm512_set1_pd(bp[l * nr + j]);
      acc[j][0] = _mm512_fmadd_pd(a0, b, acc[j][0]);
      acc[j][1] = _mm512_fmadd_pd(a1, b, acc[j][1]);
      acc[j][2] = _mm512_fmadd_pd(a2, b, acc[j][2]);
    }
  }
  const __m512d m = _mm512_set1_pd(md.m), minv = _mm512_set1_pd(md.minv);
#pragma GCC unroll 8
  for (int j = 0; j < nr; ++j) {
#pragma GCC unroll 3
    for (int v = 0; v < 3; ++v) {
      double* cp = c + j * ldc + 8 * v;
      __m512d x = acc[j][v];
      if (!first) x = _mm512_add_pd(x, _mm512_loadu_pd(cp));  // exact: below 2^53
      _mm512_storeu_pd(cp, reduce(x, m, minv));
    }
  }
}

void garner(const double* c, std::int64_t plane, std::int64_t count, int nmod, const garner_consts& g,
            double* v) {
  for (std::int64_t e = 0; e < count; e += 8) {
    const __mmask8 k = mask_upto(count - e);
    __m512d d[max_moduli];
    for (int t = 0; t < nmod; ++t) {
      const __m512d m = _mm512_set1_pd(g.md[t].m), minv = _mm512_set1_pd(g.md[t].minv);
      __m512d x = _mm512_maskz_loadu_pd(k, c + t * plane + e);
      for (int s = 0; s < t; ++s)
        x = reduce(_mm512_mul_pd(_mm512_sub_pd(x, d[s]), _mm512_set1_pd(g.inv[s][t])), m, minv);
      d[t] = x;
      _mm512_mask_storeu_pd(v + t * count + e, k, x);
    }
  }
}

constexpr gemm_kernels table = {mr, nr, pack_a, pack_b, kernel, garner, finish_nearest_avx2, split_unrounded_avx2};

}  // namespace

const gemm_kernels gemm_avx512 = table;

}  // namespace exala::detail::gemm3
