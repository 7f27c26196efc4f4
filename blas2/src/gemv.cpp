// gemv: y_i = round(alpha * sum_j op(A)_ij x_j + beta * y_i), each entry from
// its exact value (contract in exala/blas2.hpp).
//
// Every backend forms the same exact sums and rounds them with the same
// routine (exala::round_axpby), so the bits cannot depend on the backend, the
// thread count or the row blocking: the backends only differ in speed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "exala/blas2.hpp"
#include "exala/detail/opencl_hooks2.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/exact_ops.hpp"
#include "level2_common.hpp"

namespace exala {

namespace detail {

// round(beta * y) alone (an empty or alpha == 0 sum): one IEEE product.
double scale_only(double beta, double y, rounding mode) noexcept {
  if (beta == 0.0) return 0.0;  // y is not read
  superaccumulator t;
  t.add_product(beta, y);
  return t.round(mode);
}

// y = round(alpha * S + beta * y), with beta == 0 not reading y.
double finish_entry(double alpha, const superaccumulator& s, double beta, double y,
                    rounding mode) noexcept {
  if (beta == 0.0) return round_axpby(alpha, s, 0.0, 0.0, mode);
  return round_axpby(alpha, s, beta, y, mode);
}

// Longest row the bounded fast path takes: its bound grows with the length
// (it is stated up to 2^24), and long rows are the exact kernels' ground.
constexpr std::int64_t fast_gemv_max_cols = std::int64_t{1} << 20;

// The bounded fast path for rows [i0, i0 + r) (r <= 16) of op(A) x: writes
// every row it decides and sets left[k] for the others.
void fast_rows(const mat_view& A, std::int64_t i0, std::int64_t r, std::int64_t cols,
               const double* x, double alpha, double beta, double* y, std::int64_t rows,
               std::int64_t incy, rounding mode, bool* left) {
  bounded b[16];
  const auto n = static_cast<std::size_t>(cols);
  if (A.cs == 1) {  // contiguous rows: one horizontal Dot2 each
    for (std::int64_t k = 0; k < r; ++k)
      if (!dot_bounded(A.row(i0 + k), x, n, b[k])) b[k].err = std::nan("");
  } else {  // rows strided, columns contiguous: one row per lane
    const auto R = static_cast<std::int64_t>(rows_bounded_block());
    for (std::int64_t k0 = 0; k0 < r; k0 += R)
      rows_bounded(A.row(i0 + k0), A.cs, static_cast<std::size_t>(std::min(R, r - k0)), n, x, b + k0);
  }
  // To nearest, the composition alpha S + beta y and its decision run in
  // SIMD lanes for the whole block (axpby_nearest; the scalar
  // round_bounded_axpby costs ~40 ns a row); rows it leaves, and every row
  // in a directed mode, take the scalar decision.
  unsigned char vleft[16];
  std::size_t nleft = 0;
  if (mode == rounding::to_nearest_even) {
    double hi[16], lo[16], er[16], yv[16], out[16];
    for (std::int64_t k = 0; k < r; ++k) {
      hi[k] = b[k].hi, lo[k] = b[k].lo, er[k] = b[k].err;
      yv[k] = beta == 0.0 ? 0.0 : y[vec_index(i0 + k, rows, incy)];
    }
    if (axpby_nearest(hi, lo, er, alpha, beta, yv, out, static_cast<std::size_t>(r), vleft, nleft)) {
      for (std::int64_t k = 0; k < r; ++k)
        if (!vleft[k]) y[vec_index(i0 + k, rows, incy)] = out[k];
    } else {
      for (std::int64_t k = 0; k < r; ++k) vleft[k] = 1;
    }
  } else {
    for (std::int64_t k = 0; k < r; ++k) vleft[k] = 1;
  }
  for (std::int64_t k = 0; k < r; ++k) {
    left[k] = false;
    if (!vleft[k]) continue;
    double& yi = y[vec_index(i0 + k, rows, incy)];
    double v;
    left[k] = !round_bounded_axpby(alpha, b[k], beta, beta == 0.0 ? 0.0 : yi, mode, v);
    if (!left[k]) yi = v;
  }
}

// A row whose products are all exact zeros (each pair has a zero factor and
// a finite other factor: structured matrices, Householder vectors with
// zeros) has S = 0 exactly, which no bound decides when beta y is zero or
// the mode is directed. Its entry follows round_axpby's rules without an
// accumulator: round(beta y) for a nonzero beta y, else the IEEE sign of
// alpha S + beta y, with S's zero sign from its products' signs (all -0:
// -0, all +0: +0, mixed: +0, -0 downward). False: some product is not an
// exact zero, or alpha, beta or y is not finite.
bool zero_row(const mat_view& A, std::int64_t i, std::int64_t cols, const double* x, double alpha,
              double beta, double& yi, rounding mode) noexcept {
  if (!std::isfinite(alpha) || !std::isfinite(beta) || (beta != 0.0 && !std::isfinite(yi))) return false;
  bool all_neg = true, all_pos = true;
  for (std::int64_t j = 0; j < cols; ++j) {
    const double av = A.at(i, j), xv = x[j];
    if (!((av == 0.0 && std::isfinite(xv)) || (xv == 0.0 && std::isfinite(av)))) return false;
    const bool sg = std::signbit(av) != std::signbit(xv);
    all_neg = all_neg && sg;
    all_pos = all_pos && !sg;
  }
  if (beta != 0.0 && yi != 0.0) {
    yi = scale_only(beta, yi, mode);
    return true;
  }
  const bool s_neg = all_neg ? true : (all_pos ? false : mode == rounding::downward);
  const bool sign1 = std::signbit(alpha) != s_neg;
  const bool sign2 = beta != 0.0 && std::signbit(beta) != std::signbit(yi);  // beta == 0: +0
  yi = sign1 == sign2 ? (sign1 ? -0.0 : 0.0) : (mode == rounding::downward ? -0.0 : 0.0);
  return true;
}

}  // namespace detail

void detail::check_gemv_arguments(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha,
                                  const double* a, std::int64_t lda, const double* x, std::int64_t incx,
                                  const double* y, std::int64_t incy) {
  using namespace detail;
  check_nonneg("m", m);
  check_nonneg("n", n);
  check_ld("lda", lda, lay == layout::row_major ? n : m);
  const std::int64_t rows = trans == transpose::none ? m : n;  // of op(A), = length of y
  const std::int64_t cols = trans == transpose::none ? n : m;  // = length of x
  // Every address below stays within 2^60 - 1 elements (also on the paths
  // that read neither A nor x).
  check_matrix_extent("a", "lda", lay == layout::row_major, m, n, lda);
  check_vector_span("incx", cols, incx);
  check_vector_span("incy", rows, incy);
  if (alpha != 0.0 && cols > 0 && rows > 0) {
    check_ptr("a", a, m * n);
    check_ptr("x", x, cols);
  }
  check_ptr("y", y, rows);
  check_written_inc("incy", incy, rows);
}

void gemv(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha,
          const double* a, std::int64_t lda, const double* x, std::int64_t incx, double beta,
          double* y, std::int64_t incy, const exec& ex) {
  using namespace detail;
  check_exec(ex);
  check_gemv_arguments(lay, trans, m, n, alpha, a, lda, x, incx, y, incy);
  const std::int64_t rows = trans == transpose::none ? m : n;  // of op(A), = length of y
  const std::int64_t cols = trans == transpose::none ? n : m;  // = length of x
  const bool reads_a = alpha != 0.0 && cols > 0 && rows > 0;
  if (rows == 0) return;

  if (!reads_a) {
    for (std::int64_t i = 0; i < rows; ++i) {
      double& yi = y[vec_index(i, rows, incy)];
      yi = scale_only(beta, yi, ex.mode);
    }
    return;
  }

  if (ex.backend == backend::opencl) {  // exact device kernels (exala::gpu), same bits
    require_hooks<opencl_blas2_hooks>(backend::opencl, hook_kind::blas2, "gemv").gemv(lay, trans, m, n, alpha, a, lda, x, incx, beta, y, incy,
                                            ex.mode);
    return;
  }

  const mat_view A = op_view(lay, trans, a, lda);
  std::vector<double> xb;  // x gathered when it is strided
  const double* xs = x;
  if (incx != 1) {
    xb = gather(x, cols, incx);
    xs = xb.data();
  }
  // The bounded fast path (simd, omp): each row's value from a Dot2
  // evaluation with a proven bound, decided by round_bounded_axpby; only
  // rows it cannot decide go through an exact accumulator. Same bits.
  const bool fast = runs_host_simd(ex.backend) &&
                    cols <= fast_gemv_max_cols &&
                    rows_bounded_block() > 0;  // a kernel set with the bounded kernels
  // Rows are handled in blocks (one accumulator each); omp splits the blocks
  // over threads. Small problems stay on one thread.
  constexpr std::int64_t block_rows = 16;
  const std::int64_t nblocks = (rows + block_rows - 1) / block_rows;
  // The exact path for row i (its accumulator holds the row's products).
  auto exact_row = [&](std::int64_t i, superaccumulator& acc) {
    double& yi = y[vec_index(i, rows, incy)];
    const double v = finish_entry(alpha, acc, beta, yi, ex.mode);
    // The kernels may leave S's term flags incomplete; they only matter
    // when S is exactly zero, and then the result is zero too: only then
    // complete them and round again.
    if (v == 0.0) {
      finish_row_flags(acc, A, i, xs, 0, cols);
      yi = finish_entry(alpha, acc, beta, yi, ex.mode);
    } else {
      yi = v;
    }
  };
  auto do_block = [&](std::int64_t blk, std::vector<double>& buf) {
    const std::int64_t i0 = blk * block_rows;
    const std::int64_t r = std::min(block_rows, rows - i0);
    if (fast) {
      bool left[block_rows];
      fast_rows(A, i0, r, cols, xs, alpha, beta, y, rows, incy, ex.mode, left);
      for (std::int64_t k = 0; k < r; ++k) {
        if (!left[k] || zero_row(A, i0 + k, cols, xs, alpha, beta, y[vec_index(i0 + k, rows, incy)], ex.mode))
          continue;
        superaccumulator acc;
        add_row_products(&acc, A, i0 + k, 1, xs, 0, cols, ex.backend, buf);
        exact_row(i0 + k, acc);
      }
      return;
    }
    superaccumulator acc[block_rows];
    add_row_products(acc, A, i0, r, xs, 0, cols, ex.backend, buf);
    for (std::int64_t k = 0; k < r; ++k) exact_row(i0 + k, acc[k]);
  };

  int threads = 1;
#ifdef EXALA_HAVE_OPENMP
  if (ex.backend == backend::omp) {
    constexpr std::int64_t min_products_per_thread = 65536;
    const std::int64_t wanted = threads_of(ex);
    const std::int64_t useful = std::max<std::int64_t>(1, rows * cols / min_products_per_thread);
    threads = static_cast<int>(std::min({wanted, useful, nblocks}));
  }
#endif
  // A bad EXALA_SIMD must throw here, not inside a parallel region.
  if (ex.backend != backend::reference) active_kernel_set();
  if (threads <= 1) {
    std::vector<double> buf;
    for (std::int64_t b = 0; b < nblocks; ++b) do_block(b, buf);
    return;
  }
#ifdef EXALA_HAVE_OPENMP
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> buf;
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < nblocks; ++b) do_block(b, buf);
  }
#endif
}

}  // namespace exala
