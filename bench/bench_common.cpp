// bench_common.cpp - data, timing and CSV output shared by every exala-bench
// routine (the method is described in bench_common.hpp).
#include "bench_common.hpp"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

#ifdef EXALA_BENCH_HAVE_OPENMP
#include <omp.h>
#endif
#ifdef EXALA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef EXALA_BENCH_HAVE_OPENCL
#include "exala/opencl.hpp"  // registers --backend opencl (host data, end to end)
#endif

namespace exala_bench {

volatile double g_sink = 0.0;

using clock_type = std::chrono::steady_clock;

int threads_for(const options& o, exala::backend b) {
  if (b != exala::backend::omp) return 1;
  return o.threads > 0 ? o.threads : 2;
}

int max_threads(const options& o) {
  int t = std::max(1, o.threads);
  for (auto b : o.backends) t = std::max(t, threads_for(o, b));
  return t;
}

buffer allocate_touched(std::int64_t n, int threads) {
  const std::size_t bytes =
      (static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * sizeof(double) + 63) / 64 * 64;
  auto* p = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (p == nullptr) throw std::bad_alloc();
#ifdef EXALA_BENCH_HAVE_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) p[i] = 0.0;
#else
  (void)threads;
  std::memset(p, 0, static_cast<std::size_t>(n) * sizeof(double));
#endif
  return buffer(p);
}

void fill(double* p, std::int64_t n, data_kind kind, int wide_exp, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> k(-wide_exp, wide_exp);
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = u(gen);
    p[i] = kind == data_kind::wide ? std::ldexp(v, k(gen)) : v;
  }
}

std::string_view name_of(data_kind k) { return k == data_kind::wide ? "wide" : "uniform"; }

void fill_lower_triangular(double* a, std::int64_t n, bool row_major, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_real_distribution<double> d(1.0, 2.0);
  const double scale = 1.0 / static_cast<double>(n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double v = 0.0;
      if (j < i) v = u(gen) * scale;
      if (j == i) v = u(gen) < 0.0 ? -d(gen) : d(gen);
      a[row_major ? i * n + j : i + j * n] = v;
    }
}

__attribute__((noinline)) void naive_trsv_lower(const double* a, std::int64_t n, bool row_major,
                                                double* x) {
  if (row_major) {
    for (std::int64_t i = 0; i < n; ++i) {
      const double* row = a + i * n;
      double s = x[i];
      for (std::int64_t j = 0; j < i; ++j) s -= row[j] * x[j];
      x[i] = s / row[i];
    }
  } else {
    for (std::int64_t j = 0; j < n; ++j) {
      const double* col = a + j * n;
      const double xj = x[j] / col[j];
      x[j] = xj;
      for (std::int64_t i = j + 1; i < n; ++i) x[i] -= col[i] * xj;
    }
  }
}

namespace {

// Seconds for `inner` back-to-back calls; the results go to the sink.
double time_calls(const contender& c, long inner) {
  double acc = 0.0;
  const auto t0 = clock_type::now();
  for (long i = 0; i < inner; ++i) {
    clobber_memory();
    acc += c.call();
  }
  const auto t1 = clock_type::now();
  g_sink = g_sink + acc;
  return std::chrono::duration<double>(t1 - t0).count();
}

constexpr double target_sample_s = 2e-3;  // one sample lasts at least this long
constexpr double target_total_s = 0.3;    // default: samples of one contender
constexpr int min_reps = 5, max_reps = 200;

// Warms the contender up and picks `inner`; returns the seconds of one sample.
double calibrate(contender& c) {
  time_calls(c, 1);  // warm-up: page faults, thread pools, caches
  long inner = 1;
  for (;;) {
    const double t = time_calls(c, inner);
    if (t >= target_sample_s || inner >= (1L << 30)) {
      c.inner = inner;
      return t;
    }
    const double want = t > 0.0 ? target_sample_s * 1.2 / t * static_cast<double>(inner)
                                : static_cast<double>(inner) * 100.0;
    inner = std::clamp(static_cast<long>(want), inner * 2, inner * 100);
  }
}

// Lets the previous contender's idle threads stop spinning (~0.25 ms, see
// tame_idle_spinning in main.cpp) before the next one is timed, so that no
// contender starts with a foreign spinner on its cores. The main thread waits
// busily: a sleeping vCPU would add its own wake-up latency.
constexpr double settle_s = 1e-3;
void settle_idle_threads() {
  const auto until = clock_type::now() + std::chrono::duration<double>(settle_s);
  while (clock_type::now() < until) {
  }
}

}  // namespace

void run_interleaved(std::vector<contender>& cs, int reps_opt) {
  double slowest = 0.0;
  for (auto& c : cs) slowest = std::max(slowest, calibrate(c));
  const int reps = reps_opt > 0 ? reps_opt
                                : std::clamp(static_cast<int>(std::lround(target_total_s / slowest)),
                                             min_reps, max_reps);
  for (auto& c : cs) c.samples.reserve(static_cast<std::size_t>(reps));
  const std::size_t m = cs.size();
  for (int r = 0; r < reps; ++r)
    for (std::size_t j = 0; j < m; ++j) {
      contender& c = cs[(static_cast<std::size_t>(r) + j) % m];
      settle_idle_threads();
      time_calls(c, 1);  // untimed: wakes c's own threads, steady cache state
      c.samples.push_back(time_calls(c, c.inner) / static_cast<double>(c.inner));
    }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void print_header() {
  static bool printed = false;
  if (printed) return;
  printed = true;
  std::printf("routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio\n");
  std::fflush(stdout);
}

void print_rows(std::string_view routine, std::string_view backend, std::int64_t n, int threads,
                const std::vector<contender>& cs) {
  const double ours_s = median(cs[0].samples);
  for (std::size_t j = 1; j < cs.size(); ++j) {
    const double base_s = median(cs[j].samples);
    std::printf("%.*s,%.*s,%" PRId64 ",%d,%.6e,%s,%.6e,%.4f\n", static_cast<int>(routine.size()),
                routine.data(), static_cast<int>(backend.size()), backend.data(), n, threads,
                ours_s, cs[j].name.c_str(), base_s, ours_s / base_s);
  }
  std::fflush(stdout);
}

void check_same_bits(std::string_view what, const double* got, const double* expected,
                     std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
    const auto g = std::bit_cast<std::uint64_t>(got[i]);
    const auto e = std::bit_cast<std::uint64_t>(expected[i]);
    if (g != e) {
      char line[512];
      std::snprintf(line, sizeof line,
                    "check failed: %.*s: entry %" PRId64 " is %a (0x%016" PRIx64
                    ") but reference gives %a (0x%016" PRIx64 ")",
                    static_cast<int>(what.size()), what.data(), i, got[i], g, expected[i], e);
      throw check_failure(line);
    }
  }
}

#ifdef EXALA_BENCH_HAVE_OPENBLAS
void set_openblas_threads(int t) { openblas_set_num_threads(t); }
#endif

}  // namespace exala_bench
