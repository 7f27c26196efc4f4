// trsv_double_double: triangular substitution in double-double arithmetic,
// the approach of XBLAS BLAS_dtrsv_x with extra internal precision (X. Li,
// J. Demmel et al., "Design, implementation and testing of extended and
// mixed precision BLAS", ACM TOMS 28(2), 2002).
//
// Guarantee: with u = 2^-53 and cond = cond(op(A), x) (Skeel),
//   ||x^ - x||_inf / ||x||_inf <= u + c_n cond u^2,  c_n = O(n)
// (the solution carried in double-double, unit roundoff ~ 2u^2, then rounded
// to double once), barring underflow in the low parts and overflow.
// Deterministic and the same bits on every kernel set and for every
// orientation of the same system.
//
// Method. For each unknown in substitution order, the numerator
// b_i - sum_j t_ij x_j is accumulated as a double-double, every x_j being the
// double-double (head, tail) of an earlier unknown: t * (head + tail) by
// TwoProd (FMA) plus the tail product, normalized; the subtraction by the
// accurate double-double addition (two TwoSums, Shewchuk/Bailey); the
// division by t_ii as a double-double quotient with an exact FMA remainder.
// Per-entry sequential accumulation as in XBLAS: the row loop (rows of op(A)
// contiguous) is scalar; the column (axpy) loop, used when the columns of
// op(A) are contiguous, updates independent entries and vectorizes.
#include "exala/solvers.hpp"
#include "solvers_common.hpp"
#include "trsv_kernels.hpp"

namespace exala {

void trsv_double_double(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                        const double* a, std::int64_t lda, double* x, std::int64_t incx) {
  solvers_detail::run_kernel("trsv_double_double", solvers_detail::dd_kernel(), false, lay, ul,
                             trans, dg, n, a, lda, x, incx);
}

}  // namespace exala
