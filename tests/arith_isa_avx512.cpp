// Built with -mavx512f -mavx512dq -mfma: the AVX-512 lane EFTs. See arith_isa.hpp.
#include <cstddef>

#include "arith_isa.hpp"

#if __has_include("exala/arith_simd.hpp") && defined(__AVX512F__)
#include "exala/arith_simd.hpp"
#define EXALA_TEST_LANES 1
#endif

namespace exala_test::isa {

bool lanes_avx512(const double* a, const double* b, std::size_t n, double* out) {
#ifdef EXALA_TEST_LANES
  namespace v = exala::simd::avx512;
  static_assert(v::width == 8);
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    const v::reg va = _mm512_loadu_pd(a + i), vb = _mm512_loadu_pd(b + i);
    v::reg r[8];
    v::two_sum(va, vb, r[0], r[1]);
    v::fast_two_sum(va, vb, r[2], r[3]);
    v::two_prod(va, vb, r[4], r[5]);
    v::fast_two_sum_fma(va, vb, r[6], r[7]);
    alignas(64) double t[8][8];
    for (int k = 0; k < 8; ++k) _mm512_store_pd(t[k], r[k]);
    for (int l = 0; l < 8; ++l)
      for (int k = 0; k < 8; ++k) out[lane_outputs * (i + l) + k] = t[k][l];
  }
  return true;
#else
  (void)a, (void)b, (void)n, (void)out;
  return false;
#endif
}

}  // namespace exala_test::isa
