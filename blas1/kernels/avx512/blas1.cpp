// The AVX-512 kernel set (the many-core "Phi-class" path). Built with
// -mavx512f -mavx512dq -mfma only; chosen at run time from cpuid.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "exala/arith_simd.hpp"
#include "blas1_kernels.hpp"

namespace exala::detail {
namespace {

#include "avx512/simd_traits.hpp"
#include "blas1_simd_impl.hpp"

void sum512(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v512, false>(acc, x, n); }
void asum512(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v512, true>(acc, x, n); }
void dot512(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  dot_kernel<v512>(acc, x, y, n);
}

// Element-wise kernels: vfmadd (one rounding) and vmulpd; the tail uses
// masked loads and stores, which never touch the lanes masked out.
void axpy512(double alpha, const double* x, double* y, std::size_t n) {
  const __m512d a = _mm512_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512d r0 = _mm512_fmadd_pd(a, _mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i));
    const __m512d r1 = _mm512_fmadd_pd(a, _mm512_loadu_pd(x + i + 8), _mm512_loadu_pd(y + i + 8));
    _mm512_storeu_pd(y + i, r0);
    _mm512_storeu_pd(y + i + 8, r1);
  }
  for (; i < n; i += 8) {
    const std::size_t left = n - i;
    const __mmask8 m = left >= 8 ? static_cast<__mmask8>(0xff)
                                 : static_cast<__mmask8>((1u << left) - 1u);
    const __m512d r =
        _mm512_fmadd_pd(a, _mm512_maskz_loadu_pd(m, x + i), _mm512_maskz_loadu_pd(m, y + i));
    _mm512_mask_storeu_pd(y + i, m, r);
  }
}

void scal512(double alpha, double* x, std::size_t n) {
  const __m512d a = _mm512_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512d r0 = _mm512_mul_pd(a, _mm512_loadu_pd(x + i));
    const __m512d r1 = _mm512_mul_pd(a, _mm512_loadu_pd(x + i + 8));
    _mm512_storeu_pd(x + i, r0);
    _mm512_storeu_pd(x + i + 8, r1);
  }
  for (; i < n; i += 8) {
    const std::size_t left = n - i;
    const __mmask8 m = left >= 8 ? static_cast<__mmask8>(0xff)
                                 : static_cast<__mmask8>((1u << left) - 1u);
    _mm512_mask_storeu_pd(x + i, m, _mm512_mul_pd(a, _mm512_maskz_loadu_pd(m, x + i)));
  }
}

std::size_t two_products_nearest512(const double* u, const double* v, double b0, double b1, double* c,
                                    std::size_t m, unsigned char* left) {
  return two_products_nearest_kernel<v512>(u, v, b0, b1, c, m, left);
}

std::size_t axpby_nearest512(const double* hi, const double* lo, const double* err, double alpha, double beta,
                             const double* y, double* out, std::size_t r, unsigned char* left) {
  return axpby_nearest_kernel<v512>(hi, lo, err, alpha, beta, y, out, r, left);
}

std::size_t rank1_nearest512(const double* uh, const double* ul, double b, double* c, std::size_t m,
                             unsigned char* left) {
  return rank1_nearest_kernel<v512>(uh, ul, b, c, m, left);
}

bool dot_bounded512(const double* x, const double* y, std::size_t n, bounded& b) {
  return dot_bounded_kernel<v512>(x, y, n, b);
}
bool sum_bounded512(const double* x, std::size_t n, bool absolute, bounded& b) {
  return absolute ? dot_bounded_kernel<v512, 2>(x, nullptr, n, b) : dot_bounded_kernel<v512, 1>(x, nullptr, n, b);
}

std::size_t rows_solve512(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* w,
                        const double* extra, double d, double* x, unsigned char* left) {
  return rows_solve_kernel<v512>(a, ld, r, n, w, extra, d, x, left);
}

void rows_bounded512(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* x,
                    bounded* out) {
  rows_bounded_kernel<v512>(a, ld, r, n, x, out);
}

constexpr blas1_kernels table{sum512, asum512, dot512, axpy512, scal512, dot_bounded512,
                              rows_bounded512, 16, strided_bounded_kernel, sum_bounded512,
                              rank1_nearest512, two_products_nearest512, axpby_nearest512,
                              rows_solve512};

}  // namespace

const blas1_kernels blas1_avx512 = table;

}  // namespace exala::detail
