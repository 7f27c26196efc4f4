// The host side of the CUDA dot and gemv (exala/detail/dot2_engines.hpp).
//
// Guarantee: every result is the correctly rounded value of its exact
// expression (the reference backend's bits): decided from a proven Dot2
// bound (exala/detail/dot2_hd.hpp) or formed exactly.
#include "exala/detail/dot2_engines.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/error.hpp"
#include "exala/exact_ops.hpp"
#include "exala/superaccumulator.hpp"

namespace exala::detail::dot2 {

bool round_chunks(const state* parts, std::int64_t chunks, std::int64_t n, reduction r, rounding mode,
                  double& out) {
  superaccumulator acc;
  double e = 0.0;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t terms = std::min<std::int64_t>(dot_chunk, n - c * dot_chunk);
    bounded b;
    if (!finish(parts[c], static_cast<double>(terms), dot_chains, b)) return false;
    acc.add(b.hi);
    acc.add(b.lo);
    e += b.err;
  }
  // hi = RN(A), lo = RN(A - hi): |A - hi - lo| <= ulp(lo) / 2 <= 2^-53 |lo| + 2^-1075.
  const double hi = acc.round(rounding::to_nearest_even);
  if (!std::isfinite(hi)) return false;
  acc.add(-hi);
  const double lo = acc.round(rounding::to_nearest_even);
  const double err = 2.0 * e + std::fabs(lo) * 0x1p-52 + 0x1p-1073;
  if (r == reduction::nrm2) return round_bounded_sqrt(bounded{hi, lo, err}, mode, out);
  return hd::round_bounded(hi, lo, err, mode, out);
}

gemv_form form_of(layout lay, transpose trans, std::int64_t m, std::int64_t n, const double* a, std::int64_t lda) {
  const bool col = lay == layout::col_major, tr = trans == transpose::trans;
  const std::int64_t outputs = tr ? n : m, terms = tr ? m : n;
  // Column-major A(i, j) = a[i + j lda]; row-major a[i lda + j].
  if (col != tr) return {outputs, terms, a, 1, lda};  // col N, row T: outputs contiguous
  return {outputs, terms, a, lda, 1};                 // col T, row N: terms contiguous
}

void gemv_output_exact(const gemv_form& f, std::int64_t o, double alpha, const double* x, std::int64_t incx,
                       double beta, double* yo, rounding mode) {
  superaccumulator acc;
  for (std::int64_t l = 0; l < f.terms; ++l)
    acc.add_product(f.a[o * f.so + l * f.sl], x[element(l, f.terms, incx)]);
  *yo = beta == 0.0 ? round_axpby(alpha, acc, 0.0, 0.0, mode) : round_axpby(alpha, acc, beta, *yo, mode);
}

namespace {

// The pairwise tree over a power-of-two count of states (lane k takes lane
// k + w for w = count / 2, ..., 1: the CUDA block and warp trees).
state fold(std::vector<state>& st) {
  for (std::size_t w = st.size() / 2; w >= 1; w /= 2)
    for (std::size_t k = 0; k < w; ++k) merge(st[k], st[k + w]);
  return st[0];
}

}  // namespace

double reduce_exact(reduction r, std::int64_t n, const double* x, std::int64_t incx, const double* y,
                    std::int64_t incy, rounding mode) {
  const exec ex{backend::simd, 0, mode};
  switch (r) {
    case reduction::dot: return exala::dot(n, x, incx, y, incy, ex);
    case reduction::sum: return exala::sum(n, x, incx, ex);
    case reduction::asum: return exala::asum(n, x, incx, ex);
    case reduction::nrm2: return exala::nrm2(n, x, incx, ex);
  }
  return 0.0;
}

double reduce_host(reduction r, std::int64_t n, const double* x, std::int64_t incx, const double* y,
                   std::int64_t incy, rounding mode, run_stats* st) {
  if (st) *st = run_stats{};
  const std::int64_t chunks = (n + dot_chunk - 1) / dot_chunk;
  std::vector<state> parts(static_cast<std::size_t>(chunks));
  std::vector<state> lanes(dot_chains);
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t b = c * dot_chunk, e = std::min(n, b + dot_chunk);
    std::fill(lanes.begin(), lanes.end(), state{});
    for (std::int64_t t = 0; t < dot_chains; ++t)
      for (std::int64_t l = b + t; l < e; l += dot_chains)
        add_term(lanes[static_cast<std::size_t>(t)], r, x[element(l, n, incx)],
                 r == reduction::dot ? y[element(l, n, incy)] : 0.0);
    parts[static_cast<std::size_t>(c)] = fold(lanes);
  }
  double v;
  if (n > 0 && round_chunks(parts.data(), chunks, n, r, mode, v)) return v;
  if (st) st->exact = 1;
  return reduce_exact(r, n, x, incx, y, incy, mode);
}

void gemv_host(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha, const double* a,
               std::int64_t lda, const double* x, std::int64_t incx, double beta, double* y, std::int64_t incy,
               rounding mode, run_stats* st) {
  if (st) *st = run_stats{};
  const gemv_form f = form_of(lay, trans, m, n, a, lda);
  if (f.outputs == 0) return;
  if (alpha == 0.0 || f.terms == 0) {  // no products: the front end's conventions
    exala::gemv(lay, trans, m, n, alpha, a, lda, x, incx, beta, y, incy, exec{backend::simd, 0, mode});
    return;
  }
  const bool rows = f.so == 1;  // outputs along the contiguous dimension
  const int chains = rows ? row_groups(f.outputs, f.terms) : col_chains;
  const std::int64_t len = (f.terms + chains - 1) / chains;  // rows: a chain's range
  std::vector<state> lanes(static_cast<std::size_t>(chains));
  for (std::int64_t o = 0; o < f.outputs; ++o) {
    std::fill(lanes.begin(), lanes.end(), state{});
    for (int g = 0; g < chains; ++g) {
      if (rows) {
        for (std::int64_t l = g * len; l < std::min(f.terms, (g + 1) * len); ++l)
          step(lanes[g], f.a[o + l * f.sl], x[element(l, f.terms, incx)]);
      } else {
        for (std::int64_t l = g; l < f.terms; l += chains)
          step(lanes[g], f.a[o * f.so + l], x[element(l, f.terms, incx)]);
      }
    }
    const state s = fold(lanes);
    double* yo = y + element(o, f.outputs, incy);
    double v;
    if (round_state(s, static_cast<double>(f.terms), chains, alpha, beta, *yo, mode, v)) {
      *yo = v;
    } else {
      gemv_output_exact(f, o, alpha, x, incx, beta, yo, mode);
      if (st) ++st->exact;
    }
  }
}

trsv_form trsv_form_of(layout lay, uplo ul, transpose trans, std::int64_t n, const double* a, std::int64_t lda,
                       double* x, std::int64_t incx) {
  const bool col = lay == layout::col_major, tr = trans == transpose::trans;
  // op(A)(i, j) = a[i r + j c]
  const std::int64_t r = col != tr ? 1 : lda, c = col != tr ? lda : 1;
  const std::int64_t e0 = incx >= 0 ? 0 : (n - 1) * -incx;  // element(i) = e0 + i incx
  (void)x;
  if ((ul == uplo::lower) == !tr) return {n, a, r, c, e0, incx};
  return {n, a + (n - 1) * (r + c), -r, -c, e0 + (n - 1) * incx, -incx};
}

double trsv_row_exact(diag dg, std::int64_t n, const double* row, const double* xneg, std::int64_t i, double b,
                      rounding mode) {
  // The row as a row-major matrix with lda 0: op(A)(i, j) = row[j].
  return trsv_entry_exact(layout::row_major, uplo::lower, transpose::none, dg, n, 1.0, b, row, 0, xneg, i,
                          exec{backend::simd, 0, mode});
}

void trsv_host(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, const double* a, std::int64_t lda,
               double* x, std::int64_t incx, rounding mode, run_stats* st) {
  if (st) *st = run_stats{};
  const bool unit = dg == diag::unit;
  if (!unit)
    for (std::int64_t i = 0; i < n; ++i)
      if (a[i * lda + i] == 0.0) throw singular_matrix("trsv", i);
  const trsv_form f = trsv_form_of(lay, ul, trans, n, a, lda, x, incx);
  std::vector<double> xneg(static_cast<std::size_t>(n)), row(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    state s;
    for (std::int64_t j = 0; j < i; ++j) step(s, f.at(i, j), -xneg[j]);
    const double b = x[f.xi(i)];
    double v;
    if (!trsv_decide(s, static_cast<double>(i), b, f.at(i, i), unit, mode, v)) {
      for (std::int64_t j = 0; j <= i; ++j) row[j] = f.at(i, j);
      v = trsv_row_exact(dg, n, row.data(), xneg.data(), i, b, mode);
      if (st) ++st->exact;
    }
    x[f.xi(i)] = v;
    xneg[i] = -v;
  }
}

}  // namespace exala::detail::dot2
