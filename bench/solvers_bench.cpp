// solvers_bench.cpp - exala-bench trsv-compensated | trsv-double-double: the
// sequential accurate triangular solves against OpenBLAS, each other and the
// naive loop.
//
// The system is the one of `exala-bench trsv`: T x = b, T n x n lower,
// non-unit, well conditioned (fill_lower_triangular), b U[-1,1], --layout
// row by default; every call copies b into x and solves in place.
// trsv-compensated: ours = exala::trsv_compensated (CENA, Langlois-Louvet);
//   baselines `openblas` (cblas_dtrsv), `double-double`
//   (exala::trsv_double_double) and `naive` (plain substitution).
// trsv-double-double: ours = exala::trsv_double_double; baselines `openblas`
//   and `naive`.
// Both are one sequential algorithm: the backend column reads `seq`, and
// --threads sets OpenBLAS's threads (default 1; dtrsv runs on one thread in
// OpenBLAS 0.3.21 anyway). --check runs ours twice and requires the same bits.
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "exala/solvers.hpp"

#ifdef EXALA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace exala_bench {

int run_solvers(const options& o) {
  const bool compensated = o.routine == "trsv-compensated";
  const std::int64_t n = o.n;
  const int t = o.threads > 0 ? o.threads : 1;
  buffer ab = allocate_touched(n * n, t);
  buffer bb = allocate_touched(n, 1);
  buffer xb = allocate_touched(n, 1);
  std::mt19937_64 gen(o.seed);
  fill_lower_triangular(ab.get(), n, o.row_major, gen);
  fill(bb.get(), n, data_kind::uniform, 0, gen);
  const double* a = ab.get();
  const double* rhs = bb.get();
  double* x = xb.get();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(double);
  const exala::layout lay = o.row_major ? exala::layout::row_major : exala::layout::col_major;
  const bool row = o.row_major;
  constexpr auto lo = exala::uplo::lower;
  constexpr auto nt = exala::transpose::none;
  constexpr auto nu = exala::diag::non_unit;

  const auto comp = [=] {
    std::memcpy(x, rhs, bytes);
    exala::trsv_compensated(lay, lo, nt, nu, n, a, n, x, 1);
    return x[0] + x[n - 1];
  };
  const auto dd = [=] {
    std::memcpy(x, rhs, bytes);
    exala::trsv_double_double(lay, lo, nt, nu, n, a, n, x, 1);
    return x[0] + x[n - 1];
  };
  const std::function<double()> ours = compensated ? std::function<double()>(comp) : dd;

  if (o.check) {
    ours();
    std::vector<double> first(x, x + n);
    ours();
    check_same_bits(o.routine + " (second run) n=" + std::to_string(n), x, first.data(), n);
  }

  print_header();
  set_openblas_threads(t);
  std::vector<contender> cs;
  cs.emplace_back("ours", ours);
#ifdef EXALA_BENCH_HAVE_OPENBLAS
  cs.emplace_back("openblas", [=] {
    std::memcpy(x, rhs, bytes);
    cblas_dtrsv(row ? CblasRowMajor : CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit,
                static_cast<blasint>(n), a, static_cast<blasint>(n), x, 1);
    return x[0] + x[n - 1];
  });
#endif
  if (compensated) cs.emplace_back("double-double", dd);
  cs.emplace_back("naive", [=] {
    std::memcpy(x, rhs, bytes);
    naive_trsv_lower(a, n, row, x);
    return x[0] + x[n - 1];
  });
  run_interleaved(cs, o.reps);
  print_rows(o.routine, "seq", n, t, cs);
  return 0;
}

}  // namespace exala_bench
