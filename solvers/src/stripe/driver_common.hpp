// stripe/driver_common.hpp - what the single-process stripe LU driver
// (stripe_lu.cpp) and the distributed one (mpi/src/stripe_lu.cpp,
// stripe_ooc.cpp) share: the option checks, the rules that choose the stripe
// height S, the substripe S' and the pivot-group size m (one rule for both
// drivers: the same options give the same sizes and therefore the same
// bits), the flop units of progress and rates, the progress callbacks and the
// normwise backward error.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "exala/stripe_lu.hpp"

namespace exala::detail::stripe {

struct io_counters;
struct cache_stats;

using clock_type = std::chrono::steady_clock;
constexpr double unit_roundoff = 0x1p-53;
constexpr std::int64_t default_stripe = 1024;  // 0.99x dgetrf at n = 8000 (engine tests)
constexpr std::int64_t default_substripe = 128;

double seconds_since(clock_type::time_point t0);

// The checks of stripe_lu_options common to both drivers: throws
// exala::invalid_argument naming the offending option.
void check_stripe_options(const stripe_lu_options& o);

// The sizes of a factorization of order n: stripe height S, substripe S',
// pivot-group size m (meta), N = ceil(n / S) stripes and G = ceil(N / m)
// groups.
struct stripe_sizes {
  std::int64_t S = 1, Sp = 1, m = 1, N = 0, G = 0;
};
// Guarantee: a pure function of (n, opt.stripe, opt.substripe, opt.meta,
// opt.order, opt.cache_bytes, file_stripe, out_of_core), so that both drivers
// choose the same sizes - hence the same bits - from the same options. Out
// of core, a chosen S follows opt.cache_bytes (>= 8 stripes' active parts)
// and is rounded down to a multiple of file_stripe (rows per orig_ file, 0:
// none); a chosen m leaves room for three stripes. Throws
// exala::invalid_argument("substripe") when S' exceeds S.
stripe_sizes choose_stripe_sizes(std::int64_t n, const stripe_lu_options& opt,
                                 std::int64_t file_stripe, bool out_of_core);

// Flops of the LU (2/3 n^3), the unit of progress and rates.
double lu_flops(std::int64_t n);
// Flops of eliminating pivot rows [r0, r0+s) from `rows` rows (trsm + gemm).
double elim_flops(std::int64_t n, std::int64_t r0, std::int64_t s, std::int64_t rows);
// Flops of factoring a pivot stripe of `rows` rows at r0 (~ LU of rows x (n - r0)).
double factor_flops(std::int64_t n, std::int64_t r0, std::int64_t rows);

// Progress callbacks (opt.on_progress, at most every opt.progress_interval_s
// unless forced): fraction done/total, rate and ETA from the work done since
// start_done, I/O rates from `io` (may be null), cache counts from `cs`.
struct progress_meter {
  const stripe_lu_options& opt;
  std::string phase;
  double total = 1, done = 0, start_done = 0;
  std::int64_t steps = 0;
  clock_type::time_point t0 = clock_type::now(), last{};
  io_counters* io = nullptr;
  std::int64_t read0 = 0, written0 = 0;

  progress_meter(const stripe_lu_options& o, std::string ph, double tot, std::int64_t nsteps,
                 io_counters* c);
  void report(std::int64_t step, const cache_stats* cs, bool force);
};

// Guarantee: exact (a maximum of absolute values): max_i |x(i, c)|, x n x ?
// column-major with leading dimension ldx.
double max_abs_col(std::int64_t n, const double* x, std::int64_t ldx, std::int64_t c);

// Guarantee: reproducible - a fixed sequence of correctly rounded operations
// on its arguments: the normwise backward error max over the nrhs columns c of
// ||r_c||_inf / (norm_inf ||x_c||_inf + ||b_c||_inf) (0 where r_c = 0,
// +inf where the denominator is 0, NaN when a residual is NaN); r n x nrhs
// with leading dimension n.
double backward_error(std::int64_t n, std::int64_t nrhs, const double* b, std::int64_t ldb,
                      const double* x, std::int64_t ldx, const double* r, double norm_inf);

// Guarantee: reproducible - iterative refinement with the exact residual, a
// fixed sequence of steps on its arguments (both stripe LU drivers run it, so
// their refined solutions have the same bits): x := solve(b); then while the
// backward error exceeds u, d := solve(r), x + d is kept while it lowers the
// backward error; it stops when the error reaches u, stops halving, a
// correction changes no bit of x, or after max_refine steps (the header
// stripe_lu.hpp, "Refinement"). solve(nrhs, y, ldy) solves in place;
// residual(b, ldb, x, ldx, r) writes r = b - A x (n x nrhs, ld n).
struct refine_ops {
  std::function<void(std::int64_t nrhs, double* y, std::int64_t ldy)> solve;
  std::function<void(const double* x, std::int64_t ldx, double* r)> residual;
  double norm_inf = 0;
};
refine_report refine_loop(std::int64_t n, std::int64_t nrhs, const double* b, std::int64_t ldb,
                          double* x, std::int64_t ldx, int max_refine, const refine_ops& ops,
                          const stripe_lu_options& opt, io_counters* io);

}  // namespace exala::detail::stripe
