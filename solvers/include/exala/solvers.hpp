// exala/solvers.hpp - triangular solvers of increasing accuracy, the Skeel
// condition number, and ill-conditioned test problems.
//
// All solvers share exala::trsv's argument conventions (CBLAS order, BLAS
// strides, x holds b on entry and the solution on exit, only the `ul`
// triangle read, exala::invalid_argument for bad arguments and
// exala::singular_matrix naming the row of an exact zero diagonal entry).
//
//   method            forward error (u = 2^-53)       reproducible
//   trsv (blas2)      correctly rounded x_i from the   yes (any backend)
//                     exact numerator; exact when the
//                     solution is representable
//   trsv_exact_refined  <= 1 ulp per component while   yes
//                     cond * u < 1/n
//   trsv_compensated  ~ u + n cond u^2 (CENA)          yes (sequential)
//   trsv_double_double ~ u + n cond u^2 (XBLAS style)  yes (sequential)
#pragma once

#include <cstdint>
#include <vector>

#include "exala/blas2.hpp"

namespace exala {

// Compensated substitution of Langlois and Louvet, "Solving triangular
// systems more accurately and efficiently" (IMACS 2005): the classic
// substitution plus a correction computed from the local errors of every
// operation (TwoProd by FMA, TwoSum, ApproxTwoDiv), the CENA method. The
// result is as accurate as if computed in twice the working precision and
// then rounded: |x - x^| / |x| <~ u + n cond(T, x) u^2. Sequential, so the
// same bits on every run.
void trsv_compensated(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                      const double* a, std::int64_t lda, double* x, std::int64_t incx);

// Substitution in double-double arithmetic with a final rounding to double,
// the approach of XBLAS BLAS_dtrsv_x (Li, Demmel et al., "Design,
// implementation and testing of extended and mixed precision BLAS", 2002):
// same error bound as trsv_compensated, the reference it is measured against.
void trsv_double_double(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                        const double* a, std::int64_t lda, double* x, std::int64_t incx);

struct refinement_report {
  int steps = 0;           // refinement steps taken (0: the exact trsv was final)
  bool converged = false;  // the last correction left x unchanged
};

// exala::trsv, then iterative refinement: r = round(b - op(A) x) from the
// exact residual (one rounding per entry), op(A) d = r solved by exala::trsv,
// x = x + d; stops when a correction no longer changes x or after max_steps
// steps (0..100; otherwise invalid_argument("max_steps")). Reproducible like
// trsv (every step is). exec as for trsv.
refinement_report trsv_exact_refined(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                                     const double* a, std::int64_t lda, double* x,
                                     std::int64_t incx, int max_steps = 8, const exec& ex = {});

// Skeel's condition number of op(A) x = b at the solution x:
//   cond(A, x) = || |op(A)^-1| |op(A)| |x| ||_inf / ||x||_inf,
// the quantity the forward error bounds above are stated in. The inverse is
// formed column by column with exact solves, so the value is reliable to a
// few digits while cond * u < 1; beyond that it is a lower estimate (use
// the MPFR solution routine below as the truth for the accuracy study).
double skeel_condition(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                       const double* a, std::int64_t lda, const double* x, std::int64_t incx);

// An ill-conditioned lower-triangular system T x = b whose entries are all
// exactly representable doubles, generated after N. Louvet's thesis method
// (Louvet 2007, ch. on triangular systems): condition numbers cond(T, x) from
// about 1e5 to 1e40 and beyond are reached on request (within a factor of
// about 10 of `cond`). Deterministic in `seed`. T is stored row-major, n x n
// (the strict upper triangle is zero).
struct trsv_problem {
  std::int64_t n = 0;
  std::vector<double> t;  // row-major, lower triangular, non-unit diagonal
  std::vector<double> b;
};
trsv_problem generate_ill_conditioned_trsv(std::int64_t n, double cond, std::uint64_t seed = 1);

// The solution of op(A) x = b computed in MPFR with `precision` bits (0:
// adaptive, doubling from 256 bits until two successive precisions round to
// the same doubles) and rounded to nearest doubles: the exact solution,
// rounded, for the accuracy tests and the study. Throws
// exala::not_compiled_in when ExaLA was built without MPFR.
std::vector<double> trsv_mpfr_solution(layout lay, uplo ul, transpose trans, diag dg,
                                       std::int64_t n, const double* a, std::int64_t lda,
                                       const double* b, std::int64_t incb, int precision = 0);

}  // namespace exala
