// blas3_bench.cpp - exala-bench gemm | trsm: ExaLA's correctly rounded gemm
// and reproducible trsm against OpenBLAS.
//
// gemm: C = A B (alpha 1, beta 0: C is not read), A, B, C n x n in --layout
//   (row by default); with --k K, the update C = C - A B (A n x K, B K x n,
//   alpha -1, beta 1, C reset from a fixed C0 before every call, in both
//   contenders' time): LAPACK's trailing updates. Data: U[-1,1], or with --data wide U[-1,1] * 2^k, k
//   uniform in [-200, 200] (a dynamic range of 2^400 in A and in B).
//   Baseline: `openblas`, cblas_dgemm with openblas_set_num_threads(threads).
//   No naive triple loop: at n = 2000 it would take longer than the rest of
//   the run together.
// trsm: A X = B (side left, lower, no transpose, non-unit, alpha 1), A n x n
//   well conditioned (fill_lower_triangular), B n x nrhs U[-1,1] (nrhs
//   defaults to n). Every call copies B into the output and solves in place
//   (the copy is in every contender's time). Baseline: `openblas`,
//   cblas_dtrsm with the same threads.
// syrk | syr2k | symm | trmm (issue 17): n x n operands in --layout, k = n,
//   alpha 1, beta 0 (C not read): syrk C = A A^T and syr2k C = A B^T + B A^T
//   on the upper triangle (no transpose); symm C = A B (side left, A
//   symmetric from its upper triangle); trmm B := A B (side left, lower, no
//   transpose, non-unit; every call copies B first, in every contender's
//   time). Data as gemm's (the triangles of full random matrices). Baselines: `openblas`, cblas_dsyrk /
//   cblas_dsyr2k / cblas_dsymm / cblas_dtrmm with the same threads.
// --check: C (gemm) or X (trsm) of every timed backend must equal the
//   reference backend's bit for bit (the reference backend is a plain scalar
//   loop: keep n small with --check).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "exala/backend.hpp"
#include "exala/blas3.hpp"

#ifdef EXALA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace exala_bench {
namespace {

constexpr int wide_exp = 200;

#ifdef EXALA_BENCH_HAVE_OPENBLAS
CBLAS_ORDER order(bool row_major) { return row_major ? CblasRowMajor : CblasColMajor; }
#endif

std::string what(std::string_view routine, exala::backend b, int t, std::int64_t n) {
  return std::string(routine) + " backend=" + std::string(exala::to_string(b)) +
         " threads=" + std::to_string(t) + " n=" + std::to_string(n);
}

// The driver of every routine below: with --check, `ours` on the reference
// backend first, then on each backend of the run, the `count` doubles at
// `out` compared bit for bit; then `ours` and `openblas` (empty in a build
// without OpenBLAS: nothing is timed) interleaved per backend, with
// OpenBLAS on the same thread count. Both write their result to `out`.
int compare_backends(const options& o, const std::string& routine, std::int64_t n,
                     const std::function<double(const exala::exec&)>& ours,
                     const std::function<double()>& openblas, const double* out, std::int64_t count) {
  buffer refb;
  if (o.check) {
    refb = allocate_touched(count, 1);
    ours(exala::exec{exala::backend::reference, 1, {}});
    std::memcpy(refb.get(), out, static_cast<std::size_t>(count) * sizeof(double));
  }
  print_header();
  for (const exala::backend be : o.backends) {
    const int t = threads_for(o, be);
    const exala::exec ex{be, t, exala::rounding::to_nearest_even};
    if (o.check) {
      ours(ex);
      check_same_bits(what(routine, be, t, n), out, refb.get(), count);
    }
    if (!openblas) continue;  // nothing to compare with in this build
    set_openblas_threads(t);
    std::vector<contender> cs;
    cs.emplace_back("ours", [&ours, ex] { return ours(ex); });
    cs.emplace_back("openblas", openblas);
    run_interleaved(cs, o.reps);
    print_rows(routine, exala::to_string(be), n, t, cs);
  }
  return 0;
}

int run_gemm(const options& o) {
  // C (n x n) = A B with A n x k, B k x n; with --k, the update C = C - A B
  // from a fixed C0 copied in before every call (in both contenders' time).
  const std::int64_t n = o.n, k = o.k > 0 ? o.k : n, nn = n * n;
  const bool update = o.k > 0;
  const double alpha = update ? -1.0 : 1.0, beta = update ? 1.0 : 0.0;
  const int touch = max_threads(o);
  buffer ab = allocate_touched(n * k, touch);
  buffer bb = allocate_touched(k * n, touch);
  buffer cb = allocate_touched(nn, touch);
  buffer c0b = allocate_touched(update ? nn : 1, touch);
  std::mt19937_64 gen(o.seed);
  fill(ab.get(), n * k, o.data, wide_exp, gen);
  fill(bb.get(), k * n, o.data, wide_exp, gen);
  if (update) fill(c0b.get(), nn, o.data, wide_exp, gen);
  const double* a = ab.get();
  const double* b = bb.get();
  const double* c0 = c0b.get();
  double* c = cb.get();
  const exala::layout lay = o.row_major ? exala::layout::row_major : exala::layout::col_major;
  const bool row = o.row_major;
  const std::int64_t lda = row ? k : n, ldb = row ? n : k;
  const std::size_t cbytes = static_cast<std::size_t>(nn) * sizeof(double);

  const auto ours = [=](const exala::exec& ex) {
    if (update) std::memcpy(c, c0, cbytes);
    exala::gemm(lay, exala::transpose::none, exala::transpose::none, n, n, k, alpha, a, lda, b, ldb, beta,
                c, n, ex);
    return c[0] + c[nn - 1];
  };
  std::function<double()> openblas;
#ifdef EXALA_BENCH_HAVE_OPENBLAS
  openblas = [=] {
    if (update) std::memcpy(c, c0, cbytes);
    cblas_dgemm(order(row), CblasNoTrans, CblasNoTrans, static_cast<blasint>(n), static_cast<blasint>(n),
                static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb),
                beta, c, static_cast<blasint>(n));
    return c[0] + c[nn - 1];
  };
#else
  (void)row;
#endif
  return compare_backends(o, update ? "gemm-update-k" + std::to_string(k) : std::string("gemm"), n, ours,
                          openblas, c, nn);
}

int run_trsm(const options& o) {
  const std::int64_t n = o.n, k = o.nrhs > 0 ? o.nrhs : n, nk = n * k;
  const int touch = max_threads(o);
  buffer ab = allocate_touched(n * n, touch);
  buffer b0 = allocate_touched(nk, touch);
  buffer xb = allocate_touched(nk, touch);
  std::mt19937_64 gen(o.seed);
  fill_lower_triangular(ab.get(), n, o.row_major, gen);
  fill(b0.get(), nk, data_kind::uniform, 0, gen);
  const double* a = ab.get();
  const double* rhs = b0.get();
  double* x = xb.get();
  const std::size_t bytes = static_cast<std::size_t>(nk) * sizeof(double);
  const exala::layout lay = o.row_major ? exala::layout::row_major : exala::layout::col_major;
  const bool row = o.row_major;
  const std::int64_t ldb = row ? k : n;

  const auto ours = [=](const exala::exec& ex) {
    std::memcpy(x, rhs, bytes);
    exala::trsm(lay, exala::side::left, exala::uplo::lower, exala::transpose::none,
                exala::diag::non_unit, n, k, 1.0, a, n, x, ldb, ex);
    return x[0] + x[nk - 1];
  };
  std::function<double()> openblas;
#ifdef EXALA_BENCH_HAVE_OPENBLAS
  openblas = [=] {
    std::memcpy(x, rhs, bytes);
    cblas_dtrsm(order(row), CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, static_cast<blasint>(n),
                static_cast<blasint>(k), 1.0, a, static_cast<blasint>(n), x, static_cast<blasint>(ldb));
    return x[0] + x[nk - 1];
  };
#else
  (void)row;
#endif
  return compare_backends(o, "trsm", n, ours, openblas, x, nk);
}

// syrk, syr2k, symm, trmm: one runner, the routine chosen by name.
int run_family(const options& o) {
  const std::string& r = o.routine;
  const std::int64_t n = o.n, nn = n * n;
  const int touch = max_threads(o);
  buffer ab = allocate_touched(nn, touch);
  buffer bb = allocate_touched(nn, touch);
  buffer b0 = allocate_touched(nn, touch);
  buffer cb = allocate_touched(nn, touch);
  std::mt19937_64 gen(o.seed);
  fill(ab.get(), nn, o.data, wide_exp, gen);
  fill(r == "trmm" ? b0.get() : bb.get(), nn, o.data, wide_exp, gen);
  std::memset(cb.get(), 0, static_cast<std::size_t>(nn) * sizeof(double));
  const double* a = ab.get();
  const double* b = bb.get();
  const double* rhs = b0.get();
  double* c = cb.get();
  const std::size_t bytes = static_cast<std::size_t>(nn) * sizeof(double);
  const exala::layout lay = o.row_major ? exala::layout::row_major : exala::layout::col_major;
  const bool row = o.row_major;
  using exala::diag;
  using exala::side;
  using exala::transpose;
  using exala::uplo;

  const auto ours = [=](const exala::exec& ex) {
    if (r == "syrk") {
      exala::syrk(lay, uplo::upper, transpose::none, n, n, 1.0, a, n, 0.0, c, n, ex);
    } else if (r == "syr2k") {
      exala::syr2k(lay, uplo::upper, transpose::none, n, n, 1.0, a, n, b, n, 0.0, c, n, ex);
    } else if (r == "symm") {
      exala::symm(lay, side::left, uplo::upper, n, n, 1.0, a, n, b, n, 0.0, c, n, ex);
    } else {
      std::memcpy(c, rhs, bytes);
      exala::trmm(lay, side::left, uplo::lower, transpose::none, diag::non_unit, n, n, 1.0, a, n, c,
                  n, ex);
    }
    return c[0] + c[nn - 1];
  };
  std::function<double()> openblas;
#ifdef EXALA_BENCH_HAVE_OPENBLAS
  openblas = [=] {
    const auto bn = static_cast<blasint>(n);
    if (r == "syrk") {
      cblas_dsyrk(order(row), CblasUpper, CblasNoTrans, bn, bn, 1.0, a, bn, 0.0, c, bn);
    } else if (r == "syr2k") {
      cblas_dsyr2k(order(row), CblasUpper, CblasNoTrans, bn, bn, 1.0, a, bn, b, bn, 0.0, c, bn);
    } else if (r == "symm") {
      cblas_dsymm(order(row), CblasLeft, CblasUpper, bn, bn, 1.0, a, bn, b, bn, 0.0, c, bn);
    } else {
      std::memcpy(c, rhs, bytes);
      cblas_dtrmm(order(row), CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, bn, bn, 1.0, a,
                  bn, c, bn);
    }
    return c[0] + c[nn - 1];
  };
#else
  (void)row;
#endif
  return compare_backends(o, r, n, ours, openblas, c, nn);
}

}  // namespace

int run_blas3(const options& o) {
  if (o.routine == "gemm") return run_gemm(o);
  if (o.routine == "trsm") return run_trsm(o);
  return run_family(o);
}

}  // namespace exala_bench
