// trsv_compensated: the compensated (CENA) triangular substitution of
// Langlois and Louvet, and the run-time choice of the substitution kernels.
//
// Guarantee: accuracy "as if computed in twice the working precision, then
// rounded": with u = 2^-53 and cond = cond(op(A), x) (Skeel),
//   ||x^ - x||_inf / ||x||_inf <= u + c_n cond u^2,  c_n = O(n)
// (Langlois & Louvet, "Solving triangular systems more accurately and
// efficiently", IMACS 2005; N. Louvet, PhD thesis, Perpignan 2007; the tests
// check c_n = 2n against MPFR on generated systems, cond 1e5..1e30),
// barring underflow in the error terms and overflow. Deterministic and the
// same bits on every kernel set and for every orientation of the same system
// (see blas1/kernels/trsv_impl.hpp for the accumulation order).
//
// Method. The classic substitution x^_i = fl((b_i - sum_j t_ij x^_j) / t_ii)
// runs unchanged; every operation's local error is computed exactly (TwoProd
// by FMA for t_ij x^_j, TwoSum for the subtraction) or nearly so
// (ApproxTwoDiv for the division), and a first-order correction
//   c_i = (sum of the local errors of row i - sum_j t_ij c_j) / t_ii + rho_i
// is carried in working precision beside the substitution (the correction
// solves T c = r, r the exact residual's computable part, by the same
// substitution: CENA, Langlois 2001). The result is x^_i + c_i rounded once.
// Products are accumulated in 8 interleaved lanes (lane = position mod 8,
// combined by TwoSum at the end of each row): the same error bound, and
// vector code in both loop orientations.
#include <cmath>
#include <memory>
#include <vector>

#include "exala/backend.hpp"
#include "exala/solvers.hpp"
#include "kernel_set.hpp"
#include "solvers_common.hpp"
#include "trsv_kernels.hpp"

namespace exala {

namespace solvers_detail {

// The kernels of the active kernel set (cpuid, EXALA_SIMD, force_kernel_set).
solve_fn comp_kernel() { return detail::active_kernels().trsv->comp_solve; }
solve_fn dd_kernel() { return detail::active_kernels().trsv->dd_solve; }

// The classic substitution in double, in the same summation order as the
// kernels' x^ (8 lanes by position, combined in lane order): the values the
// solvers return where it gives an infinity or a NaN.
void classic_substitution(const canonical& c, double* x) {
  const std::int64_t n = c.n;
  for (std::int64_t pos = 0; pos < n; ++pos) {
    const std::int64_t i = c.lower ? pos : n - 1 - pos;
    double lane[comp_lanes] = {};
    lane[0] = x[i];
    for (std::int64_t k = 0; k < pos; ++k) {
      const std::int64_t j = c.lower ? k : n - 1 - k;
      const double t = c.rows ? c.a[i * c.lda + j] : c.a[j * c.lda + i];
      lane[k % comp_lanes] -= t * x[j];
    }
    double s = lane[0];
    for (int l = 1; l < comp_lanes; ++l) s += lane[l];
    x[i] = c.unit ? s : s / c.a[i * c.lda + i];
  }
}

// Shared front end of the compensated and double-double solvers.
void run_kernel(const char* routine, solve_fn kernel, bool compensated, layout lay, uplo ul,
                transpose trans, diag dg, std::int64_t n, const double* a, std::int64_t lda,
                double* x, std::int64_t incx) {
  check_args(lay, ul, trans, dg, n, a, lda, x, incx, "x", "incx", true);
  if (n == 0) return;
  const canonical c = make_canonical(lay, ul, trans, dg, n, a, lda);
  check_diagonal(c, routine);
  // The axpy form needs the per-entry lane states; the dot form only x^, c^.
  const std::int64_t work =
      c.rows ? 2 * n : (compensated ? comp_work_size(n) : dd_work_size(n));
  std::unique_ptr<double[]> buf(new double[static_cast<std::size_t>(n + work)]);
  gather(n, x, incx, buf.get());
  kernel(kernel_args{c.a, c.lda, c.n, c.lower, c.rows, c.unit}, buf.get(), buf.get() + n);
  if (!compensated) {
    // The double-double head is not the classic substitution: inf - inf in
    // its error terms gives NaN where the classic result is an infinity.
    // Where the classic substitution is not finite, return its value (the
    // compensated kernel does so by construction: x^ is that value).
    bool special = false;
    for (std::int64_t i = 0; i < n; ++i) special = special || !std::isfinite(buf[i]);
    if (special) {
      std::vector<double> plain(static_cast<std::size_t>(n));
      gather(n, x, incx, plain.data());
      classic_substitution(c, plain.data());
      for (std::int64_t i = 0; i < n; ++i)
        if (!std::isfinite(plain[static_cast<std::size_t>(i)])) buf[i] = plain[static_cast<std::size_t>(i)];
    }
  }
  scatter(n, buf.get(), x, incx);
}

}  // namespace solvers_detail

void trsv_compensated(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                      const double* a, std::int64_t lda, double* x, std::int64_t incx) {
  solvers_detail::run_kernel("trsv_compensated", solvers_detail::comp_kernel(), true, lay, ul,
                             trans, dg, n, a, lda, x, incx);
}

}  // namespace exala
