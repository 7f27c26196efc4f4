// gemv: y_i = round(alpha * sum_j op(A)_ij x_j + beta * y_i), each entry from
// its exact value (contract in exala/blas2.hpp).
//
// Every backend forms the same exact sums and rounds them with the same
// routine (exala::round_axpby), so the bits cannot depend on the backend, the
// thread count or the row blocking: the backends only differ in speed.
#include <algorithm>
#include <cstdint>
#include <vector>

#ifdef EXALA_HAVE_OPENMP
#include <omp.h>
#endif

#include "exala/blas2.hpp"
#include "exala/detail/opencl_hooks2.hpp"
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

}  // namespace detail

void gemv(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha,
          const double* a, std::int64_t lda, const double* x, std::int64_t incx, double beta,
          double* y, std::int64_t incy, const exec& ex) {
  using namespace detail;
  check_nonneg("m", m);
  check_nonneg("n", n);
  check_ld("lda", lda, lay == layout::row_major ? n : m);
  check_exec(ex);
  const std::int64_t rows = trans == transpose::none ? m : n;  // of op(A), = length of y
  const std::int64_t cols = trans == transpose::none ? n : m;  // = length of x
  // Every address below stays within 2^60 - 1 elements (also on the paths
  // that read neither A nor x).
  check_matrix_extent("a", "lda", lay == layout::row_major, m, n, lda);
  check_vector_span("incx", cols, incx);
  check_vector_span("incy", rows, incy);
  const bool reads_a = alpha != 0.0 && cols > 0 && rows > 0;
  if (reads_a) {
    check_ptr("a", a, m * n);
    check_ptr("x", x, cols);
  }
  check_ptr("y", y, rows);
  check_written_inc("incy", incy, rows);
  if (rows == 0) return;

  if (!reads_a) {
    for (std::int64_t i = 0; i < rows; ++i) {
      double& yi = y[vec_index(i, rows, incy)];
      yi = scale_only(beta, yi, ex.mode);
    }
    return;
  }

  if (ex.backend == backend::opencl) {  // exact device kernels (exala::gpu), same bits
    require_opencl_blas2_hooks("gemv").gemv(lay, trans, m, n, alpha, a, lda, x, incx, beta, y, incy,
                                            ex.mode);
    return;
  }

  const mat_view A = op_view(lay, trans, a, lda);
  const std::vector<double> xb = gather(x, cols, incx);
  // Rows are handled in blocks (one accumulator each); omp splits the blocks
  // over threads. Small problems stay on one thread.
  constexpr std::int64_t block_rows = 16;
  const std::int64_t nblocks = (rows + block_rows - 1) / block_rows;
  auto do_block = [&](std::int64_t blk, std::vector<double>& buf) {
    const std::int64_t i0 = blk * block_rows;
    const std::int64_t r = std::min(block_rows, rows - i0);
    superaccumulator acc[block_rows];
    add_row_products(acc, A, i0, r, xb.data(), 0, cols, ex.backend, buf);
    for (std::int64_t k = 0; k < r; ++k) {
      double& yi = y[vec_index(i0 + k, rows, incy)];
      const double v = finish_entry(alpha, acc[k], beta, yi, ex.mode);
      // The kernels may leave S's term flags incomplete; they only matter
      // when S is exactly zero, and then the result is zero too: only then
      // complete them and round again.
      if (v == 0.0) {
        finish_row_flags(acc[k], A, i0 + k, xb.data(), 0, cols);
        yi = finish_entry(alpha, acc[k], beta, yi, ex.mode);
      } else {
        yi = v;
      }
    }
  };

  int threads = 1;
#ifdef EXALA_HAVE_OPENMP
  if (ex.backend == backend::omp) {
    constexpr std::int64_t min_products_per_thread = 65536;
    const std::int64_t wanted = ex.threads > 0 ? ex.threads : omp_get_max_threads();
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
