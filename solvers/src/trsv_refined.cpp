// trsv_exact_refined: exala::trsv followed by iterative refinement with an
// exactly computed, once-rounded residual.
//
// Guarantee: reproducible (every step is: the residual is exact before its
// one rounding and exala::trsv gives the same bits on every backend, thread
// count and block size, so the whole iteration does). When it converges and
// cond(op(A), x) u < 1/n, every component is within 1 ulp of the exact
// solution (fixed-precision refinement with an exact residual: Skeel 1980,
// Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., ch. 12;
// residuals by the exact dot product as in Kulisch & Miranker 1981 and
// Iakymchuk et al., ExBLAS 2015). A representable exact solution is
// returned exactly (exala::trsv already finds it; the residual is then 0).
//
// Method: x = trsv(b); repeat: r_i = round(b_i - sum_j op(A)_ij x_j) (the
// row of op(A) restricted to its stored triangle, the unit diagonal as 1,
// accumulated exactly by blas1::dot_into into a superaccumulator), stop if
// r = 0; d = trsv(r); x' = fl(x + d); stop (converged) if x' == x bit for bit;
// else x = x', steps += 1. At most max_steps residuals are formed (0..100).
// exec.mode must be to_nearest_even (a directed mode has no meaning for the
// iteration as a whole).
#include <bit>
#include <cmath>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/solvers.hpp"
#include "exala/superaccumulator.hpp"
#include "solvers_common.hpp"

namespace exala {

refinement_report trsv_exact_refined(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                                     const double* a, std::int64_t lda, double* x,
                                     std::int64_t incx, int max_steps, const exec& ex) {
  using namespace solvers_detail;
  check_args(lay, ul, trans, dg, n, a, lda, x, incx, "x", "incx", true);
  if (max_steps < 0 || max_steps > 100)
    throw invalid_argument("max_steps", "must be in [0, 100], got " + str(max_steps));
  if (ex.mode != rounding::to_nearest_even)
    throw invalid_argument("mode", "must be to_nearest_even for trsv_exact_refined (the "
                                   "refinement rounds every correction to nearest)");
  const canonical c = make_canonical(lay, ul, trans, dg, n, a, lda);
  check_diagonal(c, "trsv_exact_refined");
  refinement_report rep;
  if (n == 0) {
    rep.converged = true;
    return rep;
  }
  const std::size_t un = static_cast<std::size_t>(n);
  std::vector<double> b(un), xv(un), negx(un), d(un);
  gather(n, x, incx, b.data());
  xv = b;
  trsv(lay, ul, trans, dg, n, a, lda, xv.data(), 1, ex);

  superaccumulator acc;
  for (int step = 0; step < max_steps; ++step) {
    bool finite = true;
    for (double v : xv) finite = finite && std::isfinite(v);
    if (!finite) break;  // no meaningful residual
    for (std::size_t i = 0; i < un; ++i) negx[i] = -xv[i];
    bool zero = true;
    for (std::int64_t i = 0; i < n; ++i) {
      // row i of op(A) over its stored triangle: columns [lo, hi)
      std::int64_t lo = c.lower ? 0 : i;
      std::int64_t hi = c.lower ? i + 1 : n;
      if (c.unit) {
        if (c.lower)
          --hi;
        else
          ++lo;
      }
      acc.clear();
      acc.add(b[static_cast<std::size_t>(i)]);
      if (c.unit) acc.add(negx[static_cast<std::size_t>(i)]);
      if (hi > lo) {
        const double* row = c.rows ? c.a + i * c.lda + lo : c.a + lo * c.lda + i;
        dot_into(acc, hi - lo, row, c.rows ? 1 : c.lda, negx.data() + lo, 1, ex);
      }
      const double r = acc.round();
      d[static_cast<std::size_t>(i)] = r;
      zero = zero && r == 0.0;
    }
    if (zero) {  // x solves the system exactly
      rep.converged = true;
      break;
    }
    trsv(lay, ul, trans, dg, n, a, lda, d.data(), 1, ex);
    bool changed = false;
    for (std::size_t i = 0; i < un; ++i) {
      const double nx = xv[i] + d[i];
      changed = changed || std::bit_cast<std::uint64_t>(nx) != std::bit_cast<std::uint64_t>(xv[i]);
      d[i] = nx;
    }
    if (!changed) {
      rep.converged = true;
      break;
    }
    xv.swap(d);
    ++rep.steps;
  }
  scatter(n, xv.data(), x, incx);
  return rep;
}

}  // namespace exala
