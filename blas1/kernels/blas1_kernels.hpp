// Internal: the blas1 part of a kernel set (kernel_set.hpp): the
// contiguous-range kernels of the reductions and element-wise routines.
//
// The reduction kernels add the terms of a contiguous range exactly into `acc`, a
// fresh accumulator owned by the caller. Kernels may leave the term flags
// (has_term, zero signs) incomplete for ranges they handled on their fast
// path; the driver completes them (finish_term_flags). The kernels touch
// superaccumulator only through its out-of-line members and keep every helper
// in an anonymous namespace, so no code built for a wider ISA can leak into
// the rest of the program through inline-function merging.
#pragma once

#include <cstddef>
#include <cstdint>

#include "exala/detail/round_bounded.hpp"
#include "exala/superaccumulator.hpp"

namespace exala::detail {

struct blas1_kernels {
  void (*sum)(superaccumulator& acc, const double* x, std::size_t n);
  void (*asum)(superaccumulator& acc, const double* x, std::size_t n);
  void (*dot)(superaccumulator& acc, const double* x, const double* y, std::size_t n);
  // Element-wise kernels over contiguous ranges (x and y either identical or
  // disjoint): y[i] = fma(alpha, x[i], y[i]) with one rounding, and
  // x[i] = alpha * x[i]; both to nearest, bit-identical in every set.
  void (*axpy)(double alpha, const double* x, double* y, std::size_t n);
  void (*scal)(double alpha, double* x, std::size_t n);
  // The fast path of short dots (nullptr where a set has none): Dot2 of
  // Ogita, Rump and Oishi in SIMD lanes, with a proven bound. Returns false
  // (a value or a partial sum not finite, or n above dot_bounded_max), else
  // sets b with |sum x_i y_i - (b.hi + b.lo)| <= b.err and b.hi = fl(b.hi + b.lo),
  // for exala::detail::round_bounded to decide the rounding.
  bool (*dot_bounded)(const double* x, const double* y, std::size_t n, bounded& b);
  // The same for r <= rows_bounded_block rows at once, one row per SIMD
  // lane, row k's element j at a[k + j * ld] (gemv on rows that are not
  // contiguous): out[k] bounds sum_j a[k + j ld] x[j]; a row the kernel
  // cannot bound gets a NaN err. nullptr / 0 where a set has none.
  void (*rows_bounded)(const double* a, std::int64_t ld, std::size_t r, std::size_t n,
                       const double* x, bounded* out);
  std::size_t rows_bounded_block;
  // One strided row in a scalar lane: bounds
  // sum_j a[j * inc] x[j] + sum_k terms[k] + alpha * b, or false.
  bool (*strided_bounded)(const double* a, std::int64_t inc, const double* x, std::size_t n,
                          const double* terms, std::size_t nterms, double alpha, double b, bounded& out);
  // dot_bounded's sum of x_i (absolute: of |x_i|), or false.
  bool (*sum_bounded)(const double* x, std::size_t n, bool absolute, bounded& out);
  // One column of a rank-1 update to nearest (blas1_simd_impl.hpp,
  // rank1_nearest_kernel): c[i] = round(c[i] + (uh[i] + ul[i]) b) where the
  // bound decides, left[i] = 1 where it does not; returns how many are left.
  // nullptr where a set has none.
  std::size_t (*rank1_nearest)(const double* uh, const double* ul, double b, double* c, std::size_t m,
                               unsigned char* left);
  // c[i] = round(u[i] b0 + v[i] b1) to nearest where the bound decides
  // (two_products_nearest_kernel), left[i] = 1 elsewhere; returns how many
  // are left. nullptr where a set has none.
  std::size_t (*two_products_nearest)(const double* u, const double* v, double b0, double b1, double* c,
                                      std::size_t m, unsigned char* left);
  // out[i] = round(alpha S_i + beta y[i]) to nearest for bounded S_i given
  // as hi, lo, err arrays (axpby_nearest_kernel), left[i] = 1 where the
  // bound does not decide; returns how many are left. nullptr where none.
  std::size_t (*axpby_nearest)(const double* hi, const double* lo, const double* err, double alpha, double beta,
                               const double* y, double* out, std::size_t r, unsigned char* left);
  // Triangular-solve rows in rows_bounded's lanes (rows_solve_lanes):
  // x[k] = round(N_k / d) to nearest, N_k within extra[k] of sum_j
  // a[k + j ld] w[j], where the bound decides; left[k] = 1 elsewhere;
  // returns how many are left. nullptr where a set has none.
  std::size_t (*rows_solve_nearest)(const double* a, std::int64_t ld, std::size_t r, std::size_t n,
                                    const double* w, const double* extra, double d, double* x,
                                    unsigned char* left);
};

// Longest dot the bounded kernels take (their bound is stated for n <= 2^24).
inline constexpr std::size_t dot_bounded_max = std::size_t{1} << 24;

// The sets (generic/blas1.cpp, avx2/blas1.cpp, avx512/blas1.cpp).
extern const blas1_kernels blas1_generic;
extern const blas1_kernels blas1_avx2;
extern const blas1_kernels blas1_avx512;

}  // namespace exala::detail
