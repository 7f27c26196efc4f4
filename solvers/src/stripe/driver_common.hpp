// stripe/driver_common.hpp - what the single-process stripe LU driver
// (stripe_lu.cpp), the distributed one (mpi/src/stripe_lu.cpp,
// stripe_ooc.cpp) and their one factorization loop (factor_loop.cpp) share: the option checks, the rules that choose the stripe
// height S, the substripe S' and the pivot-group size m (one rule for both
// drivers: the same options give the same sizes and therefore the same
// bits), the flop units of progress and rates, the progress callbacks and the
// normwise backward error.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>

#include "exala/stripe_lu.hpp"

namespace exala::detail::stripe {

struct io_counters;
struct cache_stats;

using clock_type = std::chrono::steady_clock;
constexpr double unit_roundoff = 0x1p-53;
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
// exala::invalid_argument("substripe") when S' exceeds S (as given or
// chosen); S and S' are then clamped to n (at least 1).
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
  // As report, for a loop that must not throw here (the other ranks would be
  // left waiting): the callback's exception goes into `kept`, for the loop
  // to throw at its next step or agreement. Nothing is reported once `kept`
  // holds an exception (the callback's or the loop's own).
  void report_or_keep(std::int64_t step, const cache_stats* cs, bool force, std::exception_ptr& kept);
};

// Guarantee: exact (a maximum of absolute values): max_i |x(i, c)|, x n x ?
// column-major with leading dimension ldx; NaN when an entry is NaN.
double max_abs_col(std::int64_t n, const double* x, std::int64_t ldx, std::int64_t c);

// ---- power-of-two scaling (stripe_lu.hpp, "Range") ----
// Values whose largest magnitude lies in [2^-safe_exponent, 2^safe_exponent]
// are used as given, so ordinary data keep their bits; outside it they are
// scaled by a power of two (exact unless an entry falls below 2^-1022).
constexpr int safe_exponent = 511;
// Guarantee: exact. The exponent e with 2^-e m in [1, 2) when m (a largest
// magnitude) lies outside [2^-511, 2^511]; 0 for m in it, m = 0 or m not finite.
int scale_exponent(double m);
// Guarantee: each entry rounded once: a := 2^-k a on a rows x cols block (ld),
// exact unless an entry falls below 2^-1022 (then rounded to the nearest
// subnormal or zero). k = 0 leaves a untouched.
void scale_block(std::int64_t rows, std::int64_t cols, double* a, std::int64_t lda, int k);
// Guarantee: a fixed sequence of correctly rounded additions (the in-core
// ||A||_inf of both drivers, rows of a stripe at a time): rowsum[i] +=
// |2^-k a(i, j)| for j = 0 .. n-1 in that order.
void add_row_sums(std::int64_t rows, std::int64_t n, const double* a, std::int64_t lda, int k,
                  double* rowsum);

class store;
// Guarantee: exact maxima of correctly rounded sums (exala::asum): max over
// the rows i in [row0, row0 + rows) of the stored original matrix of
// round(sum_j |2^-k a_ij|), read in chunks of rows. Used where the
// manifest's ||A||_inf overflowed (inf): with k = scale_exponent(max |a_ij|)
// it is finite, and where both are finite it is the manifest's value times
// 2^-k exactly.
double stored_row_norm(const store& sto, std::int64_t n, std::int64_t row0, std::int64_t rows, int k);

// checksum64 of the rows x cols column-major block a (ld), column by
// column from `seed` (seed itself for an empty block or a null a): both
// drivers' check of a replicated right-hand side or of the caller's copy of
// A against the matrix that was factored.
std::uint64_t block_checksum(std::int64_t rows, std::int64_t cols, const double* a, std::int64_t ld,
                             std::uint64_t seed);

// Both drivers' rule for objects factored in place (no copy of A kept):
// `routine`'s residual needs A again from the caller - `arg`, passed as
// `how` - exactly when the object was factored in place; invalid_argument
// otherwise (naming `routine` when it is missing, `arg` when refused).
void check_residual_source(bool in_place, bool given, const char* routine, const char* arg,
                           const char* how);

// The first pass over an in-memory A (both drivers' constructors): copies the
// rows x n block a (lda) into dst (ld_dst) when dst is not null (null: A is
// factored where it is) and, when dst2 is not null, into dst2 (ld_dst2),
// column by column; adds |a(i, j)| to rowsum[i] for j = 0 ..
// n-1 in that order (add_row_sums' bits with k = 0) and keeps the largest
// |a(i, j)|. Stops at the first entry that is not finite in column order and
// names it (bad_row, bad_col; -1 when every entry is finite), with the
// destinations and rowsum then partly written.
struct copy_scan {
  double max_abs = 0;
  std::int64_t bad_row = -1, bad_col = -1;
};
copy_scan copy_and_scan(std::int64_t rows, std::int64_t n, const double* a, std::int64_t lda,
                        double* dst, std::int64_t ld_dst, double* dst2, std::int64_t ld_dst2,
                        double* rowsum);

// Where copy_and_scan's max|a_ij| gives a scale exponent k != 0: lu := 2^-k
// lu (scale_block) on the rows x n block, and returns the largest row sum of
// |2^-k a0(i, j)| in column order (add_row_sums). a0 may be lu (no copy of A
// kept): the sums are then those of the scaled lu, the same values.
double scale_copy(std::int64_t rows, std::int64_t n, const double* a0, std::int64_t ld0, double* lu,
                  std::int64_t ldlu, int k);

// The scaling of a factorization: A was factored as A' = 2^-exp A (exp =
// scale_exponent(max |a_ij|)), norm = ||A'||_inf (so ||A||_inf = norm 2^exp),
// max_abs = max |a_ij| of A itself (for messages), max_scaled = max |a'_ij|.
struct matrix_scale {
  int exp = 0;
  double norm = 0;
  double max_abs = 0;
  double max_scaled = 0;
  // Sets exp, max_abs and max_scaled from max |a_ij| (norm is the caller's).
  void set_max(double max_abs_of_a);
};
// Guarantee: exact (a power-of-two scaling, or n u max |a'_ij| rounded as
// always): the pivot threshold of opt in the units of A' = 2^-s.exp A, the
// same in both drivers.
double pivot_threshold(const stripe_lu_options& opt, std::int64_t n, const matrix_scale& s);

// Guarantee: reproducible and exactly scaled - y := A^-1 y for the n x nrhs
// block y (ldy), as raw(nrhs, y, ldy) computes (A')^-1 y with the factors of
// A' = 2^-s.exp A: each column c whose largest magnitude m_c lies outside the
// safe range is first scaled by 2^-t_c (t_c = scale_exponent(m_c)), and the
// result of column c is scaled by 2^(t_c - s.exp) (one ldexp per entry). With
// s.exp = 0 and every m_c in the safe range, y gets exactly raw's bits;
// otherwise the bits of raw on the scaled data, scaled back (the same bits,
// up to a power of two, as the unscaled computation wherever that one
// neither overflows nor underflows). Returns false when a column that was
// finite on entry holds a non-finite entry on return; with `check` that
// throws exala::solution_overflow instead (naming the column and the row).
using solve_fn = std::function<void(std::int64_t nrhs, double* y, std::int64_t ldy)>;
bool scaled_solve(std::int64_t n, std::int64_t nrhs, double* y, std::int64_t ldy,
                  const matrix_scale& s, const solve_fn& raw, bool check);

// Guarantee: reproducible - a fixed sequence of correctly rounded operations
// on its arguments: the normwise backward error max over the nrhs columns c of
// ||r_c||_inf / (norm_inf 2^norm_exp ||x_c||_inf + ||b_c||_inf), r n x nrhs
// with leading dimension n. Computed as written where every intermediate is
// a normal double (ordinary data: the same bits as always), otherwise from
// the operands' exponents and mantissas (frexp) so that nothing overflows or
// underflows on the way: finite data give a finite value, and a nonzero
// residual never gives 0 (a ratio below the smallest subnormal is reported
// as the smallest subnormal). 0 where r_c = 0; +inf where the denominator is
// 0 or r_c or x_c has an infinite entry; NaN when r, x or b holds a NaN.
double backward_error(std::int64_t n, std::int64_t nrhs, const double* b, std::int64_t ldb,
                      const double* x, std::int64_t ldx, const double* r, double norm_inf,
                      int norm_exp = 0);

// The `why` of a singular_pivot message ("exala: stripe LU: <why> pivot at
// column ..."), or "" when the message does not have that shape.
std::string pivot_why(const std::string& what);
// The pivot error of a factorization of A' = 2^-k A in A's units: the value
// and the threshold (thr, as the kernels used it) scaled back by 2^k.
// Returns e itself (same message) when k = 0.
singular_pivot unscaled_pivot_error(const singular_pivot& e, int k, double thr);
// Runs factor() and rethrows its singular_pivot in A's units (s.exp, thr:
// the threshold the kernels used), as both drivers report pivot errors.
void factor_in_units_of_a(const matrix_scale& s, double thr, const std::function<void()>& factor);

// Guarantee: reproducible - iterative refinement with the exact residual, a
// fixed sequence of steps on its arguments (both stripe LU drivers run it, so
// their refined solutions have the same bits): x := solve(b); then while the
// backward error exceeds u, d := solve(r), x + d is kept while it lowers the
// backward error; it stops when the error reaches u, stops halving, a
// correction changes no bit of x, or after max_refine steps (the header
// stripe_lu.hpp, "Refinement"). solve(nrhs, y, ldy) solves in place;
// residual(b, ldb, x, ldx, r) writes r = b - A x (n x nrhs, ld n).
// solve is the raw solve with the factors of A' (refine_loop scales around
// it: scaled_solve with `scale`); the first solve of b throws
// exala::solution_overflow when a finite column gives a non-finite x, and a
// correction that is not finite ends the refinement (x is kept).
struct refine_ops {
  solve_fn solve;
  std::function<void(const double* x, std::int64_t ldx, double* r)> residual;
  matrix_scale scale;
  // Runs f so that every rank throws when one does (MPI: detail::agree; one
  // process: f itself). The progress reports run in it: the user's callback
  // may throw on one rank only.
  std::function<void(const std::function<void()>& f)> agree = [](const std::function<void()>& f) { f(); };
};
refine_report refine_loop(std::int64_t n, std::int64_t nrhs, const double* b, std::int64_t ldb,
                          double* x, std::int64_t ldx, int max_refine, const refine_ops& ops,
                          const stripe_lu_options& opt, io_counters* io);

}  // namespace exala::detail::stripe
