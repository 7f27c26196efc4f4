// stripe/kernels.cpp - the stripe LU's in-memory steps over a dense_engine.
//
// Each function below is a fixed sequence of engine calls whose sizes depend
// only on (n, the stripes' first rows and heights, S or S') - never on col0,
// leading dimensions, threads or the caller's order - so, with a
// reproducible engine, a stripe gets the same bits in core and out of core
// (see kernels.hpp). The only calls whose extent depends on col0 are row
// interchanges (laswp), which move data without arithmetic.
//
// Pivot checks: after each getrf, the diagonal of the new U block is scanned
// in column order; the first entry that is exactly zero, not finite, or not
// above the threshold in magnitude throws exala::singular_pivot naming its
// global 0-based column (an exact zero is reported as "zero" whatever the
// threshold).
#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"

namespace exala::detail::stripe {
namespace {

void require(bool ok, const char* arg, const std::string& what) {
  if (!ok) throw invalid_argument(arg, what);
}

std::string str(std::int64_t v) { return std::to_string(v); }

void check_threshold(double threshold) {
  require(threshold >= 0 && !std::isnan(threshold), "threshold",
          "must be >= 0 (got " + std::to_string(threshold) + ")");
}

// A block's own consistency: sizes, leading dimension, data.
void check_block(const block& b, const char* name) {
  require(b.rows >= 0 && b.n >= 0 && b.col0 >= 0 && b.col0 <= b.n, name,
          "has an invalid shape (rows " + str(b.rows) + ", col0 " + str(b.col0) + ", n " +
              str(b.n) + ")");
  require(b.ld >= std::max<std::int64_t>(1, b.rows), name,
          "has ld " + str(b.ld) + " < max(1, rows " + str(b.rows) + ")");
  require(b.data != nullptr || b.rows == 0 || b.col0 == b.n, name, "has null data");
}

// Scans the diagonal of the k x k U block at u (ld) and throws for the first
// bad pivot; col is the global column of u's first column.
void check_pivots(dense_engine& e, const double* u, std::int64_t ld, std::int64_t k,
                  std::int64_t col, double threshold) {
  std::vector<double> d(static_cast<std::size_t>(k));
  e.read_diagonal(u, ld, k, d.data());
  for (std::int64_t j = 0; j < k; ++j) {
    const double v = d[static_cast<std::size_t>(j)];
    if (v == 0) throw singular_pivot(col + j, 0.0, threshold, "zero");
    if (!std::isfinite(v)) throw singular_pivot(col + j, std::fabs(v), threshold, "non-finite");
    if (std::fabs(v) <= threshold)
      throw singular_pivot(col + j, std::fabs(v), threshold, "numerically singular");
  }
}

}  // namespace

// Guarantee: the stripe's local-pivot LU (pivot search within each substripe)
// as a fixed sequence of engine calls whose sizes depend only on (n, r0, rows,
// S'), so its bits do not depend on col0, ld or the engine's threads; backward
// stable as Gaussian elimination with the growth of local pivoting (which can
// exceed partial pivoting's; the pivot checks catch tiny pivots).
void factor_stripe_local(dense_engine& e, const block& s, std::int64_t r0, std::int64_t substripe,
                         double threshold, std::int64_t* ipiv) {
  check_block(s, "s");
  require(substripe >= 1, "substripe", "must be >= 1 (got " + str(substripe) + ")");
  require(r0 >= s.col0 && r0 + s.rows <= s.n, "r0",
          "= " + str(r0) + " must satisfy col0 (" + str(s.col0) + ") <= r0 and r0 + rows (" +
              str(s.rows) + ") <= n (" + str(s.n) + ")");
  check_threshold(threshold);
  require(ipiv != nullptr || s.rows == 0, "ipiv", "is a null pointer");
  const std::int64_t n = s.n, ld = s.ld;
  for (std::int64_t c = 0; c < s.rows; c += substripe) {
    const std::int64_t b = std::min(substripe, s.rows - c);  // substripe height
    const std::int64_t dc = r0 + c;                          // its diagonal column
    double* diag = s.col(dc) + c;
    // LU of the b x b diagonal block: pivots from the substripe's rows only.
    e.getrf(b, b, diag, ld, ipiv + c);
    for (std::int64_t i = c; i < c + b; ++i) ipiv[i] += c;
    // The same interchanges on every other valid column of the stripe.
    if (dc > s.col0) e.laswp(dc - s.col0, s.data, ld, c, c + b, ipiv);
    if (dc + b < n) e.laswp(n - dc - b, s.col(dc + b), ld, c, c + b, ipiv);
    check_pivots(e, diag, ld, b, dc, threshold);
    const std::int64_t right = n - dc - b;      // columns right of the block
    const std::int64_t below = s.rows - c - b;  // stripe rows below the substripe
    // U12 := L11^-1 A12
    e.trsm_left_lower_unit(b, right, diag, ld, s.col(dc + b) + c, ld);
    // L21 := A21 U11^-1
    e.trsm_right_upper(below, b, diag, ld, diag + b, ld);
    // A22 -= L21 U12
    e.gemm_sub(below, right, b, diag + b, ld, s.col(dc + b) + c, ld, s.col(dc + b) + c + b, ld);
  }
}

// Guarantee: two engine calls (trsm_right_upper, gemm_sub) whose sizes depend
// only on (n, p_r0, p.rows, t.rows): reproducible bits, independent of the
// blocks' col0 and ld.
void apply_pivot_stripe(dense_engine& e, const block& p, std::int64_t p_r0, const block& t) {
  check_block(p, "p");
  check_block(t, "t");
  require(t.n == p.n, "t", "has n = " + str(t.n) + " but the pivot stripe has n = " + str(p.n));
  require(p_r0 >= p.col0 && p_r0 >= t.col0 && p_r0 + p.rows <= p.n, "p_r0",
          "= " + str(p_r0) + " must satisfy p.col0 (" + str(p.col0) + "), t.col0 (" +
              str(t.col0) + ") <= p_r0 and p_r0 + p.rows (" + str(p.rows) + ") <= n (" +
              str(p.n) + ")");
  const std::int64_t e0 = p_r0 + p.rows;
  // L_TP := T_P U_PP^-1 (stored in place)
  e.trsm_right_upper(t.rows, p.rows, p.col(p_r0), p.ld, t.col(p_r0), t.ld);
  // T_K -= L_TP U_PK
  e.gemm_sub(t.rows, p.n - e0, p.rows, t.col(p_r0), t.ld, p.col(e0), p.ld, t.col(e0), t.ld);
}

// Guarantee: LU with partial pivoting, right-looking by panels of S columns
// (panel: the engine's getrf on the whole (n - J) x S column block, so the
// pivots are those of ordinary partial pivoting); the engine calls' sizes
// depend only on (n, S): reproducible bits, independent of lda and threads;
// backward stable as LAPACK's dgetrf.
void factor_partial(dense_engine& e, std::int64_t n, double* a, std::int64_t lda, std::int64_t S,
                    double threshold, std::int64_t* ipiv) {
  require(n >= 0, "n", "must be >= 0 (got " + str(n) + ")");
  require(lda >= std::max<std::int64_t>(1, n), "lda",
          "= " + str(lda) + " is less than max(1, n = " + str(n) + ")");
  require(S >= 1, "S", "must be >= 1 (got " + str(S) + ")");
  check_threshold(threshold);
  if (n == 0) return;
  require(a != nullptr, "a", "is a null pointer");
  require(ipiv != nullptr, "ipiv", "is a null pointer");
  for (std::int64_t J = 0; J < n; J += S) {
    const std::int64_t jb = std::min(S, n - J);
    double* panel = a + J + J * lda;
    e.getrf(n - J, jb, panel, lda, ipiv + J);
    for (std::int64_t i = J; i < J + jb; ++i) ipiv[i] += J;
    check_pivots(e, panel, lda, jb, J, threshold);
    if (J > 0) e.laswp(J, a, lda, J, J + jb, ipiv);
    const std::int64_t rest = n - J - jb;
    if (rest == 0) break;
    double* right = a + (J + jb) * lda;
    e.laswp(rest, right, lda, J, J + jb, ipiv);
    e.trsm_left_lower_unit(jb, rest, panel, lda, right + J, lda);
    e.gemm_sub(rest, rest, jb, panel + jb, lda, right + J, lda, right + J + jb, lda);
  }
}

// Guarantee: two engine calls (gemm_sub with k = r0, trsm_left_lower_unit)
// whose sizes depend only on (r0, rows, nrhs): reproducible bits.
void forward_stripe(dense_engine& e, const block& lu, std::int64_t r0, std::int64_t nrhs, double* y,
                    std::int64_t ldy) {
  check_block(lu, "lu");
  require(lu.col0 == 0, "lu", "must be valid from column 0 (col0 = " + str(lu.col0) + ")");
  require(r0 >= 0 && r0 + lu.rows <= lu.n, "r0",
          "= " + str(r0) + " must satisfy 0 <= r0 and r0 + rows (" + str(lu.rows) + ") <= n (" +
              str(lu.n) + ")");
  require(nrhs >= 0, "nrhs", "must be >= 0 (got " + str(nrhs) + ")");
  require(ldy >= std::max<std::int64_t>(1, lu.n), "ldy",
          "= " + str(ldy) + " is less than max(1, n = " + str(lu.n) + ")");
  if (nrhs == 0 || lu.rows == 0) return;
  require(y != nullptr, "y", "is a null pointer");
  e.gemm_sub(lu.rows, nrhs, r0, lu.col(0), lu.ld, y, ldy, y + r0, ldy);
  e.trsm_left_lower_unit(lu.rows, nrhs, lu.col(r0), lu.ld, y + r0, ldy);
}

// Guarantee: two engine calls (gemm_sub with k = n - r0 - rows,
// trsm_left_upper) whose sizes depend only on (n, r0, rows, nrhs):
// reproducible bits.
void backward_stripe(dense_engine& e, const block& lu, std::int64_t r0, std::int64_t nrhs,
                     double* y, std::int64_t ldy) {
  check_block(lu, "lu");
  require(r0 >= lu.col0 && r0 + lu.rows <= lu.n, "r0",
          "= " + str(r0) + " must satisfy col0 (" + str(lu.col0) + ") <= r0 and r0 + rows (" +
              str(lu.rows) + ") <= n (" + str(lu.n) + ")");
  require(nrhs >= 0, "nrhs", "must be >= 0 (got " + str(nrhs) + ")");
  require(ldy >= std::max<std::int64_t>(1, lu.n), "ldy",
          "= " + str(ldy) + " is less than max(1, n = " + str(lu.n) + ")");
  if (nrhs == 0 || lu.rows == 0) return;
  require(y != nullptr, "y", "is a null pointer");
  const std::int64_t e0 = r0 + lu.rows;
  e.gemm_sub(lu.rows, nrhs, lu.n - e0, lu.col(e0), lu.ld, y + e0, ldy, y + r0, ldy);
  e.trsm_left_upper(lu.rows, nrhs, lu.col(r0), lu.ld, y + r0, ldy);
}

}  // namespace exala::detail::stripe
