// Built with -mavx2 -mfma: the scalar EFTs where the compiler may emit FMA,
// and the AVX2 lane EFTs. See arith_isa.hpp.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <bit>
#include <limits>

#include "arith_isa.hpp"

// A private copy of the scalar header: renaming the namespace gives its inline
// functions other symbols, so they cannot be merged with baseline copies.
#define exala exala_test_avx2_copy
#include "exala/arith.hpp"
#undef exala

#if __has_include("exala/arith_simd.hpp") && defined(__AVX2__) && defined(__FMA__)
#include "exala/arith_simd.hpp"
#define EXALA_TEST_LANES 1
#endif

namespace exala_test::isa {

bool fma_scalar_eft(const double* a, const double* b, std::size_t n, double* out) {
  namespace e = exala_test_avx2_copy;
  for (std::size_t i = 0; i < n; ++i) {
    const e::eft_pair r[5] = {e::two_sum(a[i], b[i]), e::fast_two_sum(a[i], b[i]),
                              e::two_prod(a[i], b[i]), e::two_product_dekker(a[i], b[i]),
                              e::split(a[i])};
    for (int k = 0; k < 5; ++k) {
      out[scalar_outputs * i + 2 * k] = r[k].hi;
      out[scalar_outputs * i + 2 * k + 1] = r[k].lo;
    }
  }
  return true;
}

double fma_unit_mul_add(double a, double b, double c) { return a * b + c; }

bool lanes_avx2(const double* a, const double* b, std::size_t n, double* out) {
#ifdef EXALA_TEST_LANES
  namespace v = exala::simd::avx2;
  static_assert(v::width == 4);
  for (std::size_t i = 0; i + 4 <= n; i += 4) {
    const v::reg va = _mm256_loadu_pd(a + i), vb = _mm256_loadu_pd(b + i);
    v::reg r[8];
    v::two_sum(va, vb, r[0], r[1]);
    v::fast_two_sum(va, vb, r[2], r[3]);
    v::two_prod(va, vb, r[4], r[5]);
    v::fast_two_sum_fma(va, vb, r[6], r[7]);
    alignas(32) double t[8][4];
    for (int k = 0; k < 8; ++k) _mm256_store_pd(t[k], r[k]);
    for (int l = 0; l < 4; ++l)
      for (int k = 0; k < 8; ++k) out[lane_outputs * (i + l) + k] = t[k][l];
  }
  return true;
#else
  (void)a, (void)b, (void)n, (void)out;
  return false;
#endif
}

}  // namespace exala_test::isa
