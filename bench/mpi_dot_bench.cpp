// mpi_dot_bench.cpp - exala-bench-mpi-dot: the exact distributed dot product
// (exala::mpi::dot) against a plain local dot followed by MPI_Allreduce(SUM),
// in the same run, on the same data.
//
//   mpirun -np P exala-bench-mpi-dot [--n N] [--backend simd|omp|B1,B2]
//                                    [--threads T] [--data uniform|wide]
//                                    [--reps R] [--seed S]
//
// Assumptions and method, stated once:
// - Every rank holds n = --n (default 1e7) elements of x and of y; the global
//   vectors are the concatenation of the ranks' parts in rank order. Entry i
//   of the global vectors is a function of (seed, i) only (a SplitMix64 hash),
//   so rank 0 can rebuild the whole vectors for the check. uniform: U[-1, 1);
//   wide: U[-1, 1) * 2^k with k uniform in [-500, 500].
// - Before any timing, rank 0 checks that exala::mpi::dot (every backend
//   asked for), and the composition dot_into + allreduce timed below, give on
//   every rank the bits of exala::dot of the concatenated vectors with the
//   reference backend (the single-process oracle). A mismatch exits 1 on
//   every rank.
// - Contenders (one sample each per repetition, in an order rotated from one
//   repetition to the next; an MPI_Barrier before each sample; the sample is
//   the maximum over the ranks of the rank's own wall time, MPI_Reduce MAX):
//     exact:B          exala::mpi::dot(comm, n, x, 1, y, 1, exec{B, T})
//     exact-local:B    exala::dot_into(acc, n, x, 1, y, 1, exec{B, T}), no MPI
//     exact-allreduce  exala::mpi::allreduce of one superaccumulator (+ round)
//     openblas         cblas_ddot (1 thread) + MPI_Allreduce(MPI_SUM)
//     openblas-local   cblas_ddot alone
//     naive            the plain loop s += x[i] * y[i] + MPI_Allreduce(MPI_SUM)
//     double-allreduce MPI_Allreduce(MPI_SUM) of one double alone
//   One untimed call of each contender precedes the repetitions. Every exact
//   call must return the checked bits (else exit 1).
// - Output (rank 0, CSV on stdout), one line per contender:
//     ranks,n_local,data,kernel,contender,threads,reps,median_s,min_s,max_s,
//     gb_s,ratio_openblas,ratio_naive
//   kernel: the SIMD kernel set in use (EXALA_SIMD=avx512|avx2|scalar forces one)
//   median/min/max over the repetitions; gb_s = 16 n P bytes / median (the
//   aggregate rate of all ranks; empty for the allreduce-only lines);
//   ratio_* = this median / the median of `openblas` / `naive` (end to end).
// Exit status: 0 success, 1 check failure, 2 bad arguments, 3 other failure.
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cblas.h>

#include "exala/backend.hpp"
#include "exala/blas1.hpp"
#include "exala/error.hpp"
#include "exala/mpi.hpp"
#include "exala/superaccumulator.hpp"

namespace {

using i64 = std::int64_t;
using clk = std::chrono::steady_clock;

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct check_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct args {
  i64 n = 10'000'000;
  std::vector<exala::backend> backends{exala::backend::simd};
  int threads = 1;
  bool wide = false;
  int reps = 15;
  std::uint64_t seed = 42;
};

// Integers, also written as 1e7 when the value is an integer.
i64 parse_count(std::string_view name, const char* v, i64 lo, i64 hi) {
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(d >= double(lo) && d <= double(hi)) || d != std::floor(d))
    throw usage_error("bad value for " + std::string(name) + ": '" + v + "' (an integer in [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + "])");
  return i64(d);
}

args parse(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string_view k = argv[i];
    if (i + 1 >= argc) throw usage_error("missing value after " + std::string(k));
    const char* v = argv[++i];
    if (k == "--n") a.n = parse_count(k, v, 1, INT32_MAX);  // cblas_ddot takes an int
    else if (k == "--threads") a.threads = int(parse_count(k, v, 1, 1024));
    else if (k == "--reps") a.reps = int(parse_count(k, v, 1, 100000));
    else if (k == "--seed") a.seed = std::uint64_t(parse_count(k, v, 0, i64(1) << 52));
    else if (k == "--data") {
      if (std::string_view(v) == "uniform") a.wide = false;
      else if (std::string_view(v) == "wide") a.wide = true;
      else throw usage_error(std::string("bad value for --data: '") + v + "' (uniform or wide)");
    } else if (k == "--backend") {
      a.backends.clear();
      std::string_view s = v;
      while (true) {
        const auto c = s.find(',');
        const auto name = s.substr(0, c);
        exala::backend b{};
        try {
          b = exala::parse_backend(name, "--backend");
        } catch (const exala::error& e) {
          throw usage_error(e.what());
        }
        if (b != exala::backend::simd && b != exala::backend::omp)
          throw usage_error("--backend: only simd and omp are timed here, got '" + std::string(name) + "'");
        if (!exala::is_compiled_in(b))
          throw usage_error("--backend: '" + std::string(name) + "' is not compiled in");
        a.backends.push_back(b);
        if (c == std::string_view::npos) break;
        s.remove_prefix(c + 1);
      }
    } else {
      throw usage_error("unknown option '" + std::string(k) + "'");
    }
  }
  if (a.threads > 1 &&
      std::find(a.backends.begin(), a.backends.end(), exala::backend::omp) == a.backends.end())
    throw usage_error("--threads > 1 needs --backend omp (simd is single-threaded)");
  return a;
}

// ------------------------------------------------------------ data

std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// Global entry i of vector `which` (0: x, 1: y).
double entry(std::uint64_t seed, int which, std::uint64_t i, bool wide) {
  const std::uint64_t h = splitmix(splitmix(seed * 2 + std::uint64_t(which)) ^ i);
  const double u = double(h >> 11) * 0x1p-52 - 1.0;  // [-1, 1), exact
  if (!wide) return u;
  const int k = int(splitmix(h) % 1001) - 500;
  return std::ldexp(u, k);
}

struct free_deleter {
  void operator()(double* p) const noexcept { std::free(p); }
};
using buffer = std::unique_ptr<double[], free_deleter>;

buffer make_vector(const args& a, int which, std::uint64_t first, i64 n) {
  const std::size_t bytes = (std::size_t(std::max<i64>(n, 1)) * 8 + 63) / 64 * 64;
  buffer b(static_cast<double*>(std::aligned_alloc(64, bytes)));
  if (!b) throw std::bad_alloc();
  for (i64 i = 0; i < n; ++i) b[i] = entry(a.seed, which, first + std::uint64_t(i), a.wide);
  return b;
}

// ------------------------------------------------------------ contenders

volatile double g_sink = 0;
inline void clobber_memory() { asm volatile("" : : : "memory"); }

__attribute__((noinline)) double naive_dot(i64 n, const double* x, const double* y) {
  double s = 0.0;
  for (i64 i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

double allreduce_sum(double v) {
  double g = 0;
  MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return g;
}

struct contender {
  std::string name;
  int threads = 1;
  bool streams = true;  // reads the vectors (has a GB/s)
  std::function<double()> call;
  std::vector<double> samples;  // rank 0: max over ranks, seconds
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size();
  if (m == 0) return 0;
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

// True on every rank when ok holds on every rank.
bool all_ranks(bool ok) {
  int v = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

int run(const args& a) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Comm comm = MPI_COMM_WORLD;
  const i64 n = a.n;
  openblas_set_num_threads(1);

  const buffer x = make_vector(a, 0, std::uint64_t(rank) * std::uint64_t(n), n);
  const buffer y = make_vector(a, 1, std::uint64_t(rank) * std::uint64_t(n), n);

  auto exec_of = [&](exala::backend b) {
    exala::exec e;
    e.backend = b;
    e.threads = b == exala::backend::omp ? a.threads : 0;
    return e;
  };

  // ---- the check, before any timing
  double expected = 0;
  std::string failure;
  if (rank == 0) {
    const i64 total = n * size;
    const buffer gx = make_vector(a, 0, 0, total);
    const buffer gy = make_vector(a, 1, 0, total);
    exala::exec ref;
    ref.backend = exala::backend::reference;
    expected = exala::dot(total, gx.get(), 1, gy.get(), 1, ref);
  }
  MPI_Bcast(&expected, 1, MPI_DOUBLE, 0, comm);
  exala::superaccumulator local_acc;  // this rank's exact partial sum (for exact-allreduce)
  bool ok = true;
  for (exala::backend b : a.backends) {
    const double d = exala::mpi::dot(comm, n, x.get(), 1, y.get(), 1, exec_of(b));
    if (bits(d) != bits(expected)) {
      ok = false;
      char t[200];
      std::snprintf(t, sizeof t, "exala::mpi::dot (%s) = %.17g, exala::dot (reference) = %.17g",
                    std::string(exala::to_string(b)).c_str(), d, expected);
      failure = t;
    }
    exala::superaccumulator acc;
    exala::dot_into(acc, n, x.get(), 1, y.get(), 1, exec_of(b));
    local_acc = acc;
    exala::mpi::allreduce(comm, acc);
    if (bits(acc.round()) != bits(expected)) {
      ok = false;
      failure = "dot_into + allreduce (" + std::string(exala::to_string(b)) + ") differs from exala::dot";
    }
  }
  if (!all_ranks(ok)) {
    if (!ok) std::fprintf(stderr, "exala-bench-mpi-dot: rank %d: check failed: %s\n", rank, failure.c_str());
    return 1;
  }
  if (rank == 0)
    std::fprintf(stderr,
                 "exala-bench-mpi-dot: check passed: exact dot of %lld elements on %d rank(s) = %.17g, "
                 "the bits of exala::dot (reference) of the concatenated vectors\n",
                 (long long)(n * size), size, expected);

  // ---- the contenders
  bool exact_bits_ok = true;
  std::vector<contender> cs;
  for (exala::backend b : a.backends) {
    const exala::exec e = exec_of(b);
    const int th = b == exala::backend::omp ? a.threads : 1;
    const std::string bn(exala::to_string(b));
    cs.push_back({"exact:" + bn, th, true, [&, e] {
                    const double d = exala::mpi::dot(comm, n, x.get(), 1, y.get(), 1, e);
                    if (bits(d) != bits(expected)) exact_bits_ok = false;
                    return d;
                  }, {}});
    cs.push_back({"exact-local:" + bn, th, true, [&, e] {
                    exala::superaccumulator acc;
                    exala::dot_into(acc, n, x.get(), 1, y.get(), 1, e);
                    return acc.round();
                  }, {}});
  }
  cs.push_back({"exact-allreduce", 1, false, [&] {
                  exala::superaccumulator acc = local_acc;
                  exala::mpi::allreduce(comm, acc);
                  const double d = acc.round();
                  if (bits(d) != bits(expected)) exact_bits_ok = false;
                  return d;
                }, {}});
  cs.push_back({"openblas", 1, true, [&] {
                  return allreduce_sum(cblas_ddot(int(n), x.get(), 1, y.get(), 1));
                }, {}});
  cs.push_back({"openblas-local", 1, true, [&] { return cblas_ddot(int(n), x.get(), 1, y.get(), 1); }, {}});
  cs.push_back({"naive", 1, true, [&] { return allreduce_sum(naive_dot(n, x.get(), y.get())); }, {}});
  cs.push_back({"double-allreduce", 1, false, [&] { return allreduce_sum(double(rank)); }, {}});

  for (auto& c : cs) {  // warm-up
    MPI_Barrier(comm);
    g_sink = g_sink + c.call();
    clobber_memory();
  }
  const std::size_t nc = cs.size();
  for (int r = 0; r < a.reps; ++r) {
    for (std::size_t k = 0; k < nc; ++k) {
      contender& c = cs[(k + std::size_t(r)) % nc];
      MPI_Barrier(comm);
      clobber_memory();
      const auto t0 = clk::now();
      const double v = c.call();
      clobber_memory();
      const double dt = std::chrono::duration<double>(clk::now() - t0).count();
      g_sink = g_sink + v;
      double worst = 0;
      MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
      if (rank == 0) c.samples.push_back(worst);
    }
  }
  if (!all_ranks(exact_bits_ok)) {
    if (rank == 0) std::fprintf(stderr, "exala-bench-mpi-dot: a timed exact call returned other bits\n");
    return 1;
  }

  if (rank == 0) {
    auto med_of = [&](std::string_view name) {
      for (auto& c : cs)
        if (c.name == name) return median(c.samples);
      return 0.0;
    };
    const double mo = med_of("openblas"), mn = med_of("naive");
    const std::string kernel(exala::to_string(exala::active_kernel_set()));
    std::printf("ranks,n_local,data,kernel,contender,threads,reps,median_s,min_s,max_s,gb_s,ratio_openblas,ratio_naive\n");
    for (auto& c : cs) {
      const double m = median(c.samples);
      const auto [lo, hi] = std::minmax_element(c.samples.begin(), c.samples.end());
      char gbs[32] = "";
      if (c.streams) std::snprintf(gbs, sizeof gbs, "%.2f", 16.0 * double(n) * size / m * 1e-9);
      std::printf("%d,%lld,%s,%s,%s,%d,%d,%.6e,%.6e,%.6e,%s,%.4f,%.4f\n", size, (long long)n,
                  a.wide ? "wide" : "uniform", kernel.c_str(), c.name.c_str(), c.threads, a.reps, m, *lo, *hi, gbs,
                  mo > 0 ? m / mo : 0.0, mn > 0 ? m / mn : 0.0);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 0;
  try {
    status = run(parse(argc, argv));  // every rank parses the same arguments
  } catch (const usage_error& e) {
    if (rank == 0) std::fprintf(stderr, "exala-bench-mpi-dot: %s\n", e.what());
    status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exala-bench-mpi-dot: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);  // the other ranks may be inside a collective
  }
  MPI_Finalize();
  return status;
}
