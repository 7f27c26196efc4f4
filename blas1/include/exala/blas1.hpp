// exala/blas1.hpp - exact, correctly rounded level-1 BLAS.
//
// sum(x) = round(x_0 + ... + x_{n-1}), asum(x) = round(|x_0| + ...), and
// dot(x, y) = round(x_0*y_0 + ...), each computed exactly (every product and
// every partial sum held without error) and rounded once, in exec.mode. The
// result is therefore the same bits on every backend, SIMD width, thread
// count and data order. Special values follow IEEE: any NaN (or inf*0 in a
// dot) gives NaN, +inf with -inf gives NaN, otherwise an infinity wins; an
// exact result beyond the double range rounds to +-inf (or +-DBL_MAX by
// direction); subnormal results are exact; an exact zero has IEEE's sign.
//
// Vectors are BLAS-style: n elements, pointer, increment. A negative
// increment walks the vector backwards from x + (n-1)*|incx| as in BLAS (for
// dot this decides which elements pair up); an increment of 0 repeats x[0].
// n < 0, or a null pointer with n > 0, throws exala::invalid_argument. So
// does an address that would overflow (exala/checked.hpp): an increment
// with (n-1)*|inc| above 2^60 - 2 elements (invalid_argument naming incx or
// incy, e.g. INT64_MIN or 2^62 with n >= 2), or n above 2^60 - 1 (naming
// n, even with increment 0). With n == 1 the increment is not used, and
// any value is accepted.
//
// The element-wise routines (axpy, scal, copy, swap) and iamax round each
// element at most once, so every backend gives the same bits trivially. For a
// vector they write, an increment of 0 with n > 1 throws invalid_argument
// (the result would depend on the order of the writes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "exala/backend.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/superaccumulator.hpp"

namespace exala {

// Correctly rounded sum of x_i (error <= 1/2 ulp in to_nearest_even, < 1 ulp
// in the directed modes); exact accumulation after Collange, Defour, Graillat,
// Iakymchuk (ParCo 2015) with anchored levels after Demmel and Nguyen (2013).
double sum(std::int64_t n, const double* x, std::int64_t incx, const exec& ex = {});
// Correctly rounded sum of |x_i|, same method and bound as sum().
double asum(std::int64_t n, const double* x, std::int64_t incx, const exec& ex = {});
// Correctly rounded sum of x_i * y_i, every product exact (TwoProd, or the
// exact integer product where TwoProd's error would underflow); same bound.
double dot(std::int64_t n, const double* x, std::int64_t incx, const double* y,
           std::int64_t incy, const exec& ex = {});

// Correctly rounded Euclidean norm sqrt(x_0^2 + ... + x_{n-1}^2): the sum of
// squares is exact (no scaling, so no spurious overflow or underflow) and its
// square root is rounded once in exec.mode; error <= 1/2 ulp to nearest.
// NaN in gives NaN; otherwise an infinite element gives +inf.
double nrm2(std::int64_t n, const double* x, std::int64_t incx, const exec& ex = {});

inline double sum(std::span<const double> x, const exec& ex = {}) {
  return sum(static_cast<std::int64_t>(x.size()), x.data(), 1, ex);
}
inline double asum(std::span<const double> x, const exec& ex = {}) {
  return asum(static_cast<std::int64_t>(x.size()), x.data(), 1, ex);
}
inline double nrm2(std::span<const double> x, const exec& ex = {}) {
  return nrm2(static_cast<std::int64_t>(x.size()), x.data(), 1, ex);
}
// Throws exala::invalid_argument if the sizes differ.
double dot(std::span<const double> x, std::span<const double> y, const exec& ex = {});

// The exact (unrounded) results, added into an accumulator: the building
// blocks of distributed and blocked algorithms. exec.mode is not used.
void sum_into(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx,
              const exec& ex = {});
void asum_into(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx,
               const exec& ex = {});
void dot_into(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx,
              const double* y, std::int64_t incy, const exec& ex = {});

namespace detail {
// exala::dot's argument checks (n, pointers, address spans; each error names
// the argument), shared with the device-pointer API exala::cuda::dot.
void check_dot_arguments(std::int64_t n, const double* x, std::int64_t incx, const double* y,
                         std::int64_t incy);
// The level-2/3 building block: adds the exact dot product of contiguous
// x[0, n) and y[0, n) into `acc` with the active SIMD kernel set, on the
// calling thread, without argument checks. Like the kernels, it may leave the
// term flags of `acc` incomplete (has_term and the zero signs): a caller that
// rounds an exactly zero result must set them itself.
void dot_contiguous(superaccumulator& acc, const double* x, const double* y, std::size_t n);

// The fast path of short dots: the correctly rounded sum_i x_i y_i of
// contiguous x[0, n) and y[0, n) in `mode`, decided from a double-double
// evaluation with a proven error bound (no accumulator, no allocation).
// Returns false, leaving out alone, when the bound cannot decide (the result
// is near a rounding boundary, zero, not finite, in or near the subnormal
// range, or above 2^1022), or when the active kernel set has no such path;
// the caller then uses the exact accumulator. A true result is the bits of
// the exact path (it is the unique correctly rounded value).
bool dot_decided(const double* x, const double* y, std::size_t n, rounding mode, double& out);

// The bounded evaluations behind such fast paths, for the level-2/3 front
// ends (exala/detail/round_bounded.hpp decides from them). dot_bounded:
// sum_i x_i y_i of contiguous x, y, or false. rows_bounded: for the
// r <= rows_bounded_block() rows whose element (k, j) is a[k + j * ld], out[k]
// bounds sum_j a[k + j ld] x[j] (a NaN err where it cannot). Both use the
// active kernel set; rows_bounded_block() is 0 where it has none.
bool dot_bounded(const double* x, const double* y, std::size_t n, bounded& out);
std::size_t rows_bounded_block();
void rows_bounded(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* x,
                  bounded* out);
// strided_bounded: sum_j a[j * inc] x[j] + sum_k terms[k] + alpha * b in one
// scalar lane (short sequential rows), or false (also without a SIMD set).
bool strided_bounded(const double* a, std::int64_t inc, const double* x, std::size_t n,
                     const double* terms, std::size_t nterms, double alpha, double b, bounded& out);
// rank1_nearest: one column of a rank-1 update to nearest, c[i] =
// round(c[i] + (uh[i] + ul[i]) b) with uh[i] + ul[i] = alpha x_i exactly
// (a NaN uh[i] for a row the caller could not split): writes the entries
// its bound decides and sets left[i] = 1 for the others (c[i] untouched),
// nleft to their number. False (nothing written) where the active set has
// no such kernel.
bool rank1_nearest(const double* uh, const double* ul, double b, double* c, std::size_t m,
                   unsigned char* left, std::size_t& nleft);
// two_products_nearest: c[i] = round(u[i] b0 + v[i] b1) to nearest for the
// entries its bound decides, left[i] = 1 (c[i] untouched) for the others,
// nleft their number; false (nothing written) without such a kernel.
bool two_products_nearest(const double* u, const double* v, double b0, double b1, double* c, std::size_t m,
                          unsigned char* left, std::size_t& nleft);
// axpby_nearest: out[i] = round(alpha S_i + beta y[i]) to nearest for the
// r values S_i bounded as hi, lo, err arrays (round_bounded_axpby's
// composition in SIMD lanes; beta == 0: y not read), left[i] = 1 where the
// bound does not decide, nleft their number; false without such a kernel.
bool axpby_nearest(const double* hi, const double* lo, const double* err, double alpha, double beta,
                   const double* y, double* out, std::size_t r, unsigned char* left, std::size_t& nleft);
// rows_solve_nearest: for the r <= rows_bounded_block() lanes of
// rows_bounded, x[k] = round(N_k / d) to nearest where N_k is within
// extra[k] of sum_j a[k + j ld] w[j] and the bound decides (d finite,
// nonzero); left[k] = 1 (x[k] untouched) for the others, nleft their
// number. False (nothing written) without such a kernel. (Blocked trsm.)
bool rows_solve_nearest(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* w,
                        const double* extra, double d, double* x, unsigned char* left, std::size_t& nleft);
}  // namespace detail

// ------------------------------------------------------------ element-wise

// y_i = fl(alpha * x_i + y_i) with ONE rounding to nearest (exactly
// std::fma(alpha, x_i, y_i), so correctly rounded, error <= 1/2 ulp). As in
// reference BLAS, n == 0 or alpha == 0 returns at once and leaves y untouched,
// even where x holds NaN or inf. exec.mode must be to_nearest_even (the
// directed modes apply to reductions only), else invalid_argument("mode").
// x may have increment 0; y may not when n > 1 (invalid_argument("incy")).
void axpy(std::int64_t n, double alpha, const double* x, std::int64_t incx, double* y,
          std::int64_t incy, const exec& ex = {});
// x_i = fl(alpha * x_i), correctly rounded to nearest. Plain multiplication
// even for alpha == 0 (as in current reference BLAS dscal): 0 * NaN and
// 0 * inf give NaN. exec.mode must be to_nearest_even, else
// invalid_argument("mode"); incx == 0 with n > 1 throws invalid_argument("incx").
void scal(std::int64_t n, double alpha, double* x, std::int64_t incx, const exec& ex = {});
// y_i = x_i, bit for bit (NaN payloads and zero signs kept). exec.mode is not
// used; incy == 0 with n > 1 throws invalid_argument("incy").
void copy(std::int64_t n, const double* x, std::int64_t incx, double* y, std::int64_t incy,
          const exec& ex = {});
// Exchanges x_i and y_i, bit for bit. exec.mode is not used; an increment of
// 0 with n > 1 throws invalid_argument("incx") or ("incy").
void swap(std::int64_t n, double* x, std::int64_t incx, double* y, std::int64_t incy,
          const exec& ex = {});
// The 0-based logical index i (element i as the increment rule defines it, so
// a negative increment counts from the far end) of the first element of
// largest |x_i|; if x holds a NaN, the index of the first NaN; -1 when n == 0.
// Ties (including -0 against +0) go to the smallest i. Unlike BLAS idamax the
// index is 0-based and any increment is accepted. exec.mode is not used.
std::int64_t iamax(std::int64_t n, const double* x, std::int64_t incx, const exec& ex = {});

// Modified Givens rotation (reference BLAS drotm): with H from param (flag
// param[0] = -1: H = [[p1, p3], [p2, p4]]; 0: [[1, p3], [p2, 1]]; 1:
// [[p1, 1], [-1, p4]]; -2: H = I, nothing is done), x_i' = round(h11 x_i +
// h12 y_i) and y_i' = round(h21 x_i + h22 y_i), each ONE correct rounding of
// the exact two-term sum in exec.mode (the reference rounds each product and
// the sum). Another flag throws invalid_argument("param"); increments as
// swap (0 with n > 1 throws). Elements are independent: same bits on every
// backend and thread count.
void rotm(std::int64_t n, double* x, std::int64_t incx, double* y, std::int64_t incy,
          const double* param, const exec& ex = {});

// Givens rotation (reference BLAS 3.10 drotg, "safe scaling" version, its
// rules for the special cases and for z): on return a = r, b = z, and c, s
// with [c s; -s c] [a; b] = [r; 0].
//  * b == 0: c = 1, s = 0, r = a, z = 0;  a == 0 (b != 0): c = 0, s = 1,
//    r = b, z = 1;
//  * otherwise r = sigma * nrm2(a, b), the norm CORRECTLY ROUNDED (exact sum
//    of squares, one rounded square root; no spurious overflow), sigma the
//    sign of the larger of |a|, |b| (of b on a tie); c = a / r and s = b / r
//    are IEEE quotients by that rounded r (NOT the correctly rounded
//    a / sqrt(a^2 + b^2): two roundings, relative error below 2^-52 instead
//    of 2^-53), z = s if |a| > |b|, else 1 / c (1 when c == 0).
// Deterministic: the same bits everywhere. exec.mode must be to_nearest_even
// (invalid_argument("mode") otherwise).
void rotg(double& a, double& b, double& c, double& s, const exec& ex = {});

// Span forms (contiguous, increment 1); the two-vector forms throw
// exala::invalid_argument("y") if the sizes differ.
void axpy(double alpha, std::span<const double> x, std::span<double> y, const exec& ex = {});
inline void scal(double alpha, std::span<double> x, const exec& ex = {}) {
  scal(static_cast<std::int64_t>(x.size()), alpha, x.data(), 1, ex);
}
void copy(std::span<const double> x, std::span<double> y, const exec& ex = {});
void swap(std::span<double> x, std::span<double> y, const exec& ex = {});
inline std::int64_t iamax(std::span<const double> x, const exec& ex = {}) {
  return iamax(static_cast<std::int64_t>(x.size()), x.data(), 1, ex);
}

}  // namespace exala
