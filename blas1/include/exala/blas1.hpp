// exala/blas1.hpp - exact, correctly rounded level-1 reductions.
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
// n < 0, or a null pointer with n > 0, throws exala::invalid_argument.
#pragma once

#include <cstdint>
#include <span>

#include "exala/backend.hpp"
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

}  // namespace exala
