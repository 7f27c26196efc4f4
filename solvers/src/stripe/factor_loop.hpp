// stripe/factor_loop.hpp - the stripe LU's factorization loops, written once
// for one process and for MPI (exala::stripe_lu, exala::mpi::stripe_lu).
//
// A `distribution` says who owns a stripe and how the owners talk: one
// process owns every stripe and never talks (this base class); the MPI layer
// derives from it (stripe J on rank J % P, broadcasts, agreement). Every loop
// below is written for P ranks; with P = 1 its collectives are plain calls.
//
// Bits: each stripe receives the same engine calls whatever the distribution,
// the engine's pivot-group size, the cache, the traversal order or a resume
// (kernels.hpp): the loops only decide who makes a call and when. Stripe J is
// eliminated by pivot stripes 0..J-1 in that order, then factored; the
// broadcasts only move bits.
//
// Error contract (any P): a rank that fails in a step makes every rank throw
// at the next collective (distribution::agree / owner_step, or the outcome a
// step's broadcast carries), so no rank is left waiting; with P = 1 the
// exception simply propagates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "driver_common.hpp"
#include "engine.hpp"
#include "exala/stripe_lu.hpp"
#include "kernels.hpp"

namespace exala::detail::stripe {

class store;
class stripe_cache;

// The engine of a factorization: the CPU engine, or the device engine that
// the gpu layer registered under opt.engine. make_factor_engine throws
// exala::not_compiled_in for an engine name that no linked layer registered.
struct factor_engine {
  std::unique_ptr<dense_engine> cpu;
  std::unique_ptr<device_engine> dev;
  dense_engine& get() { return dev ? *dev : *cpu; }
};
factor_engine make_factor_engine(const stripe_lu_options& opt);

class distribution {
 public:
  explicit distribution(int rank = 0, int ranks = 1) : rank_(rank), P_(ranks) {}
  virtual ~distribution() = default;

  int rank() const noexcept { return rank_; }
  int ranks() const noexcept { return P_; }
  int owner(std::int64_t J) const noexcept { return int(J % P_); }
  bool mine(std::int64_t J) const noexcept { return owner(J) == rank_; }
  // The first stripe >= J that this rank owns (may be >= N).
  std::int64_t first_own(std::int64_t J) const noexcept {
    return J + ((rank_ - J % P_) % P_ + P_) % P_;
  }

  // Runs `local` on every rank; when it throws on any rank, every rank throws
  // (its own exception, or an error naming the failed rank).
  virtual void agree(const std::function<void()>& local) { local(); }
  // Runs `step` on rank `root` only and shares its outcome: every rank
  // returns, or every rank throws (a singular pivot with the same column and
  // value everywhere; `threshold` is the one root's kernel used).
  virtual void owner_step(int root, double threshold, const std::function<void()>& step) {
    (void)root, (void)threshold;
    step();
  }
  // `count` doubles at p from `root` to every rank.
  virtual void broadcast(int root, double* p, std::int64_t count) { (void)root, (void)p, (void)count; }
  // all[r] = rank r's `mine` (all holds ranks() values).
  virtual void all_gather(std::int64_t mine, std::int64_t* all) { all[0] = mine; }

  // Lookahead: a step of rank `root` whose outcome and `count` doubles at p
  // travel while every rank works on. begin_step starts it (the other ranks
  // start receiving into p); on root, run(step) runs the step and starts
  // sending p; overlap(work) runs work (which makes no collective call) while
  // the started transfers move; finish() waits for them, then every rank
  // returns or every rank throws, as after owner_step. One process: run(step)
  // is step(), whose exception propagates; the rest does nothing.
  class async_step {
   public:
    virtual ~async_step() = default;
    virtual void run(const std::function<void()>& step) { step(); }
    virtual void finish() {}
  };
  virtual std::unique_ptr<async_step> begin_step(int root, double threshold, double* p, std::int64_t count) {
    (void)root, (void)threshold, (void)p, (void)count;
    return std::make_unique<async_step>();
  }
  virtual void overlap(const std::function<void()>& work) { work(); }
  virtual std::int64_t min_over_ranks(std::int64_t v) { return v; }
  virtual std::int64_t max_over_ranks(std::int64_t v) { return v; }

 private:
  int rank_, P_;
};

// What the loops need from the driver: the sizes, the scaled matrix's pivot
// threshold and exponent, the options (order, cache, checkpoints, progress),
// the report, and two driver hooks.
struct factor_setup {
  const stripe_lu_options& opt;
  stripe_lu_report& rep;
  std::int64_t n = 0, S = 1, Sp = 1, m = 1, N = 0, G = 0;
  double threshold = 0;  // in the units of A' = 2^-scale_exp A
  int scale_exp = 0;
  // Records the pivots of a factored stripe (first row r0) in the report.
  std::function<void(const block& b, std::int64_t r0)> note_pivots = {};
  // Called once when the loop's work is done, with this run's factorization
  // seconds and the flops an earlier run had done (resume): the report's
  // time and rate (MPI: the slowest rank's time, the smallest pivot ratio).
  std::function<void(double seconds, double resumed_flops)> finish = {};

  std::int64_t rows(std::int64_t J) const { return std::min(S, n - J * S); }
  std::int64_t col_of_group(std::int64_t g) const { return std::min(n, g * m * S); }
};

// What both drivers (exala::stripe_lu, exala::mpi::stripe_lu) know of a
// factorization: options, report, sizes, the scale of A' = 2^-sc.exp A
// (stripe_lu.hpp, "Range"), and the rules that derive them, once.
struct driver_state {
  stripe_lu_options opt;
  stripe_lu_report rep;
  std::int64_t n = 0, S = 1, Sp = 1, m = 1, N = 0, G = 0;
  std::int64_t file_stripe = 0;  // rows per orig_ file of the system (out of core)
  matrix_scale sc;

  std::int64_t rows(std::int64_t J) const { return std::min(S, n - J * S); }
  std::int64_t col_of_group(std::int64_t g) const { return std::min(n, g * m * S); }
  // The pivot threshold in the units of A'.
  double threshold() const { return pivot_threshold(opt, n, sc); }
  // max |a_ij| -> sc.exp, sc.max_abs, sc.max_scaled (not sc.norm).
  void set_scale(double max_abs);
  // (S, S', m, N, G) by choose_stripe_sizes - the same options give the same
  // sizes, hence the same bits, in both drivers - and the report's names.
  void choose_sizes(bool out_of_core);
  // The loops' view of this state, with the driver's pivot record and finish.
  factor_setup setup(std::function<void(const block&, std::int64_t)> note_pivots,
                     std::function<void(double, double)> finish);
  // A cache of whole read-only stripes (rows(I) x n, ld rows(I)) filled by
  // `fill`: the streams of the solve phase (lu_) and of the residual (orig_).
  std::unique_ptr<stripe_cache> whole_stripes(std::function<void(std::int64_t, double*)> fill) const;
};

// This rank's stripe J in memory (rows(J) x n, columns from 0). With more
// than one rank its leading dimension must be rows(J) (columns [J*S, n) are
// broadcast as one piece).
using own_stripe_fn = std::function<block(std::int64_t J)>;

// In memory on a CPU engine, local pivoting: for each J, its owner factors
// it, broadcasts columns [J*S, n), and every rank eliminates it from its own
// later stripes; with lookahead (the owner of J + 1 eliminates J from it and
// factors it first, and its broadcast travels during the rest of the sweep
// of J). ipiv + J*S: stripe J's in-stripe pivots (set on its owner).
void factor_in_memory(const factor_setup& f, distribution& d, dense_engine& e,
                      const own_stripe_fn& own, std::int64_t* ipiv);
// Test hook: the first factor_in_memory of this process that reaches step
// `step` fails in its sweep of that step (on the sweep's thread, after the
// step's broadcast started), throwing exala::error("... injected sweep
// fault ..."); the hook then disarms itself. Negative: off.
void inject_sweep_fault(std::int64_t step);

// In memory on a device engine, by pivot groups of up to `cap` stripes (0: as
// many as the device holds), the smallest group size over the ranks: each
// member uploaded into a pivot slot, eliminated there by the group's earlier
// members and factored; the others receive it and upload it into the same
// slot; then every rank streams its later stripes through the device. The
// own stripes should be pinned by the caller. on_stripe(J, flops) reports
// progress. Returns the group size used.
std::int64_t factor_in_memory_device(device_engine& e, distribution& d, std::int64_t n,
                                     std::int64_t S, std::int64_t Sp, std::int64_t N,
                                     double threshold, std::int64_t cap, const own_stripe_fn& own,
                                     std::int64_t* ipiv,
                                     const std::function<void(std::int64_t, double)>& on_stripe,
                                     const std::function<void(const block&, std::int64_t)>& note_pivots,
                                     double* pin_seconds);

// Out of core through this rank's store (its stripes' orig_ files and its
// act_, lseg_, lu_ files and progress journal; store.hpp), resuming a partial
// run when f.opt.resume. `journal` names the progress file and `restart_hint`
// how to start over, in the error for a journal of other parameters. dev:
// the device engine behind `eng`, or nullptr for a CPU engine. With more
// ranks on a CPU engine, a group's first members are factored during the
// previous group's sweep where the cache has room (f.rep.lookahead).
void factor_out_of_core(const factor_setup& f, distribution& d, dense_engine& eng,
                        device_engine* dev, store& sto, const std::string& journal,
                        const std::string& restart_hint);

// ------------------------------------------------- after the factorization
// The solve phase and the exact residual of both drivers, written once over
// a distribution (the CPU engine: O(n^2) work on host data).

// Stripe J's factors on its owner: rows(J) x n from column 0, and its
// in-stripe pivots relative to J*S (nullptr: y was permuted beforehand, as
// for partial pivoting); `done` runs when the step no longer needs them.
struct lu_view {
  block b;
  const std::int64_t* piv = nullptr;
  std::function<void()> done = {};
};
// y := (LU)^-1 P y (nrhs columns, ldy): forward over J = 0..N-1, then back;
// each y_J on its owner (owner_step: an error there is every rank's), then
// sent to every rank. `prepare(plan)` runs first on every rank inside one
// agreement, given the order of this rank's lu_of calls (its own stripes
// forward, then back): the drivers make the engine and open and plan their
// lu_ caches there.
using prepare_fn = std::function<void(const std::vector<std::int64_t>& plan)>;
void solve_by_stripes(distribution& d, std::int64_t n, std::int64_t S, std::int64_t N, std::int64_t nrhs,
                      double* y, std::int64_t ldy, const prepare_fn& prepare,
                      const std::function<dense_engine&()>& engine,
                      const std::function<lu_view(std::int64_t J)>& lu_of);

// The original rows of stripe I on its owner: rows(I) x n, leading dimension
// lda; `done` runs when they are no longer needed.
struct rows_view {
  const double* a = nullptr;
  std::int64_t lda = 0;
  std::function<void()> done = {};
};
// r := b - A x (n x nrhs, ld n), each entry the exact value rounded once
// (exala::gemv, so the stripe split cannot change a bit): every rank its own
// stripes' rows inside one agreement (after `prepare`, given the order of
// this rank's rows_of calls), then each r_I sent to every rank.
void residual_by_stripes(distribution& d, std::int64_t n, std::int64_t S, std::int64_t N, std::int64_t nrhs,
                         const double* b, std::int64_t ldb, const double* x, std::int64_t ldx, double* r,
                         int threads, const prepare_fn& prepare,
                         const std::function<rows_view(std::int64_t I)>& rows_of);

}  // namespace exala::detail::stripe
