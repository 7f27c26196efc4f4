// The AVX2 kernel set. Built with -mavx2 -mfma only; chosen at run time from
// cpuid when AVX-512 is absent (or forced with EXALA_SIMD=avx2).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "exala/arith_simd.hpp"
#include "blas1_kernels.hpp"

namespace exala::detail {
namespace {

#include "avx2/simd_traits.hpp"
#include "blas1_simd_impl.hpp"

void sum256(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v256, false>(acc, x, n); }
void asum256(superaccumulator& acc, const double* x, std::size_t n) { sum_kernel<v256, true>(acc, x, n); }
void dot256(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  dot_kernel<v256>(acc, x, y, n);
}

// Element-wise kernels: vfmadd (one rounding) and vmulpd; the tail uses the
// scalar intrinsics (vfmadd231sd), never std::fma, so no inline function is
// shared with baseline code.
void axpy256(double alpha, const double* x, double* y, std::size_t n) {
  const __m256d a = _mm256_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256d r0 = _mm256_fmadd_pd(a, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i));
    const __m256d r1 = _mm256_fmadd_pd(a, _mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4));
    _mm256_storeu_pd(y + i, r0);
    _mm256_storeu_pd(y + i + 4, r1);
  }
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(y + i, _mm256_fmadd_pd(a, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
  const __m128d a1 = _mm_set_sd(alpha);
  for (; i < n; ++i) _mm_store_sd(y + i, _mm_fmadd_sd(a1, _mm_load_sd(x + i), _mm_load_sd(y + i)));
}

void scal256(double alpha, double* x, std::size_t n) {
  const __m256d a = _mm256_set1_pd(alpha);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256d r0 = _mm256_mul_pd(a, _mm256_loadu_pd(x + i));
    const __m256d r1 = _mm256_mul_pd(a, _mm256_loadu_pd(x + i + 4));
    _mm256_storeu_pd(x + i, r0);
    _mm256_storeu_pd(x + i + 4, r1);
  }
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, _mm256_mul_pd(a, _mm256_loadu_pd(x + i)));
  const __m128d a1 = _mm_set_sd(alpha);
  for (; i < n; ++i) _mm_store_sd(x + i, _mm_mul_sd(a1, _mm_load_sd(x + i)));
}

std::size_t two_products_nearest256(const double* u, const double* v, double b0, double b1, double* c,
                                    std::size_t m, unsigned char* left) {
  return two_products_nearest_kernel<v256>(u, v, b0, b1, c, m, left);
}

std::size_t axpby_nearest256(const double* hi, const double* lo, const double* err, double alpha, double beta,
                             const double* y, double* out, std::size_t r, unsigned char* left) {
  return axpby_nearest_kernel<v256>(hi, lo, err, alpha, beta, y, out, r, left);
}

std::size_t rank1_nearest256(const double* uh, const double* ul, double b, double* c, std::size_t m,
                             unsigned char* left) {
  return rank1_nearest_kernel<v256>(uh, ul, b, c, m, left);
}

bool dot_bounded256(const double* x, const double* y, std::size_t n, bounded& b) {
  return dot_bounded_kernel<v256>(x, y, n, b);
}
bool sum_bounded256(const double* x, std::size_t n, bool absolute, bounded& b) {
  return absolute ? dot_bounded_kernel<v256, 2>(x, nullptr, n, b) : dot_bounded_kernel<v256, 1>(x, nullptr, n, b);
}

std::size_t rows_solve256(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* w,
                        const double* extra, double d, double* x, unsigned char* left) {
  return rows_solve_kernel<v256>(a, ld, r, n, w, extra, d, x, left);
}

void rows_bounded256(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* x,
                    bounded* out) {
  rows_bounded_kernel<v256>(a, ld, r, n, x, out);
}

constexpr blas1_kernels table{sum256, asum256, dot256, axpy256, scal256, dot_bounded256,
                              rows_bounded256, 16, strided_bounded_kernel, sum_bounded256,
                              rank1_nearest256, two_products_nearest256, axpby_nearest256,
                              rows_solve256};

}  // namespace

const blas1_kernels blas1_avx2 = table;

}  // namespace exala::detail
