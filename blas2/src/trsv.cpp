// trsv: reproducible triangular solve, each x_i the correctly rounded
// quotient of its exact numerator (contract in exala/blas2.hpp).
//
// Blocked algorithm of Iakymchuk, Defour, Collange, Graillat (ITNG 2015):
// the rows are taken in blocks of exec.block in solve order; for each block,
//  1. panel: every row's exact products with the solutions already known
//     (outside the block) go into that row's accumulator, in parallel over
//     rows (omp), with the SIMD dot kernels;
//  2. diagonal block: row by row, the products with the block's earlier
//     solutions join the accumulator, and x_i = round(numerator / a_ii).
// The solutions are kept negated so that the accumulators only ever add:
// numerator_i = alpha b_i + sum_j op(A)_ij (-x_j), all terms exact. Each x_i
// is a function of the exact numerator alone, so the block size, the
// backend and the thread count cannot change a bit.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exala/blas2.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/detail/opencl_hooks2.hpp"
#include "exala/exact_ops.hpp"
#include "level2_common.hpp"

namespace exala {

namespace {

using detail::bounded;
using detail::mat_view;

// Longest system that tries the bounded fast path (its bound is stated for
// rows up to 2^24 products).
constexpr std::int64_t fast_trsv_max = std::int64_t{1} << 20;

// The panel of rows [i, i + rr) over the known solutions [k0, k1), bounded.
void fast_panel(bounded* out, const mat_view& A, std::int64_t i, std::int64_t rr, const double* xneg,
                std::int64_t k0, std::int64_t k1) {
  const auto len = static_cast<std::size_t>(k1 - k0);
  if (len == 0) {
    for (std::int64_t r = 0; r < rr; ++r) out[r] = bounded{0.0, 0.0, 0.0};
    return;
  }
  if (A.cs == 1) {  // contiguous rows: one horizontal Dot2 each
    for (std::int64_t r = 0; r < rr; ++r)
      if (!detail::dot_bounded(A.row(i + r) + k0, xneg + k0, len, out[r])) out[r].err = std::nan("");
    return;
  }
  const auto R = static_cast<std::int64_t>(detail::rows_bounded_block());  // one row per lane
  for (std::int64_t r0 = 0; r0 < rr; r0 += R)
    detail::rows_bounded(A.row(i + r0) + k0 * A.cs, A.cs, static_cast<std::size_t>(std::min(R, rr - r0)),
                         len, xneg + k0, out + r0);
}

// x_i from the panel's bound, the in-block products [j0, j1) and alpha b_i,
// or false (the caller then forms the exact numerator).
bool fast_solution(const bounded& panel, const mat_view& A, std::int64_t i, const double* xneg,
                   std::int64_t j0, std::int64_t j1, double alpha, double bi, bool unit, rounding mode,
                   double& xi) {
  // One Dot2 of the in-block products with the panel's hi and lo and
  // alpha b_i as extra terms; the panel's own error bound is added after.
  const double terms[2] = {panel.hi, panel.lo};
  bounded num;
  if (!(panel.err >= 0.0) ||
      !detail::strided_bounded(A.row(i) + j0 * A.cs, A.cs, xneg + j0, static_cast<std::size_t>(j1 - j0),
                               terms, 2, alpha, bi, num))
    return false;
  num.err = 2.0 * (num.err + panel.err);  // twice: the rounding of the sum
  return unit ? detail::round_bounded(num.hi, num.lo, num.err, mode, xi)
              : detail::round_bounded_div(num, A.at(i, i), mode, xi);
}

}  // namespace

void detail::check_trsv_arguments(layout lay, std::int64_t n, const double* a, std::int64_t lda, const double* x,
                                  std::int64_t incx, bool reads_a) {
  check_nonneg("n", n);
  check_ld("lda", lda, n);
  // Every address below stays within 2^60 - 1 elements (also for alpha == 0).
  check_matrix_extent("a", "lda", lay == layout::row_major, n, n, lda);
  check_vector_span("incx", n, incx);
  check_ptr("x", x, n);
  check_written_inc("incx", incx, n);
  if (reads_a) check_ptr("a", a, n * n);
}

void detail::trsv_scaled(const char* routine, layout lay, uplo ul, transpose trans, diag dg,
                         std::int64_t n, double alpha, const double* a, std::int64_t lda,
                         double* x, std::int64_t incx, const exec& ex) {
  check_exec(ex);
  check_trsv_arguments(lay, n, a, lda, x, incx, alpha != 0.0);
  if (n == 0) return;
  if (alpha == 0.0) {  // X = 0 without reading A (trsm's convention)
    for (std::int64_t i = 0; i < n; ++i) x[vec_index(i, n, incx)] = 0.0;
    return;
  }
  const bool unit = dg == diag::unit;
  if (!unit)
    for (std::int64_t i = 0; i < n; ++i)
      if (a[i * lda + i] == 0.0) throw singular_matrix(routine, i);
  if (ex.backend == backend::opencl) {  // exact device kernels (exala::gpu), same bits
    require_hooks<opencl_blas2_hooks>(backend::opencl, hook_kind::blas2, routine).trsv_scaled(routine, lay, ul, trans, dg, n, alpha, a, lda, x,
                                                    incx, ex.mode);
    return;
  }

  const mat_view A = op_view(lay, trans, a, lda);
  const bool forward = (ul == uplo::lower) == (trans == transpose::none);
  const std::vector<double> b = gather(x, n, incx);
  std::vector<double> xneg(static_cast<std::size_t>(n), 0.0);  // -x_j once solved
  // The bounded fast path (simd, omp): each numerator bounded by Dot2, each
  // x_i decided by round_bounded_div (Ziv); a row it cannot decide forms its
  // exact numerator in an accumulator as below. Same bits either way.
  const bool fast = runs_host_simd(ex.backend) && n <= fast_trsv_max &&
                    rows_bounded_block() > 0;  // a kernel set with the bounded kernels
  const int team = detail::threads_of(ex);
  // Default block: 32 rows; on the fast path one lane block (8 or 16 rows)
  // per thread, two with several threads, which keeps the sequential
  // in-block part short (the panel is in lanes).
  const std::int64_t lane_rows = static_cast<std::int64_t>(fast ? rows_bounded_block() : 0);
  const std::int64_t default_bs =
      !fast ? 32 : (team > 1 ? 2 * lane_rows * std::min(team, 4) : lane_rows);
  const std::int64_t bs = std::min<std::int64_t>(ex.block > 0 ? ex.block : default_bs, n);
  std::vector<bounded> pb(fast ? static_cast<std::size_t>(bs) : 0);
  // Accumulators: every row's on the exact path (the fast path's fallback,
  // trsv_entry_exact, builds its own).
  std::vector<superaccumulator> acc(fast ? 0 : static_cast<std::size_t>(bs));
  std::vector<double> buf;
  if (ex.backend != backend::reference) active_kernel_set();  // throw here, not in a thread

  const std::int64_t nblocks = (n + bs - 1) / bs;
  for (std::int64_t blk = 0; blk < nblocks; ++blk) {
    // Rows [i0, i1) of this block; the known solutions are the columns
    // [0, i0) (forward) or [i1, n) (backward).
    const auto [i0, i1, k0, k1] = detail::block_of(blk, bs, n, forward);
    const std::int64_t rows = i1 - i0;
    if (!fast)
      for (std::int64_t r = 0; r < rows; ++r) {
        acc[r].clear();
        acc[r].add_product(alpha, b[i0 + r]);
      }
    // 1. Panel, in groups of rows (one packing buffer per thread), at most
    // 16 rows a group and enough groups for every thread.
    int threads = 1;
#ifdef EXALA_HAVE_OPENMP
    constexpr std::int64_t min_products_per_thread = 32768;
    threads = static_cast<int>(std::min<std::int64_t>(
        {team, rows, std::max<std::int64_t>(1, rows * (k1 - k0) / min_products_per_thread)}));
#endif
    const std::int64_t group = std::min<std::int64_t>(16, (rows + threads - 1) / threads);
    const std::int64_t ngroups = (rows + group - 1) / group;
    auto panel_group = [&](std::int64_t g, std::vector<double>& gbuf) {
      const std::int64_t r0 = g * group;
      const std::int64_t rr = std::min(group, rows - r0);
      if (fast) fast_panel(pb.data() + r0, A, i0 + r0, rr, xneg.data(), k0, k1);
      else add_row_products(acc.data() + r0, A, i0 + r0, rr, xneg.data(), k0, k1, ex.backend, gbuf);
    };
    if (threads <= 1) {
      for (std::int64_t g = 0; g < ngroups; ++g) panel_group(g, buf);
    } else {
#ifdef EXALA_HAVE_OPENMP
#pragma omp parallel num_threads(threads)
      {
        std::vector<double> tbuf;
#pragma omp for schedule(static)
        for (std::int64_t g = 0; g < ngroups; ++g) panel_group(g, tbuf);
      }
#endif
    }
    // 2. Diagonal block, in solve order.
    for (std::int64_t s = 0; s < rows; ++s) {
      const std::int64_t r = forward ? s : rows - 1 - s;
      const std::int64_t i = i0 + r;
      const std::int64_t j0 = forward ? i0 : i + 1, j1 = forward ? i : i1;
      if (fast) {
        double xi;
        if (fast_solution(pb[r], A, i, xneg.data(), j0, j1, alpha, b[i], unit, ex.mode, xi)) {
          xneg[i] = -xi;
          continue;
        }
        // Undecided: x_i from its exact numerator.
        xneg[i] = -detail::trsv_entry_exact(lay, ul, trans, dg, n, alpha, b[i], a, lda, xneg.data(), i, ex);
        continue;
      }
      superaccumulator& ai = acc[r];
      // Short in-block rows go product by product (cheaper than a kernel call).
      const backend how = j1 - j0 < 96 ? backend::reference : ex.backend;
      add_row_products(&ai, A, i, 1, xneg.data(), j0, j1, how, buf);
      // The alpha*b term already set has_term; the products' zero signs only
      // matter for an exactly zero numerator, which gives a zero x_i: only
      // then are they rescanned (and x_i formed again).
      auto solve = [&] { return unit ? ai.round(ex.mode) : round_div(ai, A.at(i, i), ex.mode); };
      double xi = solve();
      if (xi == 0.0) {
        ai.or_flags(forward ? product_zero_flags(A, i, xneg.data(), 0, i)
                            : product_zero_flags(A, i, xneg.data(), i + 1, n));
        xi = solve();
      }
      xneg[i] = -xi;
    }
  }
  for (std::int64_t i = 0; i < n; ++i) x[vec_index(i, n, incx)] = -xneg[i];
}

double detail::trsv_entry_exact(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                                double alpha, double bi, const double* a, std::int64_t lda,
                                const double* xneg, std::int64_t i, const exec& ex) {
  const mat_view A = op_view(lay, trans, a, lda);
  const bool forward = (ul == uplo::lower) == (trans == transpose::none);
  const std::int64_t j0 = forward ? 0 : i + 1, j1 = forward ? i : n;
  superaccumulator acc;
  acc.add_product(alpha, bi);
  std::vector<double> buf;
  add_row_products(&acc, A, i, 1, xneg, j0, j1, ex.backend == backend::reference ? backend::reference
                                                                                    : backend::simd,
                   buf);
  const bool unit = dg == diag::unit;
  auto solve = [&] { return unit ? acc.round(ex.mode) : round_div(acc, A.at(i, i), ex.mode); };
  double xi = solve();
  if (xi == 0.0) {  // the IEEE sign of a zero numerator comes from the products' zero signs
    acc.or_flags(product_zero_flags(A, i, xneg, j0, j1));
    xi = solve();
  }
  return xi;
}

void trsv(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, const double* a,
          std::int64_t lda, double* x, std::int64_t incx, const exec& ex) {
  detail::trsv_scaled("trsv", lay, ul, trans, dg, n, 1.0, a, lda, x, incx, ex);
}

}  // namespace exala
