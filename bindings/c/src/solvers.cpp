// solvers.cpp - the triangular solvers, the Skeel condition number and the
// test-problem helpers of exala/solvers.hpp for C.
#include <algorithm>

#include "capi.hpp"
#include "exala/solvers.hpp"

using namespace exala::capi;

// Compensated (CENA): ~ u + n cond u^2, the same bits on every kernel set.
exala_status exala_trsv_compensated(exala_layout layout, exala_uplo uplo, exala_transpose trans,
                                    exala_diag diag, int64_t n, const double* a, int64_t lda,
                                    double* x, int64_t incx) {
  return guard([&] {
    const triangle t = triangle_of(layout, uplo, trans, diag);
    exala::trsv_compensated(t.lay, t.ul, t.tr, t.dg, n, a, lda, x, incx);
  });
}

// Double-double substitution: ~ u + n cond u^2, the same bits on every kernel set.
exala_status exala_trsv_double_double(exala_layout layout, exala_uplo uplo,
                                      exala_transpose trans, exala_diag diag, int64_t n,
                                      const double* a, int64_t lda, double* x, int64_t incx) {
  return guard([&] {
    const triangle t = triangle_of(layout, uplo, trans, diag);
    exala::trsv_double_double(t.lay, t.ul, t.tr, t.dg, n, a, lda, x, incx);
  });
}

// Reproducible: exala_trsv refined with the exact residual, <= 1 ulp while cond u < 1/n.
exala_status exala_trsv_exact_refined(exala_layout layout, exala_uplo uplo,
                                      exala_transpose trans, exala_diag diag, int64_t n,
                                      const double* a, int64_t lda, double* x, int64_t incx,
                                      int max_steps, const exala_exec* ex, int* steps,
                                      int* converged) {
  return guard([&] {
    const exala::exec e = exec_of(ex);
    const triangle t = triangle_of(layout, uplo, trans, diag);
    const exala::refinement_report r =
        exala::trsv_exact_refined(t.lay, t.ul, t.tr, t.dg, n, a, lda, x, incx, max_steps, e);
    if (steps != nullptr) *steps = r.steps;
    if (converged != nullptr) *converged = r.converged ? 1 : 0;
  });
}

// Skeel's cond(op(A), x), reliable to a few digits while n cond u^2 << 1.
exala_status exala_skeel_condition(exala_layout layout, exala_uplo uplo, exala_transpose trans,
                                   exala_diag diag, int64_t n, const double* a, int64_t lda,
                                   const double* x, int64_t incx, double* result) {
  return guard([&] {
    double& out = output(result, "result");
    const triangle t = triangle_of(layout, uplo, trans, diag);
    out = exala::skeel_condition(t.lay, t.ul, t.tr, t.dg, n, a, lda, x, incx);
  });
}

// Exact data: every entry of T and b a double, cond(T, x) within 1.1 of cond.
exala_status exala_generate_ill_conditioned_trsv(int64_t n, double cond, uint64_t seed,
                                                 double* t, double* b) {
  return guard([&] {
    require(t, "t");
    require(b, "b");
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, cond, seed);
    std::copy(p.t.begin(), p.t.end(), t);
    std::copy(p.b.begin(), p.b.end(), b);
  });
}

// Correctly rounded to nearest: the exact solution computed in MPFR, rounded once.
exala_status exala_trsv_mpfr_solution(exala_layout layout, exala_uplo uplo,
                                      exala_transpose trans, exala_diag diag, int64_t n,
                                      const double* a, int64_t lda, const double* b, int64_t incb,
                                      int precision, double* x) {
  return guard([&] {
    if (n > 0) require(x, "x");
    const triangle t = triangle_of(layout, uplo, trans, diag);
    const std::vector<double> s =
        exala::trsv_mpfr_solution(t.lay, t.ul, t.tr, t.dg, n, a, lda, b, incb, precision);
    std::copy(s.begin(), s.end(), x);
  });
}
