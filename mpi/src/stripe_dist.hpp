// mpi/src/stripe_dist.hpp - internals of the distributed stripe LU
// (exala::mpi::stripe_lu, exala/mpi.hpp), shared by stripe_lu.cpp (options,
// the in-memory factorization, the solve phase, refinement) and
// stripe_ooc.cpp (out of core: the rank's copy of its stripes, the
// factorization through its own cache and disk, resume).
//
// Distribution: stripe J (rows [J*S, J*S + rows(J))) belongs to rank J % P.
// A rank keeps only its own stripes (in memory, or as files in its
// rank_workdir); the single-process kernels (solvers/src/stripe/kernels.hpp)
// do all arithmetic, so each stripe receives exactly the engine calls it
// receives in exala::stripe_lu: apply_pivot_stripe by pivot stripes 0..J-1 in
// that order, then factor_stripe_local; forward_stripe / backward_stripe on
// the same y values. Broadcasts only move bits. Hence the same bits.
//
// Engines: each rank makes its own - the CPU engine, or a device engine that
// the gpu layer registered ("cuda": a program linking exala::gpu_cuda and
// including <exala/cuda.hpp>). On a device engine the rank's pivot stripes of
// the current group (its own, factored there, and the received broadcasts)
// sit in the device's pivot slots and its later stripes are streamed through
// its target slots (solvers/src/stripe/device_driver.hpp), so every stripe
// gets the engine calls, with the sizes, leading dimensions and alignments, of
// the single-process run on that engine: the same bits as exala::stripe_lu
// with engine "cuda" and the same (S, S'). The intended layout is one rank
// per GPU (CUDA_VISIBLE_DEVICES set per rank by the launcher, or
// EXALA_CUDA_DEVICE); ranks sharing a GPU work (each its own CUDA context)
// but share its memory and time. Every rank's device must be the same model
// (cuBLAS/cuSOLVER bits depend on it): checked by name.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "exala/mpi.hpp"
#include "stripe/cache.hpp"
#include "stripe/device_driver.hpp"
#include "stripe/driver_common.hpp"
#include "stripe/engine.hpp"
#include "stripe/factor_loop.hpp"
#include "stripe/host_array.hpp"
#include "stripe/kernels.hpp"
#include "stripe/store.hpp"

namespace exala::mpi {

namespace dist {

namespace st = exala::detail::stripe;
using i64 = std::int64_t;
// The single-process driver's units, progress callbacks and size rules
// (stripe/driver_common.hpp): one definition for both drivers.
using st::clock_type;
using st::elim_flops;
using st::factor_flops;
using st::lu_flops;
using st::progress_meter;
using st::seconds_since;
using st::unit_roundoff;

// MPI_Bcast of `count` doubles from `root`, in pieces of at most 2^28.
void bcast_doubles(MPI_Comm comm, int root, double* p, i64 count);

// Runs `step` on rank `root` only and shares its outcome with one small
// MPI_Bcast: every rank returns normally, or every rank throws - root its
// own exception, the others exala::singular_pivot (same column, value and
// message; `threshold` is the one root's kernel used) when root's was one, or
// remote_error(root, message) otherwise. The other ranks do nothing in the
// step, so only root can fail there.
void owner_step(MPI_Comm comm, int root, double threshold, const std::function<void()>& step);

// A value that every rank must pass alike (a size, an option, a checksum of
// replicated data).
struct same_item {
  enum kind_t { integer, real, data };
  std::string name;  // the argument named in the error
  std::uint64_t value = 0;
  kind_t kind = integer;  // how the values are shown (data: not shown)
  std::string hint;       // appended to the message
  same_item() = default;
  same_item(std::string nm, std::uint64_t v, kind_t k = integer, std::string h = {})
      : name(std::move(nm)), value(v), kind(k), hint(std::move(h)) {}
};
// Runs `local` (argument checks that may throw, then the `count` values to
// compare), compares the values with rank 0's and agrees (detail::agree):
// a rank whose check failed throws its own exception, a rank whose value
// differs from rank 0's throws exala::invalid_argument naming the item, the
// others remote_error. The first collective is detail::agree's fixed-size
// one, which also compares `op` (the calling routine: ranks in different
// routines fail there instead of pairing broadcasts of different sizes);
// then rank 0's values are broadcast and compared. Three small collectives.
void agree_same(MPI_Comm comm, detail::operation op, std::size_t count,
                const std::function<std::vector<same_item>()>& local);

class rank_async_step;

// The stripe LU loops' view of the ranks of comm (factor_loop.hpp): stripe J
// on rank J % P, the collectives above; lookahead by nonblocking broadcasts
// (begin_step), moved by this thread while a second one works (overlap).
class rank_distribution : public st::distribution {
 public:
  explicit rank_distribution(MPI_Comm comm);
  void agree(const std::function<void()>& local) override;
  void owner_step(int root, double threshold, const std::function<void()>& step) override;
  void broadcast(int root, double* p, i64 count) override;
  void all_gather(i64 mine, i64* all) override;
  i64 min_over_ranks(i64 v) override;
  i64 max_over_ranks(i64 v) override;
  std::unique_ptr<async_step> begin_step(int root, double threshold, double* p, i64 count) override;
  void overlap(const std::function<void()>& work) override;

  // The started steps (rank_async_step registers and unregisters itself).
  void remember(rank_async_step* s);
  void forget(rank_async_step* s);

 private:
  MPI_Comm comm_;
  std::vector<rank_async_step*> live_;
};

// This rank's factorization engine for opt.engine (st::make_factor_engine).
// Collective: made inside an agreement, so a rank without a device makes
// every rank throw; for a device engine the ranks also agree that their
// devices have the same name (model and memory).
st::factor_engine make_rank_engine(MPI_Comm comm, const stripe_lu_options& opt);

// checksum64 of an n x nrhs column-major matrix (ld): replicated data check.
std::uint64_t matrix_checksum(i64 n, i64 nrhs, const double* a, i64 ld);

}  // namespace dist

// Options, report, sizes and scale as the single process keeps them
// (st::driver_state, stripe/factor_loop.hpp).
struct stripe_lu::impl : dist::st::driver_state {
  using i64 = dist::i64;

  MPI_Comm comm = MPI_COMM_NULL;  // our duplicate of the caller's communicator
  int rank = 0, P = 1;
  double pivot_ratio = 0;  // this rank's min |u_jj| / max|a_ij| (note_pivots)
  // In memory: own stripe J at index J / P, rows(J) x n, ld rows(J).
  bool in_core = false;
  // (lu holds A' = 2^-k A before the factorization: the constructor fills it.)
  std::vector<dist::st::host_array> a0, lu;
  // Factored in place (the caller's local_stripes became lu; a0 is empty):
  // checksum64 of each own stripe's bits as given, against which the rows a
  // row_source gives for the residual are checked.
  bool in_place = false;
  std::vector<std::uint64_t> given_sums;
  std::vector<i64> ipiv;  // n entries; the own stripes' are set (in-stripe, 0-based)
  // Out of core: the shared system (read only) and this rank's store.
  std::optional<dist::st::store> sys, rs;
  std::string rank_dir;
  // Out of core: the factorization's engine, made before the rank copies its
  // stripes (a missing engine or device fails before that work); moved into
  // factor_out_of_core, which releases it.
  dist::st::factor_engine ooc_engine;

  // Agrees on `op` over c (so that ranks in different routines fail
  // before any other collective), then duplicates c.
  impl(MPI_Comm c, detail::operation op);
  ~impl();
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;

  int owner(i64 J) const { return int(J % P); }
  bool mine(i64 J) const { return owner(J) == rank; }
  // The first stripe >= J that this rank owns (may be >= N).
  i64 first_own(i64 J) const { return J + ((rank - J % P) % P + P) % P; }
  // factor_in_memory / factor_out_of_core with pivot errors in A's units.
  void factor(bool out_of_core);

  void note_pivots(const dist::st::block& b, i64 r0);
  // The factorization loops' view of this driver (stripe/factor_loop.hpp).
  dist::st::factor_setup setup();
  // The report's global parts: factor time (max over ranks), min pivot ratio.
  void finish_report(double seconds, double resumed_flops);

  void factor_in_memory();
  // After the constructor's pass over the own stripes (their max|a_ij| and
  // largest row sum): the scale from the ranks' maxima, ||A'||_inf, lu
  // scaled where the exponent is not 0, then the factorization.
  void scale_and_factor(double max_abs, double max_row_sum);
  // stripe_ooc.cpp
  void open_out_of_core(const std::vector<std::string>& system, const std::string& rank_workdir);
  void factor_out_of_core();

  void solve_in_place(i64 nrhs, double* y, i64 ldy) const;
  // A's rows come from a0, from the store, or (in place) from `given`.
  void residual(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx, double* r,
                const row_source* given) const;
  double backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                        const double* r) const;
  refine_report refine(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx, int max_refine,
                       const row_source* given) const;
  // The public solve_refined and backward_error: agreement on the
  // arguments, then refine / residual.
  refine_report checked_refine(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx, int max_refine,
                               const row_source* given) const;
  double checked_backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                                const row_source* given) const;
  // The check of the public residual users: `given` must be there exactly
  // when the object was factored in place (`routine` names the call).
  void check_given(const row_source* given, const char* routine) const;
};

// A rank's stripes before an in-place factorization (exala/mpi.hpp).
struct local_stripes::impl {
  int rank = 0, P = 1;
  dist::i64 n = 0, S = 1, N = 0;
  std::vector<dist::st::host_array> s;  // own stripe J at index J / P
  dist::i64 index(dist::i64 k) const { return rank + k * P; }
  dist::i64 rows(dist::i64 k) const { return std::min(S, n - index(k) * S); }
};

}  // namespace exala::mpi
