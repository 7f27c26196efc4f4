// blas2_bench.cpp - exala-bench gemv | trsv: ExaLA's correctly rounded gemv
// and reproducible trsv against a naive loop and OpenBLAS.
//
// gemv: y = A x (alpha 1, beta 0: y is not read), A n x n in --layout (row
//   by default), x and y of n. Data: U[-1,1], or with --data wide
//   U[-1,1] * 2^k, k uniform in [-200, 200] (A and x). Baselines: `naive`,
//   the plain loop (row-major: one dot product per row; column-major: one
//   axpy per column), with OpenMP over rows when threads > 1; `openblas`,
//   cblas_dgemv with openblas_set_num_threads(threads).
// trsv: T x = b, T n x n lower triangular, non-unit, well conditioned
//   (fill_lower_triangular: x stays O(1)), b U[-1,1]. Every call copies b
//   into x and solves in place (the copy, n doubles, is in every
//   contender's time). Baselines: `naive`, the plain substitution loop
//   (sequential); `openblas`, cblas_dtrsv (its threads set as for gemv;
//   OpenBLAS 0.3.21 runs dtrsv on one thread).
// --check: y (gemv) or x (trsv) of every timed backend must equal the
//   reference backend's bit for bit.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "exala/backend.hpp"
#include "exala/blas2.hpp"

#ifdef EXALA_BENCH_HAVE_OPENMP
#include <omp.h>
#endif
#ifdef EXALA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace exala_bench {
namespace {

constexpr int wide_exp = 200;

__attribute__((noinline)) void naive_gemv(const double* a, std::int64_t n, bool row_major,
                                          const double* x, double* y, int threads) {
  if (row_major) {
#ifdef EXALA_BENCH_HAVE_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
#endif
    for (std::int64_t i = 0; i < n; ++i) {
      const double* row = a + i * n;
      double s = 0.0;
      for (std::int64_t j = 0; j < n; ++j) s += row[j] * x[j];
      y[i] = s;
    }
  } else {
    // Rows split among threads, each running the column (axpy) order.
#ifdef EXALA_BENCH_HAVE_OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
    {
      std::int64_t lo = 0, hi = n;
#ifdef EXALA_BENCH_HAVE_OPENMP
      const std::int64_t nt = omp_get_num_threads(), id = omp_get_thread_num();
      lo = n * id / nt;
      hi = n * (id + 1) / nt;
#endif
      for (std::int64_t i = lo; i < hi; ++i) y[i] = 0.0;
      for (std::int64_t j = 0; j < n; ++j) {
        const double* col = a + j * n;
        const double xj = x[j];
        for (std::int64_t i = lo; i < hi; ++i) y[i] += col[i] * xj;
      }
    }
  }
  (void)threads;
}

#ifdef EXALA_BENCH_HAVE_OPENBLAS
CBLAS_ORDER order(bool row_major) { return row_major ? CblasRowMajor : CblasColMajor; }
#endif

int run_gemv(const options& o) {
  const std::int64_t n = o.n;
  const int touch = max_threads(o);
  buffer ab = allocate_touched(n * n, touch);
  buffer xb = allocate_touched(n, touch);
  buffer yb = allocate_touched(n, touch);
  buffer refb = allocate_touched(n, 1);
  std::mt19937_64 gen(o.seed);
  fill(ab.get(), n * n, o.data, wide_exp, gen);
  fill(xb.get(), n, o.data, wide_exp, gen);
  const double* a = ab.get();
  const double* x = xb.get();
  double* y = yb.get();
  const exala::layout lay = o.row_major ? exala::layout::row_major : exala::layout::col_major;
  const bool row = o.row_major;

  const auto ours = [=](const exala::exec& ex) {
    exala::gemv(lay, exala::transpose::none, n, n, 1.0, a, n, x, 1, 0.0, y, 1, ex);
    return y[0] + y[n - 1];
  };
  if (o.check) {
    ours(exala::exec{exala::backend::reference, 1, {}});
    std::memcpy(refb.get(), y, static_cast<std::size_t>(n) * sizeof(double));
  }

  print_header();
  for (const exala::backend b : o.backends) {
    const int t = threads_for(o, b);
    const exala::exec ex{b, t, exala::rounding::to_nearest_even};
    if (o.check) {
      ours(ex);
      check_same_bits("gemv backend=" + std::string(exala::to_string(b)) +
                          " threads=" + std::to_string(t) + " n=" + std::to_string(n),
                      y, refb.get(), n);
    }
    set_openblas_threads(t);
    std::vector<contender> cs;
    cs.emplace_back("ours", [&ours, ex] { return ours(ex); });
    cs.emplace_back("naive", [=] {
      naive_gemv(a, n, row, x, y, t);
      return y[0] + y[n - 1];
    });
#ifdef EXALA_BENCH_HAVE_OPENBLAS
    cs.emplace_back("openblas", [=] {
      cblas_dgemv(order(row), CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(n), 1.0,
                  a, static_cast<blasint>(n), x, 1, 0.0, y, 1);
      return y[0] + y[n - 1];
    });
#endif
    run_interleaved(cs, o.reps);
    print_rows("gemv", exala::to_string(b), n, t, cs);
  }
  return 0;
}

int run_trsv(const options& o) {
  const std::int64_t n = o.n;
  const int touch = max_threads(o);
  buffer ab = allocate_touched(n * n, touch);
  buffer bb = allocate_touched(n, touch);
  buffer xb = allocate_touched(n, touch);
  buffer refb = allocate_touched(n, 1);
  std::mt19937_64 gen(o.seed);
  fill_lower_triangular(ab.get(), n, o.row_major, gen);
  fill(bb.get(), n, data_kind::uniform, 0, gen);
  const double* a = ab.get();
  const double* rhs = bb.get();
  double* x = xb.get();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(double);
  const exala::layout lay = o.row_major ? exala::layout::row_major : exala::layout::col_major;
  const bool row = o.row_major;

  const auto ours = [=](const exala::exec& ex) {
    std::memcpy(x, rhs, bytes);
    exala::trsv(lay, exala::uplo::lower, exala::transpose::none, exala::diag::non_unit, n, a, n, x,
                1, ex);
    return x[0] + x[n - 1];
  };
  if (o.check) {
    ours(exala::exec{exala::backend::reference, 1, {}});
    std::memcpy(refb.get(), x, bytes);
  }

  print_header();
  for (const exala::backend b : o.backends) {
    const int t = threads_for(o, b);
    const exala::exec ex{b, t, exala::rounding::to_nearest_even};
    if (o.check) {
      ours(ex);
      check_same_bits("trsv backend=" + std::string(exala::to_string(b)) +
                          " threads=" + std::to_string(t) + " n=" + std::to_string(n),
                      x, refb.get(), n);
    }
    set_openblas_threads(t);
    std::vector<contender> cs;
    cs.emplace_back("ours", [&ours, ex] { return ours(ex); });
    cs.emplace_back("naive", [=] {
      std::memcpy(x, rhs, bytes);
      naive_trsv_lower(a, n, row, x);
      return x[0] + x[n - 1];
    });
#ifdef EXALA_BENCH_HAVE_OPENBLAS
    cs.emplace_back("openblas", [=] {
      std::memcpy(x, rhs, bytes);
      cblas_dtrsv(order(row), CblasLower, CblasNoTrans, CblasNonUnit, static_cast<blasint>(n), a,
                  static_cast<blasint>(n), x, 1);
      return x[0] + x[n - 1];
    });
#endif
    run_interleaved(cs, o.reps);
    print_rows("trsv", exala::to_string(b), n, t, cs);
  }
  return 0;
}

}  // namespace

int run_blas2(const options& o) { return o.routine == "gemv" ? run_gemv(o) : run_trsv(o); }

}  // namespace exala_bench
