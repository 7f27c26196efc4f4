// exala-bench - times ExaLA's exact routines against baselines in one run.
//
//   exala-bench ROUTINE --n N [--backend reference|simd|omp|all|B1,B2]
//               [--threads T] [--data uniform|wide] [--layout row|col]
//               [--nrhs K] [--reps R] [--seed S] [--check]
//   ROUTINE: sum asum dot | gemv trsv | gemm trsm syrk syr2k symm trmm |
//            trsv-compensated trsv-double-double
//
// Prints a CSV header, then one line per (backend, baseline):
//   routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio
// seconds / baseline_seconds are medians over R repetitions of the time of
// one call; ratio = seconds / baseline_seconds (ours over baseline). The
// timing method is stated in bench_common.hpp, the baselines of each routine
// at the top of its file (blas1_bench.cpp, blas2_bench.cpp, blas3_bench.cpp,
// solvers_bench.cpp). This file holds the routine table, the argument parser
// and main().
//
// Exit status: 0 ok, 1 --check found a mismatch, 2 bad arguments (one line
// on stderr), 3 other run-time failure (e.g. out of memory).
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "bench_common.hpp"
#include "exala/error.hpp"

namespace exala_bench {
namespace {

struct routine_entry {
  std::string_view name;
  int (*run)(const options&);
  bool has_backends;  // false: one sequential algorithm (--backend does not apply)
  bool wide_data;     // --data wide is offered
  bool is_matrix;     // --layout applies
};

constexpr routine_entry routines[] = {
    {"sum", run_blas1, true, true, false},
    {"asum", run_blas1, true, true, false},
    {"dot", run_blas1, true, true, false},
    {"gemv", run_blas2, true, true, true},
    {"trsv", run_blas2, true, false, true},
    {"gemm", run_blas3, true, true, true},
    {"trsm", run_blas3, true, false, true},
    {"syrk", run_blas3, true, true, true},
    {"syr2k", run_blas3, true, true, true},
    {"symm", run_blas3, true, true, true},
    {"trmm", run_blas3, true, true, true},
    {"trsv-compensated", run_solvers, false, false, true},
    {"trsv-double-double", run_solvers, false, false, true},
};

const routine_entry* find_routine(std::string_view name) {
  for (const auto& r : routines)
    if (r.name == name) return &r;
  return nullptr;
}

const char* const usage_text =
    "usage: exala-bench ROUTINE --n N [--backend reference|simd|omp|all|B1,B2,...]\n"
    "                   [--threads T] [--data uniform|wide] [--layout row|col] [--nrhs K] [--k K]\n"
    "                   [--reps R] [--seed S] [--check]\n"
    "ROUTINE: sum asum dot (vectors of n), gemv trsv (n x n), gemm trsm syrk syr2k symm trmm\n"
    "         (n x n),\n"
    "         trsv-compensated trsv-double-double (n x n, sequential).\n"
    "Prints CSV: routine,backend,n,threads,seconds,baseline,baseline_seconds,ratio\n"
    "(medians of R interleaved repetitions; ratio = ours / baseline).\n"
    "  --n N        vector length or matrix order, >= 1 (1e7 style accepted when integral)\n"
    "  --backend    default simd; 'all' = every backend compiled in; a comma list is accepted\n"
    "               (not for trsv-compensated / trsv-double-double: sequential)\n"
    "  --threads T  threads of the omp backend and of its baselines (default 2);\n"
    "               reference and simd are single-threaded (T must be 1 for them alone);\n"
    "               for the sequential solvers, the threads of OpenBLAS (default 1)\n"
    "  --data       uniform: U[-1,1]; wide: U[-1,1] * 2^k, k uniform in [-500,500]\n"
    "               (sum asum dot) or [-200,200] (gemv gemm); triangular solves: uniform only\n"
    "  --layout     row (default) or col: storage of the matrices\n"
    "  --nrhs K     trsm: columns of B (default n)\n"
    "  --k K        gemm: the update C = C - A B with A n x K, B K x n (LAPACK's trailing\n"
    "               updates: K = 64); C is reset before every call (default: C = A B, K = n)\n"
    "  --reps R     repetitions (default: ~0.3 s per contender, clamped to [5,200])\n"
    "  --seed S     std::mt19937_64 seed (default 42)\n"
    "  --check      also compare ours to the reference backend bit for bit (exit 1 if not);\n"
    "               sequential solvers: two runs must give the same bits\n"
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
// (cuda: this CPU driver does not link the CUDA code; exala-bench-gpu gemm
// measures it against cuBLAS)
#define EXALA_BENCH_ALL_(name, desc)                                                  \
  if (exala::is_compiled_in(exala::backend::name) && exala::backend::name != exala::backend::cuda) \
    out.push_back(exala::backend::name);
    EXALA_BACKENDS(EXALA_BENCH_ALL_)
#undef EXALA_BENCH_ALL_
    return out;
  }
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = text.find(',', pos);
    const std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    exala::backend b;
    try {
      b = exala::parse_backend(item, "--backend");
    } catch (const exala::invalid_argument&) {
      throw usage_error("--backend '" + item +
                        "': unknown backend (expected reference|simd|omp|all)");
    }
    if (!exala::is_compiled_in(b))
      throw usage_error("--backend '" + item + "': not compiled into this build");
    if (b == exala::backend::cuda)
      throw usage_error("--backend cuda: exala-bench does not link the CUDA code; use exala-bench-gpu gemm");
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

// Largest n per routine kind: the memory (and time) a run may ask for.
constexpr std::int64_t max_vector_n = INT64_MAX / 16;
constexpr std::int64_t max_matrix_n = 46340;  // n^2 < 2^31: 16 GiB per matrix

options parse_args(int argc, char** argv, const routine_entry*& entry) {
  options o;
  entry = nullptr;
  bool layout_given = false, data_given = false;
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
      o.n = parse_int("--n", next(), 1, max_vector_n);
    } else if (a == "--nrhs") {
      o.nrhs = parse_int("--nrhs", next(), 1, max_matrix_n);
    } else if (a == "--k") {
      o.k = parse_int("--k", next(), 1, max_matrix_n);
    } else if (a == "--backend") {
      o.backends = parse_backends(next());
      o.backends_given = true;
    } else if (a == "--threads") {
      o.threads = static_cast<int>(parse_int("--threads", next(), 1, 1024));
      o.threads_given = true;
    } else if (a == "--data") {
      const std::string v = next();
      if (v == "uniform") o.data = data_kind::uniform;
      else if (v == "wide") o.data = data_kind::wide;
      else throw usage_error("--data '" + v + "': expected uniform|wide");
      data_given = true;
    } else if (a == "--layout") {
      const std::string v = next();
      if (v == "row") o.row_major = true;
      else if (v == "col") o.row_major = false;
      else throw usage_error("--layout '" + v + "': expected row|col");
      layout_given = true;
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
      if (entry != nullptr)
        throw usage_error("unexpected argument '" + a + "' (routine given twice)");
      entry = find_routine(a);
      if (entry == nullptr)
        throw usage_error("unknown routine '" + a +
                          "' (expected sum|asum|dot|gemv|trsv|gemm|trsm|syrk|syr2k|symm|trmm|"
                          "trsv-compensated|"
                          "trsv-double-double)");
      o.routine = a;
    }
  }
  if (entry == nullptr) throw usage_error("missing routine (sum|asum|dot|gemv|...); see --help");
  if (o.n < 0) throw usage_error("missing --n N; see --help");
  if (entry->is_matrix && o.n > max_matrix_n)
    throw usage_error("--n " + std::to_string(o.n) + ": must be in [1, " +
                      std::to_string(max_matrix_n) + "] for " + o.routine);
  if (o.nrhs >= 0 && o.routine != "trsm") throw usage_error("--nrhs applies to trsm only");
  if (o.k >= 0 && o.routine != "gemm") throw usage_error("--k applies to gemm only");
  if (layout_given && !entry->is_matrix)
    throw usage_error("--layout does not apply to " + o.routine);
  if (data_given && o.data == data_kind::wide && !entry->wide_data)
    throw usage_error("--data wide: not offered for " + o.routine +
                      " (a triangular solve of wide data overflows)");
  if (!entry->has_backends) {
    if (o.backends_given)
      throw usage_error("--backend does not apply to " + o.routine +
                        " (one sequential algorithm; --threads sets OpenBLAS's threads)");
    if (!o.threads_given) o.threads = 1;
    return o;
  }
  if (o.threads_given && o.threads != 1) {
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
}  // namespace exala_bench

int main(int argc, char** argv) {
  using namespace exala_bench;
  tame_idle_spinning(argv);
  options o;
  const routine_entry* entry = nullptr;
  try {
    o = parse_args(argc, argv, entry);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 2;
  }
  try {
    return entry->run(o);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 2;
  } catch (const check_failure& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 1;
  } catch (const exala::invalid_argument& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 2;
  } catch (const exala::not_compiled_in& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "exala-bench: out of memory (--n %" PRId64 ")\n", o.n);
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exala-bench: %s\n", e.what());
    return 3;
  }
}
