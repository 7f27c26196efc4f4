// exala-bench - times ExaLA's exact sum / asum / dot against baselines.
//
//   exala-bench sum|asum|dot --n N [--backend reference|simd|omp|all|B1,B2]
//               [--threads T] [--data uniform|wide] [--reps R] [--seed S] [--check]
//
// Prints a CSV header, then one line per (backend, baseline):
//   routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio
// seconds / baseline_seconds are medians over R repetitions of the time of
// one call; ratio = seconds / baseline_seconds (ours over baseline).
//
// Assumptions and method, stated once:
// - Baselines: `naive` is the plain loop s += x[i] (|x[i]| for asum,
//   x[i]*y[i] for dot) compiled with the same -ffp-contract=off flags, an
//   OpenMP reduction when threads > 1; `openblas` is cblas_ddot for dot and
//   cblas_dasum for sum and asum (the nearest vectorised plain sum), with
//   openblas_set_num_threads(threads). Without OpenBLAS at configure time the
//   openblas line is left out.
// - One sample times `inner` back-to-back calls (inner chosen so that a
//   sample lasts >= ~2 ms; 1 for large n) and divides by inner. Every
//   repetition takes one sample of ours and of each baseline, in an order
//   rotated per repetition, so machine noise and cache state hit all alike.
//   Each sample is preceded by a 1 ms busy wait (idle threads of the previous
//   contender go to sleep) and one untimed call (the contender's own threads
//   are awake), so every contender is timed in the same steady state.
// - Default repetitions: enough for ~0.3 s of samples of the slowest
//   contender, clamped to [5, 200].
// - Vectors are 64-byte aligned and first-touched (by the threads that will
//   read them, static split) before the data are written and timed.
// - Idle OpenMP and OpenBLAS threads spin for a long time by default and
//   then steal the cores the other runtime needs; unless the user sets them,
//   GOMP_SPINCOUNT and OPENBLAS_THREAD_TIMEOUT are cut to ~0.25 ms (the
//   program restarts itself once to apply them; see tame_idle_spinning).
// - Exit status: 0 ok, 1 --check found a mismatch, 2 bad arguments (one line
//   on stderr), 3 other run-time failure (e.g. out of memory).
#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include "exala/backend.hpp"
#include "exala/blas1.hpp"
#include "exala/error.hpp"

#ifdef EXALA_BENCH_HAVE_OPENMP
#include <omp.h>
#endif
#ifdef EXALA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

// ---------------------------------------------------------------- utilities

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

volatile double g_sink = 0.0;  // every timed result ends up here

// Tells the compiler that memory may have changed, so calls on the same data
// cannot be merged or hoisted out of the timing loop.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

using clock_type = std::chrono::steady_clock;

struct free_deleter {
  void operator()(double* p) const noexcept { std::free(p); }
};
using buffer = std::unique_ptr<double[], free_deleter>;

buffer allocate_aligned(std::int64_t n) {
  const std::size_t bytes = (static_cast<std::size_t>(n) * sizeof(double) + 63) / 64 * 64;
  auto* p = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (p == nullptr) throw std::bad_alloc();
  return buffer(p);
}

// First touch by the `threads` threads that will read the data, each on its
// static share (matters on NUMA machines; harmless elsewhere).
void first_touch(double* p, std::int64_t n, int threads) {
#ifdef EXALA_BENCH_HAVE_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) p[i] = 0.0;
#else
  (void)threads;
  std::memset(p, 0, static_cast<std::size_t>(n) * sizeof(double));
#endif
}

enum class routine { sum, asum, dot };
enum class data_kind { uniform, wide };

std::string_view name_of(routine r) {
  switch (r) {
    case routine::sum: return "sum";
    case routine::asum: return "asum";
    case routine::dot: return "dot";
  }
  return "?";
}

// uniform: U[-1, 1]; wide: U[-1, 1] * 2^k with k uniform in [-500, 500].
void fill(double* p, std::int64_t n, data_kind kind, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> k(-500, 500);
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = u(gen);
    p[i] = kind == data_kind::wide ? std::ldexp(v, k(gen)) : v;
  }
}

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

// ------------------------------------------------------------------ options

struct options {
  routine r = routine::sum;
  bool have_routine = false;
  std::int64_t n = -1;
  std::vector<exala::backend> backends{exala::backend::simd};
  int threads = 0;  // 0: per-backend default (1, or 2 for omp)
  data_kind data = data_kind::uniform;
  int reps = 0;  // 0: automatic
  std::uint64_t seed = 42;
  bool check = false;
};

const char* const usage_text =
    "usage: exala-bench sum|asum|dot --n N [--backend reference|simd|omp|all|B1,B2,...]\n"
    "                   [--threads T] [--data uniform|wide] [--reps R] [--seed S] [--check]\n"
    "Prints CSV: routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio\n"
    "(medians of R interleaved repetitions; ratio = ours / baseline).\n"
    "  --n N        vector length, >= 1 (1e7 style accepted when it is an integer)\n"
    "  --backend    default simd; 'all' = every backend compiled in; a comma list is accepted\n"
    "  --threads T  threads of the omp backend and of its baselines (default 2);\n"
    "               reference and simd are single-threaded (T must be 1 for them alone)\n"
    "  --data       uniform: U[-1,1]; wide: U[-1,1] * 2^k, k uniform in [-500,500]\n"
    "  --reps R     repetitions (default: ~0.3 s per contender, clamped to [5,200])\n"
    "  --seed S     std::mt19937_64 seed (default 42)\n"
    "  --check      also compare ours to the reference backend bit for bit (exit 1 if not)\n"
    "Exit status: 0 ok, 1 check mismatch, 2 bad arguments, 3 run-time failure.\n"
    "Unless set, GOMP_SPINCOUNT=10000 and OPENBLAS_THREAD_TIMEOUT=20 are used (the program\n"
    "restarts itself once): idle threads of one runtime must not slow down the other.\n";

// Integer in [lo, hi]; also accepts an exactly integral decimal such as 1e7.
std::int64_t parse_int(const std::string& opt, const std::string& text, std::int64_t lo,
                       std::int64_t hi) {
  const auto bad = [&](const std::string& why) {
    return usage_error(opt + " '" + text + "': " + why);
  };
  if (text.empty()) throw bad("expected an integer");
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE) throw bad("out of range");
  if (*end != '\0') {
    if (text.find_first_of("eE.") == std::string::npos) throw bad("expected an integer");
    errno = 0;
    const double d = std::strtod(text.c_str(), &end);
    if (*end != '\0' || errno == ERANGE || !std::isfinite(d)) throw bad("expected an integer");
    if (d != std::floor(d)) throw bad("expected an integer");
    if (d < -9.0e15 || d > 9.0e15) throw bad("out of range");
    v = static_cast<long long>(d);
  }
  if (v < lo || v > hi)
    throw bad("must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

std::uint64_t parse_seed(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw usage_error("--seed '" + text + "': expected a non-negative integer");
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) throw usage_error("--seed '" + text + "': out of range");
  return v;
}

std::vector<exala::backend> parse_backends(const std::string& text) {
  std::vector<exala::backend> out;
  if (text == "all") {
#define EXALA_BENCH_ALL_(name, desc) \
  if (exala::is_compiled_in(exala::backend::name)) out.push_back(exala::backend::name);
    EXALA_BACKENDS(EXALA_BENCH_ALL_)
#undef EXALA_BENCH_ALL_
    return out;
  }
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos
                                                                         : comma - pos);
    exala::backend b;
    try {
      b = exala::parse_backend(item, "--backend");
    } catch (const exala::invalid_argument&) {
      throw usage_error("--backend '" + item +
                        "': unknown backend (expected reference|simd|omp|all)");
    }
    if (!exala::is_compiled_in(b))
      throw usage_error("--backend '" + item + "': not compiled into this build");
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

options parse_args(int argc, char** argv) {
  options o;
  bool threads_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    bool has_inline_value = false;
    if (a.rfind("--", 0) == 0) {
      const std::size_t eq = a.find('=');
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline_value = true;
      }
    }
    const auto next = [&]() -> std::string {
      if (has_inline_value) return value;
      if (i + 1 >= argc) throw usage_error(a + ": missing value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(usage_text, stdout);
      std::exit(0);
    } else if (a == "--n") {
      o.n = parse_int("--n", next(), 1, INT64_MAX / 16);
    } else if (a == "--backend") {
      o.backends = parse_backends(next());
    } else if (a == "--threads") {
      o.threads = static_cast<int>(parse_int("--threads", next(), 1, 1024));
      threads_given = true;
    } else if (a == "--data") {
      const std::string v = next();
      if (v == "uniform") o.data = data_kind::uniform;
      else if (v == "wide") o.data = data_kind::wide;
      else throw usage_error("--data '" + v + "': expected uniform|wide");
    } else if (a == "--reps") {
      o.reps = static_cast<int>(parse_int("--reps", next(), 1, 1000000));
    } else if (a == "--seed") {
      o.seed = parse_seed(next());
    } else if (a == "--check") {
      if (has_inline_value) throw usage_error("--check takes no value");
      o.check = true;
    } else if (a.rfind("-", 0) == 0) {
      throw usage_error("unknown option '" + a + "' (see --help)");
    } else {
      if (o.have_routine) throw usage_error("unexpected argument '" + a + "' (routine given twice)");
      if (a == "sum") o.r = routine::sum;
      else if (a == "asum") o.r = routine::asum;
      else if (a == "dot") o.r = routine::dot;
      else throw usage_error("unknown routine '" + a + "' (expected sum|asum|dot)");
      o.have_routine = true;
    }
  }
  if (!o.have_routine) throw usage_error("missing routine (sum|asum|dot); see --help");
  if (o.n < 0) throw usage_error("missing --n N; see --help");
  if (threads_given && o.threads != 1) {
    const bool any_omp = std::find(o.backends.begin(), o.backends.end(), exala::backend::omp) !=
                         o.backends.end();
    if (!any_omp)
      throw usage_error("--threads " + std::to_string(o.threads) + ": backend " +
                        std::string(exala::to_string(o.backends.front())) +
                        " is single-threaded (use --backend omp)");
#ifndef EXALA_BENCH_HAVE_OPENMP
    throw usage_error("--threads " + std::to_string(o.threads) +
                      ": this exala-bench was built without OpenMP");
#endif
  }
  return o;
}

int threads_for(const options& o, exala::backend b) {
  if (b != exala::backend::omp) return 1;
  return o.threads > 0 ? o.threads : 2;
}

// ------------------------------------------------------------------ timing

struct contender {
  contender(std::string n, std::function<double()> f) : name(std::move(n)), call(std::move(f)) {}
  std::string name;
  std::function<double()> call;
  long inner = 1;               // calls per sample
  std::vector<double> samples;  // seconds per call
};

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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Lets the previous contender's idle threads stop spinning (see
// tame_idle_spinning: ~0.25 ms) before the next one is timed, so that no
// contender starts with a foreign spinner on its cores. The main thread waits
// busily: a sleeping vCPU would add its own wake-up latency.
constexpr double settle_s = 1e-3;
void settle_idle_threads() {
  const auto until = clock_type::now() + std::chrono::duration<double>(settle_s);
  while (clock_type::now() < until) {
  }
}

// Times all contenders with interleaved, rotated repetitions: before each
// sample, a settle gap and one untimed call of the contender.
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

// ------------------------------------------------------------------- main

int run(const options& o) {
  const int max_threads = [&] {
    int t = 1;
    for (auto b : o.backends) t = std::max(t, threads_for(o, b));
    return t;
  }();
  buffer xb = allocate_aligned(o.n);
  buffer yb = o.r == routine::dot ? allocate_aligned(o.n) : buffer();
  first_touch(xb.get(), o.n, max_threads);
  if (yb) first_touch(yb.get(), o.n, max_threads);
  std::mt19937_64 gen(o.seed);
  fill(xb.get(), o.n, o.data, gen);
  if (yb) fill(yb.get(), o.n, o.data, gen);
  const double* x = xb.get();
  const double* y = yb.get();
  const std::int64_t n = o.n;
  const routine r = o.r;

  const auto ours = [x, y, n, r](const exala::exec& ex) {
    switch (r) {
      case routine::sum: return exala::sum(n, x, 1, ex);
      case routine::asum: return exala::asum(n, x, 1, ex);
      case routine::dot: return exala::dot(n, x, 1, y, 1, ex);
    }
    return 0.0;
  };

  std::optional<std::uint64_t> expected;
  if (o.check) expected = std::bit_cast<std::uint64_t>(ours(exala::exec{exala::backend::reference, 1, {}}));

  std::printf("routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio\n");
  std::fflush(stdout);
  for (const exala::backend b : o.backends) {
    const int t = threads_for(o, b);
    const exala::exec ex{b, t, exala::rounding::to_nearest_even};
    if (expected) {
      const std::uint64_t got = std::bit_cast<std::uint64_t>(ours(ex));
      if (got != *expected) {
        std::fprintf(stderr,
                     "exala-bench: check failed: %s backend=%s threads=%d n=%" PRId64
                     ": %a (0x%016" PRIx64 ") but reference gives %a (0x%016" PRIx64 ")\n",
                     std::string(name_of(r)).c_str(), std::string(exala::to_string(b)).c_str(), t,
                     n, std::bit_cast<double>(got), got, std::bit_cast<double>(*expected),
                     *expected);
        return 1;
      }
    }
#ifdef EXALA_BENCH_HAVE_OPENBLAS
    openblas_set_num_threads(t);
#endif
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
    const double ours_s = median(cs[0].samples);
    for (std::size_t j = 1; j < cs.size(); ++j) {
      const double base_s = median(cs[j].samples);
      std::printf("%s,%s,%" PRId64 ",%d,%.6e,%s,%.6e,%.4f\n", std::string(name_of(r)).c_str(),
                  std::string(exala::to_string(b)).c_str(), n, t, ours_s, cs[j].name.c_str(),
                  base_s, ours_s / base_s);
    }
    std::fflush(stdout);
  }
  return 0;
}

// Idle worker threads of one runtime must not hold the cores that the other
// runtime's threads need next: on a 2-core machine a spinning idle thread
// time-shares a core with the next call's worker and can make a 2-thread call
// run as slowly as a serial one. Both runtimes spin for a long time by
// default: libgomp for GOMP_SPINCOUNT = 300000 pause instructions (~7 ms on
// the reference machine), openblas-pthread for 2^28 TSC cycles (~60 ms). In
// an interleaved loop that means OpenBLAS's 2-thread calls ran up to 2-5x
// slower after an OpenMP call, and OpenMP calls ran serially after an
// OpenBLAS call. Unless the user has chosen these settings, restart once with
// both spins cut to ~0.25 ms (GOMP_SPINCOUNT=10000, OPENBLAS_THREAD_TIMEOUT=20,
// i.e. 2^20 cycles): still far longer than the gap between back-to-back calls
// of one contender, so neither side pays a wake-up inside its own timing loop.
// Set the variables yourself (e.g. GOMP_SPINCOUNT=300000
// OPENBLAS_THREAD_TIMEOUT=28 for the defaults) to keep your own choice.
void tame_idle_spinning(char** argv) {
#if defined(EXALA_BENCH_HAVE_OPENMP) && defined(EXALA_BENCH_HAVE_OPENBLAS) && defined(__linux__)
  bool changed = false;
  if (!std::getenv("GOMP_SPINCOUNT") && !std::getenv("OMP_WAIT_POLICY") &&
      !std::getenv("KMP_BLOCKTIME")) {
    setenv("GOMP_SPINCOUNT", "10000", 1);  // libgomp (GCC)
    setenv("KMP_BLOCKTIME", "1", 1);       // libomp (Clang, Intel): milliseconds
    changed = true;
  }
  if (!std::getenv("OPENBLAS_THREAD_TIMEOUT") && !std::getenv("GOTO_THREAD_TIMEOUT")) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "20", 1);  // 2^20 cycles
    changed = true;
  }
  if (!changed) return;
  // Both runtimes read their environment when they are loaded: restart.
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    self[len] = '\0';
    execv(self, argv);
  }
  // exec failed: go on with the runtimes' defaults.
#else
  (void)argv;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  tame_idle_spinning(argv);
  options o;
  try {
    o = parse_args(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 2;
  }
  try {
    return run(o);
  } catch (const exala::invalid_argument& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 2;
  } catch (const exala::not_compiled_in& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "exala-bench: out of memory allocating %" PRId64 " doubles\n", o.n);
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 3;
  }
}
