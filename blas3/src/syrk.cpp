// syrk, syr2k, syr, syr2: the symmetric rank-k updates, each entry one gemm
// entry (correctly rounded: round(alpha * S + beta * c), S exact), only the
// `ul` triangle computed and written.
//
// Guarantee: every entry of the triangle is the bits exala::gemm gives for
// that entry of the full product (syr2k: of the gemm with k' = 2k over
// [op(A) op(B)] and [op(B) op(A)], so the two products enter ONE rounding),
// on every backend, thread count, kernel set and block. The triangle is cut
// into column panels of about n / 8 columns (64..256): the rectangle beside each diagonal
// block (above it for upper, below for lower) is one gemm straight into C,
// the diagonal block one gemm into a w x w scratch block holding the
// triangle's entries (zeros elsewhere) whose triangle is copied back. Total
// products: n (n + panel) k / 2 instead of n^2 k.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/error.hpp"
#include "gemm_engine.hpp"

namespace exala {

namespace {

using i64 = std::int64_t;

// Panel width: about n / 8 (the diagonal blocks then add n^2 k / 16 products
// to the triangle's n^2 k / 2), a multiple of 32 in [64, 256] (wider panels
// re-convert fewer operand rows in the engine; narrower ones cost more calls).
i64 panel_width(i64 n) { return std::clamp<i64>((n / 8 + 31) / 32 * 32, 64, 256); }

using detail::gemm3::check_ld;
using detail::gemm3::check_nonneg;
using detail::gemm3::check_ptr;
using detail::gemm3::scratch;


// The column-major triangle update: C(tri) = alpha * L R^T + beta C(tri),
// where row i of L is left(i) (an n x kk operand given as a pointer to its
// row r and a "transposed" flag, as gemm takes it) and likewise R. The
// operands: `l` points at element (0, 0) of the stored left operand with
// leading dimension ldl, stored n x kk (lt false) or kk x n (lt true);
// `r` likewise. Either may be null when alpha == 0 or kk == 0.
struct operand {
  const double* p;
  i64 ld;
  bool t;  // stored transposed (kk x n)
  const double* row(i64 i) const {
    if (p == nullptr) return nullptr;
    return t ? p + i * ld : p + i;
  }
  transpose op() const { return t ? transpose::trans : transpose::none; }
};

void triangle_update(bool upper, i64 n, i64 kk, double alpha, const operand& l, const operand& r,
                     double beta, double* c, i64 ldc, const exec& ex) {
  if (n == 0) return;
  const transpose ta = l.op();
  const transpose tb = r.t ? transpose::none : transpose::trans;  // R^T
  const i64 nb = std::min<i64>(panel_width(n), n);
  std::vector<double> block = scratch("n", nb, nb);
  auto at = [&](i64 i, i64 j) -> double& { return c[i + j * ldc]; };
  for (i64 j0 = 0; j0 < n; j0 += nb) {
    const i64 w = std::min<i64>(nb, n - j0);
    const i64 r0 = upper ? 0 : j0 + w;         // rows of the rectangle
    const i64 rn = upper ? j0 : n - (j0 + w);  // how many
    if (rn > 0)
      gemm(layout::col_major, ta, tb, rn, w, kk, alpha, l.row(r0), l.ld, r.row(j0), r.ld, beta,
           &at(r0, j0), ldc, ex);
    for (i64 j = 0; j < w; ++j)
      for (i64 i = 0; i < w; ++i) {
        const bool in = upper ? i <= j : i >= j;
        double& v = block[static_cast<std::size_t>(i + j * w)];
        if (in && beta != 0.0)
          std::memcpy(&v, &at(j0 + i, j0 + j), sizeof(double));
        else
          v = 0.0;
      }
    gemm(layout::col_major, ta, tb, w, w, kk, alpha, l.row(j0), l.ld, r.row(j0), r.ld, beta,
         block.data(), w, ex);
    for (i64 j = 0; j < w; ++j)
      for (i64 i = 0; i < w; ++i)
        if (upper ? i <= j : i >= j) at(j0 + i, j0 + j) = block[static_cast<std::size_t>(i + j * w)];
  }
}

// Row-major symmetric problems are the column-major ones on the same memory
// with the other triangle (and, for op(A), the other transpose).
uplo flip(uplo u) { return u == uplo::upper ? uplo::lower : uplo::upper; }
transpose flip(transpose t) { return t == transpose::none ? transpose::trans : transpose::none; }

// Shared checks of syrk / syr2k; returns whether A and B are read.
bool check_rank_k(layout lay, transpose trans, i64 n, i64 k, double alpha, const double* a,
                  i64 lda, const double* b, i64 ldb, bool has_b, const double* c, i64 ldc,
                  const exec& ex) {
  check_nonneg("n", n);
  check_nonneg("k", k);
  const bool col = lay == layout::col_major;
  const bool t = trans == transpose::trans;
  const i64 rows = t ? k : n, cols = t ? n : k;  // A (and B) as stored
  check_ld("lda", lda, col ? rows : cols);
  if (has_b) check_ld("ldb", ldb, col ? rows : cols);
  check_ld("ldc", ldc, n);
  detail::check_exec(ex);
  detail::check_matrix_extent("a", "lda", !col, rows, cols, lda);
  if (has_b) detail::check_matrix_extent("b", "ldb", !col, rows, cols, ldb);
  detail::check_matrix_extent("c", "ldc", !col, n, n, ldc);
  const bool reads = alpha != 0.0 && k > 0 && n > 0;
  if (reads) {
    check_ptr("a", a, rows, cols);
    if (has_b) check_ptr("b", b, rows, cols);
  }
  check_ptr("c", c, n, n);
  return reads;
}

}  // namespace

void syrk(layout lay, uplo ul, transpose trans, i64 n, i64 k, double alpha, const double* a,
          i64 lda, double beta, double* c, i64 ldc, const exec& ex) {
  const bool reads = check_rank_k(lay, trans, n, k, alpha, a, lda, nullptr, 0, false, c, ldc, ex);
  if (lay == layout::row_major) {
    ul = flip(ul);
    trans = flip(trans);
  }
  const operand op{reads ? a : nullptr, lda, trans == transpose::trans};
  triangle_update(ul == uplo::upper, n, reads ? k : 0, alpha, op, op, beta, c, ldc, ex);
}

void syr2k(layout lay, uplo ul, transpose trans, i64 n, i64 k, double alpha, const double* a,
           i64 lda, const double* b, i64 ldb, double beta, double* c, i64 ldc, const exec& ex) {
  const bool reads = check_rank_k(lay, trans, n, k, alpha, a, lda, b, ldb, true, c, ldc, ex);
  if (lay == layout::row_major) {
    ul = flip(ul);
    trans = flip(trans);
  }
  if (!reads) {  // round(beta * c) on the triangle, A and B not read
    const operand none{nullptr, std::max<i64>(1, n), false};
    triangle_update(ul == uplo::upper, n, 0, alpha, none, none, beta, c, ldc, ex);
    return;
  }
  // L = [op(A) op(B)] and R = [op(B) op(A)], both n x 2k column-major; then
  // (L R^T)_ij = sum_l op(A)_il op(B)_jl + op(B)_il op(A)_jl, one gemm entry.
  const bool t = trans == transpose::trans;
  auto opa = [&](i64 i, i64 l) { return t ? a[l + i * lda] : a[i + l * lda]; };
  auto opb = [&](i64 i, i64 l) { return t ? b[l + i * ldb] : b[i + l * ldb]; };
  const i64 k2 = detail::checked_count("k", 2, k);
  std::vector<double> lm = scratch("n", n, k2), rm = scratch("n", n, k2);
  for (i64 l = 0; l < k; ++l)
    for (i64 i = 0; i < n; ++i) {
      const std::size_t lo = static_cast<std::size_t>(i + l * n),
                        hi = static_cast<std::size_t>(i + (l + k) * n);
      lm[lo] = opa(i, l);
      lm[hi] = opb(i, l);
      rm[lo] = lm[hi];
      rm[hi] = lm[lo];
    }
  triangle_update(ul == uplo::upper, n, k2, alpha, {lm.data(), n, false}, {rm.data(), n, false},
                  beta, c, ldc, ex);
}

namespace {
// A contiguous copy of a BLAS vector (increment any, as gemv reads it).
std::vector<double> gather(const char* name, const char* inc_name, i64 n, const double* x, i64 inc) {
  detail::check_vector_span(inc_name, n, inc);
  check_ptr(name, x, n, 1);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = x[detail::vector_offset(i, n, inc)];
  return v;
}
void check_rank_12(i64 n, i64 lda, layout lay, const double* a, const exec& ex) {
  check_nonneg("n", n);
  check_ld("lda", lda, n);
  detail::check_exec(ex);
  detail::check_matrix_extent("a", "lda", lay == layout::row_major, n, n, lda);
  check_ptr("a", a, n, n);
}
}  // namespace

void syr(layout lay, uplo ul, i64 n, double alpha, const double* x, i64 incx, double* a, i64 lda,
         const exec& ex) {
  check_rank_12(n, lda, lay, a, ex);
  detail::check_vector_span("incx", n, incx);
  if (n == 0 || alpha == 0.0) return;
  const std::vector<double> xs = gather("x", "incx", n, x, incx);
  if (lay == layout::row_major) ul = flip(ul);
  const operand op{xs.data(), n, false};
  triangle_update(ul == uplo::upper, n, 1, alpha, op, op, 1.0, a, lda, ex);
}

void syr2(layout lay, uplo ul, i64 n, double alpha, const double* x, i64 incx, const double* y,
          i64 incy, double* a, i64 lda, const exec& ex) {
  check_rank_12(n, lda, lay, a, ex);
  detail::check_vector_span("incx", n, incx);
  detail::check_vector_span("incy", n, incy);
  if (n == 0 || alpha == 0.0) return;
  const std::vector<double> xs = gather("x", "incx", n, x, incx);
  const std::vector<double> ys = gather("y", "incy", n, y, incy);
  if (lay == layout::row_major) ul = flip(ul);
  // [x y] and [y x]: n x 2, the k' = 2 gemm of syr2k.
  std::vector<double> lm(2 * static_cast<std::size_t>(n)), rm(2 * static_cast<std::size_t>(n));
  std::copy(xs.begin(), xs.end(), lm.begin());
  std::copy(ys.begin(), ys.end(), lm.begin() + n);
  std::copy(ys.begin(), ys.end(), rm.begin());
  std::copy(xs.begin(), xs.end(), rm.begin() + n);
  triangle_update(ul == uplo::upper, n, 2, alpha, {lm.data(), n, false}, {rm.data(), n, false},
                  1.0, a, lda, ex);
}

}  // namespace exala
