// bench_common.hpp - what every exala-bench routine shares: the options, the
// data, and the timing method (interleaved contenders, calibrated inner
// loops, medians, settled idle threads). See bench/README.md.
//
// Assumptions and method, stated once:
// - One sample times `inner` back-to-back calls (inner chosen so that a
//   sample lasts >= ~2 ms; 1 for large problems) and divides by inner. Every
//   repetition takes one sample of ours and of each baseline, in an order
//   rotated per repetition, so machine noise and cache state hit all alike.
//   Each sample is preceded by a 1 ms busy wait (idle threads of the previous
//   contender go to sleep) and one untimed call (the contender's own threads
//   are awake), so every contender is timed in the same steady state.
// - Default repetitions: enough for ~0.3 s of samples of the slowest
//   contender, clamped to [5, 200].
// - Arrays are 64-byte aligned and first-touched (by the threads that will
//   read them, static split) before the data are written and timed.
// - A contender's call may change its own output (y, x, C, B): the inputs it
//   reads are never changed, and every call does the same amount of work.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "exala/backend.hpp"

namespace exala_bench {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A --check that found different bits (exit status 1).
struct check_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class data_kind { uniform, wide };

struct options {
  std::string routine;
  std::int64_t n = -1;
  std::int64_t nrhs = -1;  // trsm: right-hand sides (default n)
  std::int64_t k = -1;     // gemm: inner dimension (default n; given: the update C -= A B)
  std::vector<exala::backend> backends{exala::backend::simd};
  bool backends_given = false;
  int threads = 0;  // 0: per-backend default (1, or 2 for omp)
  bool threads_given = false;
  data_kind data = data_kind::uniform;
  bool row_major = true;  // --layout row|col (level 2/3)
  int reps = 0;           // 0: automatic
  std::uint64_t seed = 42;
  bool check = false;
};

// Threads of backend b (and of its baselines).
int threads_for(const options& o, exala::backend b);
// The most threads any contender of this run uses.
int max_threads(const options& o);

// ---- memory and data ----

struct free_deleter {
  void operator()(double* p) const noexcept { std::free(p); }
};
using buffer = std::unique_ptr<double[], free_deleter>;

// 64-byte aligned, first-touched by `threads` threads (static split).
buffer allocate_touched(std::int64_t n, int threads);

// uniform: U[-1, 1]; wide: U[-1, 1] * 2^k with k uniform in [-wide_exp, wide_exp].
void fill(double* p, std::int64_t n, data_kind kind, int wide_exp, std::mt19937_64& gen);

std::string_view name_of(data_kind k);

// A well-conditioned n x n lower-triangular matrix in the given layout (the
// strict upper triangle zero): diagonal entries +-U[1, 2], the others
// U[-1, 1] / n, so that |x| stays within a factor e of |b| (the solves of all
// contenders see moderate, uniform data).
void fill_lower_triangular(double* a, std::int64_t n, bool row_major, std::mt19937_64& gen);

// The plain substitution loop for lower-triangular, non-transposed, non-unit
// T x = b (x holds b on entry): row-major runs a dot product per row,
// column-major an axpy per column, every operation rounded to nearest. The
// `naive` baseline of the triangular solves.
void naive_trsv_lower(const double* a, std::int64_t n, bool row_major, double* x);

// ---- timing ----

extern volatile double g_sink;  // every timed result ends up here

// Tells the compiler that memory may have changed, so calls on the same data
// cannot be merged or hoisted out of the timing loop.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

struct contender {
  contender(std::string n, std::function<double()> f) : name(std::move(n)), call(std::move(f)) {}
  std::string name;
  std::function<double()> call;  // returns something that depends on the result
  long inner = 1;                // calls per sample
  std::vector<double> samples;   // seconds per call
};

// Times all contenders with interleaved, rotated repetitions (reps_opt 0:
// automatic); fills each contender's samples.
void run_interleaved(std::vector<contender>& cs, int reps_opt);

double median(std::vector<double> v);

// Prints the CSV header (once per process).
void print_header();
// One CSV line per baseline: cs[0] is ours.
void print_rows(std::string_view routine, std::string_view backend, std::int64_t n, int threads,
                const std::vector<contender>& cs);

// Throws check_failure naming the first differing entry of `got` against
// `expected` (bit comparison; NaNs must have the same bits too).
void check_same_bits(std::string_view what, const double* got, const double* expected,
                     std::int64_t count);

#ifdef EXALA_BENCH_HAVE_OPENBLAS
// openblas_set_num_threads, declared here so that cblas.h stays in the
// files that call OpenBLAS.
void set_openblas_threads(int t);
#else
inline void set_openblas_threads(int) {}
#endif

// ---- the routines (one file each) ----

int run_blas1(const options& o);    // sum asum dot      (blas1_bench.cpp)
int run_blas2(const options& o);    // gemv trsv         (blas2_bench.cpp)
int run_blas3(const options& o);    // gemm trsm         (blas3_bench.cpp)
int run_solvers(const options& o);  // trsv-compensated trsv-double-double (solvers_bench.cpp)

}  // namespace exala_bench
