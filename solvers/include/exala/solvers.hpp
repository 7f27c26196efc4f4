// exala/solvers.hpp - triangular solvers of increasing accuracy, the Skeel
// condition number, and ill-conditioned test problems.
//
// All solvers share exala::trsv's argument conventions (CBLAS order, BLAS
// strides, x holds b on entry and the solution on exit, only the `ul`
// triangle read (with diag::unit not the diagonal either), lda >= max(1, n),
// a written vector may not have increment 0 when n > 1, a matrix or vector
// whose addresses would pass 2^60 - 1 elements is refused (naming "a", lda
// or the increment), exala::invalid_argument naming the argument, and
// exala::singular_matrix naming the smallest row with an exact zero on a
// non-unit diagonal, thrown before anything is written).
//
//   method            forward error (u = 2^-53)       reproducible
//   trsv (blas2)      correctly rounded x_i from the   yes (any backend)
//                     exact numerator; exact when the
//                     solution is representable
//   trsv_exact_refined  <= 1 ulp per component while   yes
//                     cond * u < 1/n
//   trsv_compensated  ~ u + n cond u^2 (CENA)          yes (any kernel set)
//   trsv_double_double ~ u + n cond u^2 (XBLAS style)  yes (any kernel set)
// (cond = Skeel's cond(op(A), x), see skeel_condition). The compensated and
// double-double solvers give the same bits for every equivalent storage of
// one system: both layouts, op(A) = T as lower/N or upper/T, the reversed
// system, any stride, and every SIMD kernel set.
#pragma once

#include <cstdint>
#include <vector>

#include "exala/blas2.hpp"

namespace exala {

// Compensated substitution of Langlois and Louvet, "Solving triangular
// systems more accurately and efficiently" (IMACS 2005; N. Louvet, thesis,
// 2007): the classic substitution plus a correction computed from the local
// errors of every operation (TwoProd by FMA, TwoSum, ApproxTwoDiv), the CENA
// method. The result is as accurate as if computed in twice the working
// precision and then rounded: ||x - x^|| / ||x|| <~ u + n cond(T, x) u^2
// (the tests check 2 (u + n cond u^2) against MPFR). Products accumulate in
// 8 interleaved lanes per unknown (rows: vectorized along the row; columns
// contiguous: the column-oriented variant, compensation carried per entry).
// Where the classic substitution overflows or meets inf/NaN, its value is
// returned. Cost ~ 11 flops per matrix entry; measured at n = 4000, one
// thread, AVX-512 (Zen 5): 1.6-1.9x the time of OpenBLAS dtrsv with the rows
// of op(A) contiguous, ~1.9-2x with the columns contiguous (AVX2 set ~3x,
// baseline set ~13x: std::fma is a libm call without -mfma).
void trsv_compensated(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                      const double* a, std::int64_t lda, double* x, std::int64_t incx);

// Substitution in double-double arithmetic with a final rounding to double,
// the approach of XBLAS BLAS_dtrsv_x (Li, Demmel et al., "Design,
// implementation and testing of extended and mixed precision BLAS", 2002):
// same error bound as trsv_compensated, the reference it is measured against.
// Per-entry sequential double-double accumulation (as XBLAS); where the
// classic substitution is not finite, its value is returned. Measured at
// n = 4000 (AVX-512): 2.1-2.6x the compensated solver's time with rows
// contiguous (latency-bound chains), ~1.2x with columns contiguous (both
// memory-bound there).
void trsv_double_double(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                        const double* a, std::int64_t lda, double* x, std::int64_t incx);

struct refinement_report {
  int steps = 0;           // refinement steps taken (0: the exact trsv was final)
  bool converged = false;  // the last correction left x unchanged
};

// exala::trsv, then iterative refinement: r = round(b - op(A) x) from the
// exact residual (one rounding per entry; the row's stored triangle and the
// unit diagonal, products accumulated exactly by blas1 dot_into), op(A) d = r
// solved by exala::trsv, x = x + d; stops (converged) when r = 0 or a
// correction leaves x unchanged bit for bit, or after max_steps residuals
// (0..100; otherwise invalid_argument("max_steps")). steps counts the
// corrections that changed x; max_steps = 0 returns exala::trsv's x with
// converged = false. Reproducible like trsv (every step is): the same bits
// for every backend, thread count and block size. exec as for trsv, except
// that exec.mode must be to_nearest_even (invalid_argument("mode")).
refinement_report trsv_exact_refined(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                                     const double* a, std::int64_t lda, double* x,
                                     std::int64_t incx, int max_steps = 8, const exec& ex = {});

// Skeel's condition number of op(A) x = b at the solution x:
//   cond(A, x) = || |op(A)^-1| |op(A)| |x| ||_inf / ||x||_inf,
// the quantity the forward error bounds above are stated in. The inverse is
// formed column by column with trsv_compensated (each column accurate to
// ~u + n cond u^2), so the value is reliable to a few digits while
// n cond u^2 << 1 (cond up to ~1e28 at n = 100); beyond that it is only an
// estimate (MPFR is the truth for the accuracy study). Computed on the
// rows of op(A) and on x scaled by exact powers of two (the condition number
// does not change), so data near the overflow or underflow thresholds give
// the value of the same problem in the ordinary range, not inf, NaN or 0.
// Cost n^3/6 compensated updates and a copy of the triangle (n^2 doubles).
// x is read-only (increment 0 allowed); x = 0 gives NaN (0/0).
double skeel_condition(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                       const double* a, std::int64_t lda, const double* x, std::int64_t incx);

// An ill-conditioned lower-triangular system T x = b whose entries are all
// exactly representable doubles, in the spirit of N. Louvet's thesis method
// (Louvet 2007: an exactly known solution built with error-free
// transformations, the conditioning steered by one parameter); our
// construction (T = S (D - g G) S, an M-matrix up to signs, so its Skeel
// condition is computable accurately in double, g found by bisection; b built
// row by row with exact accumulation so that the exact x stays at a chosen
// vector; see solvers/src/generate.cpp) reaches any cond(T, x) in [1, 1e60]
// within a factor 1.1 (tested: 1.25, MPFR-measured, 1e5..1e40 at n = 40 and
// 200). Deterministic in (n, cond, seed) on every platform. T is stored
// row-major, n x n (the strict upper triangle is zero), with a nonzero
// diagonal. invalid_argument: n < 1, cond < 1 or not finite or > 1e60;
// n = 1 with cond > 10 (its condition is 1); cond beyond what n rows can
// reach with exact data (n = 2: ~1e10, n = 4: ~1e25, n >= 8: all). Cost
// O(n^2) (0.05 s at n = 1000, 0.7 s at n = 4000).
struct trsv_problem {
  std::int64_t n = 0;
  std::vector<double> t;  // row-major, lower triangular, non-unit diagonal
  std::vector<double> b;
};
trsv_problem generate_ill_conditioned_trsv(std::int64_t n, double cond, std::uint64_t seed = 1);

// The solution of op(A) x = b computed in MPFR with `precision` bits (0:
// adaptive, doubling from 256 bits until two successive precisions round to
// the same doubles, at most 2^16 bits; else 2..2^24) and rounded to nearest
// doubles (subnormals included): the exact solution, rounded, for the
// accuracy tests and the study. b is read-only (increment 0 allowed). Throws
// exala::not_compiled_in("MPFR") when ExaLA was built without MPFR (after
// the argument checks).
std::vector<double> trsv_mpfr_solution(layout lay, uplo ul, transpose trans, diag dg,
                                       std::int64_t n, const double* a, std::int64_t lda,
                                       const double* b, std::int64_t incb, int precision = 0);

}  // namespace exala
