// blas.cpp - levels 1, 2 and 3 of the C API over exala/blas1.hpp,
// exala/blas2.hpp and exala/blas3.hpp. Each function converts its enums, its
// exec and its output pointer, then makes the one C++ call; the guarantees
// are the C++ functions'.
#include "capi.hpp"
#include "exala/blas1.hpp"

using namespace exala::capi;

namespace {

// A reduction whose rounded value goes to *result (written on success only).
template <class Fn>
exala_status reduction(const exala_exec* ex, double* result, Fn&& fn) {
  return guard([&] {
    double& out = output(result, "result");
    const exala::exec e = exec_of(ex);
    out = fn(e);
  });
}

// A routine that updates its operands in place (or an accumulator).
template <class Fn>
exala_status in_place(const exala_exec* ex, Fn&& fn) {
  return guard([&] { fn(exec_of(ex)); });
}

}  // namespace

// ------------------------------------------------------------------ blas1

// Correctly rounded sum (one rounding of the exact sum in ex->rounding).
exala_status exala_sum(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                       double* result) {
  return reduction(ex, result, [&](const exala::exec& e) { return exala::sum(n, x, incx, e); });
}

// Correctly rounded sum of absolute values.
exala_status exala_asum(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                        double* result) {
  return reduction(ex, result, [&](const exala::exec& e) { return exala::asum(n, x, incx, e); });
}

// Correctly rounded dot product (every product exact).
exala_status exala_dot(int64_t n, const double* x, int64_t incx, const double* y, int64_t incy,
                       const exala_exec* ex, double* result) {
  return reduction(ex, result,
                   [&](const exala::exec& e) { return exala::dot(n, x, incx, y, incy, e); });
}

// Correctly rounded Euclidean norm (exact sum of squares, one rounded sqrt).
exala_status exala_nrm2(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                        double* result) {
  return reduction(ex, result, [&](const exala::exec& e) { return exala::nrm2(n, x, incx, e); });
}

// Exact: the terms x_i added into acc.
exala_status exala_sum_into(exala_superacc* acc, int64_t n, const double* x, int64_t incx,
                            const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    exala::sum_into(acc_of(acc, "acc"), n, x, incx, e);
  });
}

// Exact: the terms |x_i| added into acc.
exala_status exala_asum_into(exala_superacc* acc, int64_t n, const double* x, int64_t incx,
                             const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    exala::asum_into(acc_of(acc, "acc"), n, x, incx, e);
  });
}

// Exact: the products x_i * y_i added into acc.
exala_status exala_dot_into(exala_superacc* acc, int64_t n, const double* x, int64_t incx,
                            const double* y, int64_t incy, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    exala::dot_into(acc_of(acc, "acc"), n, x, incx, y, incy, e);
  });
}

// Correctly rounded to nearest: y_i = fma(alpha, x_i, y_i).
exala_status exala_axpy(int64_t n, double alpha, const double* x, int64_t incx, double* y,
                        int64_t incy, const exala_exec* ex) {
  return in_place(ex,
                  [&](const exala::exec& e) { exala::axpy(n, alpha, x, incx, y, incy, e); });
}

// Correctly rounded to nearest: x_i = alpha * x_i.
exala_status exala_scal(int64_t n, double alpha, double* x, int64_t incx, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) { exala::scal(n, alpha, x, incx, e); });
}

// Exact: y_i = x_i bit for bit.
exala_status exala_copy(int64_t n, const double* x, int64_t incx, double* y, int64_t incy,
                        const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) { exala::copy(n, x, incx, y, incy, e); });
}

// Exact: x_i and y_i exchanged bit for bit.
exala_status exala_swap(int64_t n, double* x, int64_t incx, double* y, int64_t incy,
                        const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) { exala::swap(n, x, incx, y, incy, e); });
}

// Exact: the 0-based index of the first largest |x_i| (first NaN), -1 for n == 0.
exala_status exala_iamax(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                         int64_t* index) {
  return guard([&] {
    int64_t& out = output(index, "index");
    const exala::exec e = exec_of(ex);
    out = exala::iamax(n, x, incx, e);
  });
}

// Correctly rounded per element: x_i' = round(h11 x_i + h12 y_i), y_i' =
// round(h21 x_i + h22 y_i) from the exact two-term sums (H from param, flag
// param[0] in {-2, -1, 0, 1}).
exala_status exala_rotm(int64_t n, double* x, int64_t incx, double* y, int64_t incy,
                        const double* param, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) { exala::rotm(n, x, incx, y, incy, param, e); });
}

// Givens rotation: r the correctly rounded norm with the sign of the larger
// input, c = a / r and s = b / r rounded, z as reference BLAS 3.10; on
// success *a = r, *b = z (nothing is written on an error).
exala_status exala_rotg(double* a, double* b, double* c, double* s, const exala_exec* ex) {
  return guard([&] {
    double& ra = output(a, "a");
    double& rb = output(b, "b");
    double& rc = output(c, "c");
    double& rs = output(s, "s");
    const exala::exec e = exec_of(ex);
    double va = ra, vb = rb, vc = 0.0, vs = 0.0;
    exala::rotg(va, vb, vc, vs, e);
    ra = va, rb = vb, rc = vc, rs = vs;
  });
}

// ------------------------------------------------------------------ blas2

// Correctly rounded: each y_i = round(alpha (op(A) x)_i + beta y_i), one rounding.
exala_status exala_gemv(exala_layout layout, exala_transpose trans, int64_t m, int64_t n,
                        double alpha, const double* a, int64_t lda, const double* x, int64_t incx,
                        double beta, double* y, int64_t incy, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto lay = from_c(layout, "layout", layouts);
    const auto tr = from_c(trans, "trans", transposes);
    exala::gemv(lay, tr, m, n, alpha, a, lda, x, incx, beta, y, incy, e);
  });
}

// Reproducible: each x_i the correctly rounded quotient of its exact numerator.
exala_status exala_trsv(exala_layout layout, exala_uplo uplo, exala_transpose trans,
                        exala_diag diag, int64_t n, const double* a, int64_t lda, double* x,
                        int64_t incx, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const triangle t = triangle_of(layout, uplo, trans, diag);
    exala::trsv(t.lay, t.ul, t.tr, t.dg, n, a, lda, x, incx, e);
  });
}

// Correctly rounded: a_ij = round(a_ij + alpha x_i x_j) on the uplo triangle.
exala_status exala_syr(exala_layout layout, exala_uplo uplo, int64_t n, double alpha,
                       const double* x, int64_t incx, double* a, int64_t lda,
                       const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto lay = from_c(layout, "layout", layouts);
    const auto ul = from_c(uplo, "uplo", uplos);
    exala::syr(lay, ul, n, alpha, x, incx, a, lda, e);
  });
}

// Correctly rounded: a_ij = round(a_ij + alpha (x_i y_j + y_i x_j)), one rounding.
exala_status exala_syr2(exala_layout layout, exala_uplo uplo, int64_t n, double alpha,
                        const double* x, int64_t incx, const double* y, int64_t incy, double* a,
                        int64_t lda, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto lay = from_c(layout, "layout", layouts);
    const auto ul = from_c(uplo, "uplo", uplos);
    exala::syr2(lay, ul, n, alpha, x, incx, y, incy, a, lda, e);
  });
}

// ------------------------------------------------------------------ blas3

// Correctly rounded: each C_ij = round(alpha (op(A) op(B))_ij + beta C_ij), one rounding.
exala_status exala_gemm(exala_layout layout, exala_transpose transa, exala_transpose transb,
                        int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                        int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                        int64_t ldc, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto lay = from_c(layout, "layout", layouts);
    const auto ta = from_c(transa, "transa", transposes);
    const auto tb = from_c(transb, "transb", transposes);
    exala::gemm(lay, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, e);
  });
}

// Reproducible: every column (left) or row (right) of X as exala_trsv gives it.
exala_status exala_trsm(exala_layout layout, exala_side side, exala_uplo uplo,
                        exala_transpose trans, exala_diag diag, int64_t m, int64_t n,
                        double alpha, const double* a, int64_t lda, double* b, int64_t ldb,
                        const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto sd = from_c(side, "side", sides);
    const triangle t = triangle_of(layout, uplo, trans, diag);
    exala::trsm(t.lay, sd, t.ul, t.tr, t.dg, m, n, alpha, a, lda, b, ldb, e);
  });
}

// Correctly rounded: the uplo triangle of alpha op(A) op(A)^T + beta C, each
// entry a gemm entry; the other triangle is not touched.
exala_status exala_syrk(exala_layout layout, exala_uplo uplo, exala_transpose trans, int64_t n,
                        int64_t k, double alpha, const double* a, int64_t lda, double beta,
                        double* c, int64_t ldc, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto lay = from_c(layout, "layout", layouts);
    const auto ul = from_c(uplo, "uplo", uplos);
    const auto tr = from_c(trans, "trans", transposes);
    exala::syrk(lay, ul, tr, n, k, alpha, a, lda, beta, c, ldc, e);
  });
}

// Correctly rounded: the uplo triangle of alpha (op(A) op(B)^T + op(B) op(A)^T)
// + beta C, each entry ONE rounding of the exact value.
exala_status exala_syr2k(exala_layout layout, exala_uplo uplo, exala_transpose trans, int64_t n,
                         int64_t k, double alpha, const double* a, int64_t lda, const double* b,
                         int64_t ldb, double beta, double* c, int64_t ldc, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto lay = from_c(layout, "layout", layouts);
    const auto ul = from_c(uplo, "uplo", uplos);
    const auto tr = from_c(trans, "trans", transposes);
    exala::syr2k(lay, ul, tr, n, k, alpha, a, lda, b, ldb, beta, c, ldc, e);
  });
}

// Correctly rounded: C = alpha A B + beta C (left) or alpha B A + beta C
// (right), A symmetric (its uplo triangle read), each entry a gemm entry.
exala_status exala_symm(exala_layout layout, exala_side side, exala_uplo uplo, int64_t m,
                        int64_t n, double alpha, const double* a, int64_t lda, const double* b,
                        int64_t ldb, double beta, double* c, int64_t ldc, const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto lay = from_c(layout, "layout", layouts);
    const auto sd = from_c(side, "side", sides);
    const auto ul = from_c(uplo, "uplo", uplos);
    exala::symm(lay, sd, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc, e);
  });
}

// Correctly rounded: B = alpha op(T) B (left) or alpha B op(T) (right) in
// place, each entry the gemm entry with the full triangular matrix.
exala_status exala_trmm(exala_layout layout, exala_side side, exala_uplo uplo,
                        exala_transpose trans, exala_diag diag, int64_t m, int64_t n,
                        double alpha, const double* a, int64_t lda, double* b, int64_t ldb,
                        const exala_exec* ex) {
  return in_place(ex, [&](const exala::exec& e) {
    const auto sd = from_c(side, "side", sides);
    const triangle t = triangle_of(layout, uplo, trans, diag);
    exala::trmm(t.lay, sd, t.ul, t.tr, t.dg, m, n, alpha, a, lda, b, ldb, e);
  });
}
