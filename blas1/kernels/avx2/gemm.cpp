// The avx2 kernel set, gemm part (compiled with -mavx2 -mfma; used when the
// avx2 set is active). Same scheme as the AVX-512 set with
// an 8 x 6 micro-tile (12 ymm accumulators). Every operation is an exact
// integer operation (bounds in gemm_kernels.hpp); the reduction rounds with
// an explicit round-to-nearest (VROUNDPD) and subtracts with an exact FNMADD.
#include <immintrin.h>

#include <cstdint>

#include "gemm_finish_avx2.hpp"
#include "gemm_kernels.hpp"

namespace exala::detail::gemm3 {

namespace {

constexpr int mr = 8;
constexpr int nr = 6;

inline __m256d reduce(__m256d v, __m256d m, __m256d minv) noexcept {
  const __m256d q =
      _mm256_round_pd(_mm256_mul_pd(v, minv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm256_fnmadd_pd(q, m, v);
}

inline __m256i mask_upto(std::int64_t count) noexcept {
  const __m256i idx = _mm256_set_epi64x(3, 2, 1, 0);
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), idx);
}

inline __m256d residue4(const double* hi, const double* lo, std::int64_t idx, __m256i k,
                        __m256d m, __m256d minv, __m256d p44) noexcept {
  const __m256d vlo = _mm256_maskload_pd(lo + idx, k);
  if (hi == nullptr) return reduce(vlo, m, minv);
  const __m256d vhi = reduce(_mm256_maskload_pd(hi + idx, k), m, minv);
  return reduce(_mm256_fmadd_pd(vhi, p44, vlo), m, minv);  // exact, below 2^48
}

void pack_a(const double* hi, const double* lo, std::int64_t ld, std::int64_t mc, std::int64_t kc,
            const modulus& md, double* dst) {
  const __m256d m = _mm256_set1_pd(md.m), minv = _mm256_set1_pd(md.minv),
                p44 = _mm256_set1_pd(md.p44);
  for (std::int64_t p = 0; p * mr < mc; ++p) {
    double* d = dst + p * mr * kc;
    const std::int64_t i0 = p * mr;
    const __m256i k0 = mask_upto(mc - i0), k1 = mask_upto(mc - i0 - 4);
    for (std::int64_t l = 0; l < kc; ++l) {
      const std::int64_t base = i0 + l * ld;
      _mm256_storeu_pd(d + l * mr, residue4(hi, lo, base, k0, m, minv, p44));
      _mm256_storeu_pd(d + l * mr + 4, residue4(hi, lo, base + 4, k1, m, minv, p44));
    }
  }
}

void pack_b(const double* hi, const double* lo, std::int64_t ld, std::int64_t kc, std::int64_t nc,
            const modulus& md, double* dst) {
  const __m256d m = _mm256_set1_pd(md.m), minv = _mm256_set1_pd(md.minv),
                p44 = _mm256_set1_pd(md.p44);
  for (std::int64_t q = 0; q * nr < nc; ++q) {
    double* d = dst + q * nr * kc;
    const std::int64_t j0 = q * nr;
    const __m256i k0 = mask_upto(nc - j0), k1 = mask_upto(nc - j0 - 4);
    for (std::int64_t l = 0; l < kc; ++l) {
      const std::int64_t base = l * ld + j0;
      // columns 0..3, then 4..5 (the upper two lanes of the second vector
      // are masked off and never stored: nr = 6)
      _mm256_storeu_pd(d + l * nr, residue4(hi, lo, base, k0, m, minv, p44));
      const __m256d r2 = residue4(hi, lo, base + 4, _mm256_and_si256(k1, mask_upto(2)), m, minv, p44);
      _mm_storeu_pd(d + l * nr + 4, _mm256_castpd256_pd128(r2));
    }
  }
}

void kernel(std::int64_t kc, const double* ap, const double* bp, double* c, std::int64_t ldc,
            bool first, const modulus& md) {
  __m256d acc[nr][2];
#pragma GCC unroll 6
  for (int j = 0; j < nr; ++j) acc[j][0] = acc[j][1] = _mm256_setzero_pd();
  for (std::int64_t l = 0; l < kc; ++l) {
    const __m256d a0 = _mm256_loadu_pd(ap + l * mr);
    const __m256d a1 = _mm256_loadu_pd(ap + l * mr + 4);
#pragma GCC unroll 6
    for (int j = 0; j < nr; ++j) {
      const __m256d b = _mm256_broadcast_sd(bp + l * nr + j);
      acc[j][0] = _mm256_fmadd_pd(a0, b, acc[j][0]);
      acc[j][1] = _mm256_fmadd_pd(a1, b, acc[j][1]);
    }
  }
  const __m256d m = _mm256_set1_pd(md.m), minv = _mm256_set1_pd(md.minv);
#pragma GCC unroll 6
  for (int j = 0; j < nr; ++j) {
#pragma GCC unroll 2
    for (int v = 0; v < 2; ++v) {
      double* cp = c + j * ldc + 4 * v;
      __m256d x = acc[j][v];
      if (!first) x = _mm256_add_pd(x, _mm256_loadu_pd(cp));
      _mm256_storeu_pd(cp, reduce(x, m, minv));
    }
  }
}

void garner(const double* c, std::int64_t plane, std::int64_t count, int nmod, const garner_consts& g,
            double* v) {
  for (std::int64_t e = 0; e < count; e += 4) {
    const __m256i k = mask_upto(count - e);
    __m256d d[max_moduli];
    for (int t = 0; t < nmod; ++t) {
      const __m256d m = _mm256_set1_pd(g.md[t].m), minv = _mm256_set1_pd(g.md[t].minv);
      __m256d x = _mm256_maskload_pd(c + t * plane + e, k);
      for (int s = 0; s < t; ++s)
        x = reduce(_mm256_mul_pd(_mm256_sub_pd(x, d[s]), _mm256_set1_pd(g.inv[s][t])), m, minv);
      d[t] = x;
      _mm256_maskstore_pd(v + t * count + e, k, x);
    }
  }
}

constexpr gemm_kernels table = {mr, nr, pack_a, pack_b, kernel, garner, finish_nearest_avx2, split_unrounded_avx2};

}  // namespace

const gemm_kernels gemm_avx2 = table;

}  // namespace exala::detail::gemm3
