// blas1_bench.cpp - exala-bench sum | asum | dot: ExaLA's exact sum, asum
// and dot against a naive loop and OpenBLAS.
//
// Baselines: `naive` is the plain loop s += x[i] (|x[i]| for asum,
// x[i]*y[i] for dot) compiled with the same -ffp-contract=off flags, an
// OpenMP reduction when threads > 1; `openblas` is cblas_ddot for dot and
// cblas_dasum for sum and asum (the nearest vectorised plain sum), with
// openblas_set_num_threads(threads). Without OpenBLAS at configure time the
// openblas line is left out. Data: --data wide is U[-1,1] * 2^k with k
// uniform in [-500, 500]; dot draws x, then y, from one stream.
#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_common.hpp"
#include "exala/backend.hpp"
#include "exala/blas1.hpp"
#include "exala/error.hpp"

#ifdef EXALA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace exala_bench {
namespace {

enum class routine { sum, asum, dot };

std::string_view name_of(routine r) {
  switch (r) {
    case routine::sum: return "sum";
    case routine::asum: return "asum";
    case routine::dot: return "dot";
  }
  return "?";
}

constexpr int wide_exp = 500;

// ------------------------------------------------------------ the baselines

__attribute__((noinline)) double naive_sum(std::int64_t n, const double* x, int threads) {
  double s = 0.0;
  if (threads <= 1) {
    for (std::int64_t i = 0; i < n; ++i) s += x[i];
    return s;
  }
#ifdef EXALA_BENCH_HAVE_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += x[i];
#endif
  return s;
}

__attribute__((noinline)) double naive_asum(std::int64_t n, const double* x, int threads) {
  double s = 0.0;
  if (threads <= 1) {
    for (std::int64_t i = 0; i < n; ++i) s += std::fabs(x[i]);
    return s;
  }
#ifdef EXALA_BENCH_HAVE_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += std::fabs(x[i]);
#endif
  return s;
}

__attribute__((noinline)) double naive_dot(std::int64_t n, const double* x, const double* y,
                                           int threads) {
  double s = 0.0;
  if (threads <= 1) {
    for (std::int64_t i = 0; i < n; ++i) s += x[i] * y[i];
    return s;
  }
#ifdef EXALA_BENCH_HAVE_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += x[i] * y[i];
#endif
  return s;
}

#ifdef EXALA_BENCH_HAVE_OPENBLAS
// blasint may be 32-bit: vectors longer than 2^30 go in chunks of 2^30.
constexpr std::int64_t blas_chunk = std::int64_t{1} << 30;

double openblas_asum(std::int64_t n, const double* x) {
  double s = 0.0;
  for (std::int64_t b = 0; b < n; b += blas_chunk)
    s += cblas_dasum(static_cast<blasint>(std::min(blas_chunk, n - b)), x + b, 1);
  return s;
}

double openblas_dot(std::int64_t n, const double* x, const double* y) {
  double s = 0.0;
  for (std::int64_t b = 0; b < n; b += blas_chunk)
    s += cblas_ddot(static_cast<blasint>(std::min(blas_chunk, n - b)), x + b, 1, y + b, 1);
  return s;
}
#endif

}  // namespace

int run_blas1(const options& o) {
  const routine r = o.routine == "sum" ? routine::sum
                    : o.routine == "asum" ? routine::asum
                                          : routine::dot;
  const int touch_threads = max_threads(o);
  buffer xb = allocate_touched(o.n, touch_threads);
  buffer yb = r == routine::dot ? allocate_touched(o.n, touch_threads) : buffer();
  std::mt19937_64 gen(o.seed);
  fill(xb.get(), o.n, o.data, wide_exp, gen);
  if (yb) fill(yb.get(), o.n, o.data, wide_exp, gen);
  const double* x = xb.get();
  const double* y = yb.get();
  const std::int64_t n = o.n;

  const auto ours = [x, y, n, r](const exala::exec& ex) {
    switch (r) {
      case routine::sum: return exala::sum(n, x, 1, ex);
      case routine::asum: return exala::asum(n, x, 1, ex);
      case routine::dot: return exala::dot(n, x, 1, y, 1, ex);
    }
    return 0.0;
  };

  std::optional<std::uint64_t> expected;
  if (o.check)
    expected = std::bit_cast<std::uint64_t>(ours(exala::exec{exala::backend::reference, 1, {}}));

  print_header();
  for (const exala::backend b : o.backends) {
    const int t = threads_for(o, b);
    const exala::exec ex{b, t, exala::rounding::to_nearest_even};
    if (expected) {
      const std::uint64_t got = std::bit_cast<std::uint64_t>(ours(ex));
      if (got != *expected) {
        char line[512];
        std::snprintf(line, sizeof line,
                      "check failed: %s backend=%s threads=%d n=%" PRId64
                      ": %a (0x%016" PRIx64 ") but reference gives %a (0x%016" PRIx64 ")",
                      std::string(name_of(r)).c_str(), std::string(exala::to_string(b)).c_str(),
                      t, n, std::bit_cast<double>(got), got, std::bit_cast<double>(*expected),
                      *expected);
        throw check_failure(line);
      }
    }
    set_openblas_threads(t);
    std::vector<contender> cs;
    cs.emplace_back("ours", [&ours, ex] { return ours(ex); });
    switch (r) {
      case routine::sum: cs.emplace_back("naive", [x, n, t] { return naive_sum(n, x, t); }); break;
      case routine::asum: cs.emplace_back("naive", [x, n, t] { return naive_asum(n, x, t); }); break;
      case routine::dot: cs.emplace_back("naive", [x, y, n, t] { return naive_dot(n, x, y, t); }); break;
    }
#ifdef EXALA_BENCH_HAVE_OPENBLAS
    if (r == routine::dot) cs.emplace_back("openblas", [x, y, n] { return openblas_dot(n, x, y); });
    else cs.emplace_back("openblas", [x, n] { return openblas_asum(n, x); });
#endif
    run_interleaved(cs, o.reps);
    print_rows(name_of(r), exala::to_string(b), n, t, cs);
  }
  return 0;
}

}  // namespace exala_bench
