// stripe_bench.cpp - exala-bench-stripe: the stripe LU against LAPACK dgetrf
// (OpenBLAS) in the same run.
//
//   exala-bench-stripe incore --n N [--stripe S] [--substripe S'] [--threads T]
//                             [--reps R] [--pivot local|partial] [--seed S]
//   exala-bench-stripe ooc --n N --workdir DIR --cache BYTES [--order O] [--meta M]
//                          [--stripe S] [--substripe S'] [--threads T] [--io-threads K]
//                          [--drop-page-cache] [--baseline-n NB] [--seed S]
//   --engine cpu|cuda (both modes): the stripe LU's engine (cuda: built with CUDA)
//
// incore: R interleaved repetitions of (our factorization of a uniform
// [-0.5, 0.5] matrix, dgetrf_ of the same matrix), medians; both with T
// threads (OpenBLAS's own threads for dgetrf). A second line,
// incore-in-place, times the whole exala::stripe_lu::in_place call (checks,
// checksum of A, factorization) on a copy of A made before the clock starts,
// as dgetrf_'s is.
// ooc: generates the system in DIR if it holds none of this n, factors it out
// of core with a cache of BYTES (resume off: a full run), then times dgetrf_
// at order NB (default N; 0 skips) in the same process. The peak resident set
// of the out-of-core run is read (getrusage) before the baseline allocates.
// Both print one CSV line:
//   mode,n,stripe,substripe,meta,order,pivot,cache_mib,threads,seconds,gflops,
//   baseline_n,baseline_seconds,baseline_gflops,ratio,read_gb,written_gb,
//   hits,misses,peak_cache_mib,peak_rss_mib,io_wait_seconds
// ratio = our GFLOP/s / the baseline's (higher is better); GFLOP/s counts
// 2/3 n^3 flops.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#ifdef EXALA_BENCH_HAVE_CUDA
#include "exala/cuda.hpp"  // registers --engine cuda
#endif

extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void openblas_set_num_threads(int);
}

namespace {

using i64 = std::int64_t;
using clk = std::chrono::steady_clock;

struct args {
  std::string mode;
  i64 n = 0, stripe = 0, substripe = 0, meta = 0, baseline_n = -1;
  int threads = 2, io_threads = 2, reps = 3;
  std::uint64_t cache = 0, seed = 1;
  std::string workdir, order = "zigzag", pivot = "local", engine = "cpu";
  bool drop = false;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "exala-bench-stripe: %s\n", why.c_str());
  std::exit(2);
}

i64 parse_int(std::string_view name, const char* v) {
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || x < 0) usage("bad value for " + std::string(name) + ": '" + v + "'");
  return x;
}

std::uint64_t parse_bytes(const char* v) {
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  std::string suf(end);
  double mul = 1;
  if (suf == "KiB" || suf == "K") mul = 1024.0;
  else if (suf == "MiB" || suf == "M") mul = 1024.0 * 1024;
  else if (suf == "GiB" || suf == "G") mul = 1024.0 * 1024 * 1024;
  else if (!suf.empty()) usage(std::string("bad size '") + v + "'");
  if (end == v || !(x > 0)) usage(std::string("bad size '") + v + "'");
  return std::uint64_t(x * mul);
}

args parse(int argc, char** argv) {
  if (argc < 2) usage("usage: exala-bench-stripe incore|ooc --n N ... (see the top of stripe_bench.cpp)");
  args a;
  a.mode = argv[1];
  if (a.mode != "incore" && a.mode != "ooc") usage("unknown mode '" + a.mode + "'");
  for (int i = 2; i < argc; ++i) {
    const std::string_view k = argv[i];
    if (k == "--drop-page-cache") {
      a.drop = true;
      continue;
    }
    if (i + 1 >= argc) usage("missing value after " + std::string(k));
    const char* v = argv[++i];
    if (k == "--n") a.n = parse_int(k, v);
    else if (k == "--stripe") a.stripe = parse_int(k, v);
    else if (k == "--substripe") a.substripe = parse_int(k, v);
    else if (k == "--meta") a.meta = parse_int(k, v);
    else if (k == "--threads") a.threads = int(parse_int(k, v));
    else if (k == "--io-threads") a.io_threads = int(parse_int(k, v));
    else if (k == "--reps") a.reps = int(parse_int(k, v));
    else if (k == "--seed") a.seed = std::uint64_t(parse_int(k, v));
    else if (k == "--baseline-n") a.baseline_n = parse_int(k, v);
    else if (k == "--cache") a.cache = parse_bytes(v);
    else if (k == "--workdir") a.workdir = v;
    else if (k == "--order") a.order = v;
    else if (k == "--pivot") a.pivot = v;
    else if (k == "--engine") a.engine = v;
    else usage("unknown option '" + std::string(k) + "'");
  }
  if (a.n < 1) usage("--n must be >= 1");
  if (a.reps < 1) usage("--reps must be >= 1");
  if (a.mode == "ooc" && a.workdir.empty()) usage("ooc needs --workdir");
  if (a.baseline_n < 0) a.baseline_n = a.n;
  return a;
}

double gflops(i64 n, double s) { return s > 0 ? 2.0 / 3.0 * double(n) * double(n) * double(n) / s * 1e-9 : 0; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<double> uniform_matrix(i64 n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  std::vector<double> a(std::size_t(n * n));
  for (double& v : a) v = d(g);
  return a;
}

double time_dgetrf(i64 n, const std::vector<double>& a0, int threads) {
  std::vector<double> a = a0;
  std::vector<int> piv(static_cast<std::size_t>(n));
  const int nn = int(n);
  int info = 0;
  openblas_set_num_threads(threads);
  const auto t0 = clk::now();
  dgetrf_(&nn, &nn, a.data(), &nn, piv.data(), &info);
  return std::chrono::duration<double>(clk::now() - t0).count();
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;
}

exala::stripe_lu_options make_options(const args& a) {
  exala::stripe_lu_options o;
  o.stripe = a.stripe;
  o.substripe = a.substripe;
  o.meta = a.meta;
  o.order = exala::parse_stripe_order(a.order, "--order");
  o.pivot = exala::parse_pivoting(a.pivot, "--pivot");
  o.threads = a.threads;
  o.io_threads = a.io_threads;
  o.cache_bytes = a.cache;
  o.drop_page_cache = a.drop;
  o.engine = a.engine;
  o.resume = false;
  return o;
}

void print(const args& a, const exala::stripe_lu_report& r, double secs, i64 nb, double bsecs,
           double rss, const std::string& mode) {
  const double g = gflops(a.n, secs), bg = nb > 0 ? gflops(nb, bsecs) : 0;
  static bool header = true;
  if (header)
    std::printf(
        "mode,n,stripe,substripe,meta,order,pivot,cache_mib,threads,seconds,gflops,baseline_n,"
        "baseline_seconds,baseline_gflops,ratio,read_gb,written_gb,hits,misses,peak_cache_mib,"
        "peak_rss_mib,io_wait_seconds\n");
  header = false;
  std::printf("%s,%lld,%lld,%lld,%lld,%s,%s,%.0f,%d,%.3f,%.2f,%lld,%.3f,%.2f,%.3f,%.2f,%.2f,%lld,%lld,%.0f,%.0f,%.2f\n",
              mode.c_str(), (long long)a.n, (long long)r.stripe, (long long)r.substripe,
              (long long)r.meta, r.order.c_str(), r.pivot.c_str(), double(a.cache) / 1048576.0,
              a.threads, secs, g, (long long)nb, bsecs, bg, bg > 0 ? g / bg : 0.0,
              double(r.bytes_read) * 1e-9, double(r.bytes_written) * 1e-9, (long long)r.cache_hits,
              (long long)r.cache_misses, double(r.peak_cache_bytes) / 1048576.0, rss,
              r.io_wait_seconds);
  std::fflush(stdout);
}

int run(const args& a) {
  auto o = make_options(a);
  if (a.mode == "incore") {
    const auto m = uniform_matrix(a.n, a.seed);
    std::vector<double> ours, whole, base;
    exala::stripe_lu_report rep;
    for (int r = 0; r < a.reps; ++r) {
      // Ours: the factorization's own clock (the constructor also copies A,
      // which it keeps for the refinement residual; dgetrf_ works in place).
      {
        exala::stripe_lu lu(a.n, m.data(), a.n, o);
        rep = lu.report();
        ours.push_back(rep.factor_seconds);
      }
      // In place (stripe_lu::in_place, as dgetrf_: A copied into the work
      // array before the clock starts): the whole call - checks, checksum,
      // factorization.
      {
        std::vector<double> w = m;
        const auto t0 = clk::now();
        const exala::stripe_lu lu = exala::stripe_lu::in_place(a.n, w.data(), a.n, o);
        whole.push_back(std::chrono::duration<double>(clk::now() - t0).count());
      }
      base.push_back(time_dgetrf(a.n, m, a.threads));
    }
    print(a, rep, median(ours), a.n, median(base), peak_rss_mib(), a.mode);
    print(a, rep, median(whole), a.n, median(base), peak_rss_mib(), "incore-in-place");
    return 0;
  }
  // Out of core.
  std::FILE* f = std::fopen((a.workdir + "/manifest").c_str(), "rb");
  const bool have = f != nullptr;
  if (f) std::fclose(f);
  if (!have) {
    std::fprintf(stderr, "generating n = %lld in %s ...\n", (long long)a.n, a.workdir.c_str());
    exala::generate_dense_system({a.workdir}, a.n, 1, a.seed, 512, 0.0, true);
  }
  const auto t0 = clk::now();
  exala::stripe_lu lu({a.workdir}, o);
  const double secs = std::chrono::duration<double>(clk::now() - t0).count();
  if (lu.n() != a.n) usage("the work directory holds n = " + std::to_string(lu.n()));
  const double rss = peak_rss_mib();
  double bsecs = 0;
  if (a.baseline_n > 0) bsecs = time_dgetrf(a.baseline_n, uniform_matrix(a.baseline_n, a.seed), a.threads);
  print(a, lu.report(), secs, a.baseline_n, bsecs, rss, a.mode);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const exala::invalid_argument& e) {
    std::fprintf(stderr, "exala-bench-stripe: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exala-bench-stripe: %s\n", e.what());
    return 3;
  }
}
