// symm and trmm: products with a symmetric or triangular matrix, each entry
// one gemm entry (correctly rounded: round(alpha * S + beta * c), S exact).
//
// Guarantee: every result entry is the bits exala::gemm gives for the same
// entry of the product with the full matrix (symm: A expanded from its
// stored triangle; trmm: T with zeros outside its triangle, ones on a unit
// diagonal, beta = 0), on every backend, thread count, kernel set and block.
// trmm skips the zero part of T where that provably changes no bit: with B
// finite every skipped product is an exact +-0, which leaves a nonzero exact
// sum unchanged, and a zero sum S gives round(alpha S + 0) = +0 in every
// direction but downward (gemm adds beta C as +0 when beta == 0; x + -x is
// +0 except downward). So with B finite and the direction not downward each
// block of rows (left) or columns (right) of the result is one gemm with
// only the nonzero slice of op(T) (about half the products); otherwise one
// gemm with the expanded T.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/error.hpp"
#include "gemm_engine.hpp"

namespace exala {

namespace {

using i64 = std::int64_t;

// Rows (columns) per block of the sliced trmm: about order / 8, a multiple of
// 32 in [64, 256] (products (9/16) order^2 n instead of order^2 n; every
// block's gemm converts its slice of B again, so not narrower).
i64 block_rows(i64 order) { return std::clamp<i64>((order / 8 + 31) / 32 * 32, 64, 256); }

using detail::gemm3::check_ld;
using detail::gemm3::check_nonneg;
using detail::gemm3::check_ptr;
using detail::gemm3::scratch;
uplo flip(uplo u) { return u == uplo::upper ? uplo::lower : uplo::upper; }
side flip(side s) { return s == side::left ? side::right : side::left; }

}  // namespace

void symm(layout lay, side sd, uplo ul, i64 m, i64 n, double alpha, const double* a, i64 lda,
          const double* b, i64 ldb, double beta, double* c, i64 ldc, const exec& ex) {
  check_nonneg("m", m);
  check_nonneg("n", n);
  const bool col = lay == layout::col_major;
  const i64 na = sd == side::left ? m : n;
  check_ld("lda", lda, na);
  check_ld("ldb", ldb, col ? m : n);
  check_ld("ldc", ldc, col ? m : n);
  detail::check_exec(ex);
  detail::check_matrix_extent("a", "lda", !col, na, na, lda);
  detail::check_matrix_extent("b", "ldb", !col, m, n, ldb);
  detail::check_matrix_extent("c", "ldc", !col, m, n, ldc);
  const bool reads = alpha != 0.0 && m > 0 && n > 0;
  if (reads) {
    check_ptr("a", a, na, na);
    check_ptr("b", b, m, n);
  }
  check_ptr("c", c, m, n);
  if (m == 0 || n == 0) return;
  // Row-major: C^T = alpha B^T A + beta C^T (or A B^T) column-major on the
  // same memory, A's stored triangle seen as the other one.
  if (!col) {
    sd = flip(sd);
    ul = flip(ul);
    std::swap(m, n);
  }
  std::vector<double> full;
  if (reads) {
    full = scratch("a", na, na);
    const bool upper = ul == uplo::upper;
    for (i64 j = 0; j < na; ++j)
      for (i64 i = 0; i < na; ++i) {
        const bool stored = upper ? i <= j : i >= j;
        std::memcpy(&full[static_cast<std::size_t>(i + j * na)],
                    stored ? &a[i + j * lda] : &a[j + i * lda], sizeof(double));
      }
  }
  const double* f = reads ? full.data() : nullptr;
  if (sd == side::left)
    gemm(layout::col_major, transpose::none, transpose::none, m, n, m, alpha, f,
         std::max<i64>(1, m), b, ldb, beta, c, ldc, ex);
  else
    gemm(layout::col_major, transpose::none, transpose::none, m, n, n, alpha, b, ldb, f,
         std::max<i64>(1, n), beta, c, ldc, ex);
}

void trmm(layout lay, side sd, uplo ul, transpose trans, diag dg, i64 m, i64 n, double alpha,
          const double* a, i64 lda, double* b, i64 ldb, const exec& ex) {
  check_nonneg("m", m);
  check_nonneg("n", n);
  const bool col = lay == layout::col_major;
  const i64 na = sd == side::left ? m : n;
  check_ld("lda", lda, na);
  check_ld("ldb", ldb, col ? m : n);
  detail::check_exec(ex);
  detail::check_matrix_extent("a", "lda", !col, na, na, lda);
  detail::check_matrix_extent("b", "ldb", !col, m, n, ldb);
  check_ptr("b", b, m, n);
  if (m == 0 || n == 0) return;
  if (alpha == 0.0) {  // B = +0 without reading T, as gemm with alpha == 0, beta == 0
    for (i64 i = 0; i < m; ++i)
      for (i64 j = 0; j < n; ++j) b[col ? i + j * ldb : i * ldb + j] = 0.0;
    return;
  }
  check_ptr("a", a, na, na);
  // Row-major: B^T = alpha B^T op(T)^T (or op(T)^T B^T) column-major on the
  // same memory: side and the stored triangle flip, op stays.
  if (!col) {
    sd = flip(sd);
    ul = flip(ul);
    std::swap(m, n);
  }
  const bool left = sd == side::left, t = trans == transpose::trans, unit = dg == diag::unit;
  // op(T) is upper triangular when T is upper and not transposed, or lower and transposed.
  const bool op_upper = (ul == uplo::upper) != t;
  auto opt = [&](i64 i, i64 j) -> double {  // op(T)_ij of the full triangular matrix
    if (i == j && unit) return 1.0;
    if (op_upper ? j < i : j > i) return 0.0;
    return t ? a[j + i * lda] : a[i + j * lda];
  };
  // B's copy (column-major m x n, ld m); its finiteness decides the path.
  std::vector<double> bs = scratch("b", m, n);
  bool finite = true;
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < m; ++i) {
      const double v = b[i + j * ldb];
      std::memcpy(&bs[static_cast<std::size_t>(i + j * m)], &v, sizeof(double));
      finite = finite && std::isfinite(v);
    }
  const bool sliced = finite && ex.mode != rounding::downward;
  const i64 order = na;
  if (!sliced) {  // one gemm with the expanded T
    std::vector<double> full = scratch("a", order, order);
    for (i64 j = 0; j < order; ++j)
      for (i64 i = 0; i < order; ++i) full[static_cast<std::size_t>(i + j * order)] = opt(i, j);
    if (left)
      gemm(layout::col_major, transpose::none, transpose::none, m, n, m, alpha, full.data(), m,
           bs.data(), m, 0.0, b, ldb, ex);
    else
      gemm(layout::col_major, transpose::none, transpose::none, m, n, n, alpha, bs.data(), m,
           full.data(), n, 0.0, b, ldb, ex);
    return;
  }
  std::vector<double> slice;
  const i64 nb = block_rows(order);
  for (i64 s0 = 0; s0 < order; s0 += nb) {
    const i64 h = std::min<i64>(nb, order - s0);
    if (left) {
      // Rows [s0, s0+h) of op(T) are nonzero in columns [k0, k1).
      const i64 k0 = op_upper ? s0 : 0, k1 = op_upper ? order : s0 + h, kn = k1 - k0;
      slice.assign(static_cast<std::size_t>(h * kn), 0.0);
      for (i64 c = 0; c < kn; ++c)
        for (i64 r = 0; r < h; ++r) slice[static_cast<std::size_t>(r + c * h)] = opt(s0 + r, k0 + c);
      gemm(layout::col_major, transpose::none, transpose::none, h, n, kn, alpha, slice.data(), h,
           bs.data() + k0, m, 0.0, b + s0, ldb, ex);
    } else {
      // Columns [s0, s0+h) of op(T) are nonzero in rows [k0, k1).
      const i64 k0 = op_upper ? 0 : s0, k1 = op_upper ? s0 + h : order, kn = k1 - k0;
      slice.assign(static_cast<std::size_t>(kn * h), 0.0);
      for (i64 c = 0; c < h; ++c)
        for (i64 r = 0; r < kn; ++r) slice[static_cast<std::size_t>(r + c * kn)] = opt(k0 + r, s0 + c);
      gemm(layout::col_major, transpose::none, transpose::none, m, h, kn, alpha, bs.data() + k0 * m,
           m, slice.data(), kn, 0.0, b + s0 * ldb, ldb, ex);
    }
  }
}

}  // namespace exala
