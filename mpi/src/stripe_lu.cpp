// mpi/src/stripe_lu.cpp - the distributed stripe LU (exala/mpi.hpp): option
// checks and agreement, the in-memory factorization, the solve phase and the
// exact-residual refinement. The out-of-core factorization is in
// stripe_ooc.cpp; the shared internals in stripe_dist.hpp.
//
// Collective structure (every rank runs the same sequence of collectives; a
// rank that fails in a local phase makes every rank throw at the next
// agreement, so none is left waiting):
//   factor, with lookahead: MPI_Ibcast of stripe 0's outcome (a singular
//     pivot included) and factored columns [0, n); then for J = 0..N-1:
//     MPI_Ibcast of stripe J + 1's outcome and columns [(J+1)*S, n), posted
//     by its owner once it has eliminated J from it and factored it, and
//     moving while every rank eliminates J from its other later stripes on a
//     second thread (rank_distribution::overlap); no per-step agreement (a
//     rank whose sweep failed fails its next step); agree after the loop;
//   factor on a device engine ("cuda"), by pivot groups of m stripes: for
//     each member J, owner_step (the owner uploads stripe J into pivot slot
//     J - first, where the device eliminates the group's earlier members and
//     factors it), MPI_Bcast of its columns [J*S, n) (the other ranks upload
//     them into the same slot); then agree around every rank's sweep of its
//     later stripes through the device;
//   solve, for J up then down: owner_step (permute + forward_stripe, or
//     backward_stripe, on the owner), MPI_Bcast of y_J;
//   residual: agree around every rank's exala::gemv of its stripes' rows,
//     then one MPI_Bcast of r_J per stripe.
// (The solve and residual loops are factor_loop.hpp's solve_by_stripes and
// residual_by_stripes, shared with the single process.)
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <thread>

#include "exala/blas2.hpp"
#include "exala/checked.hpp"
#include "stripe_dist.hpp"

namespace exala::mpi {

namespace dist {

namespace {
// The most doubles one broadcast call moves (its count is an int).
constexpr i64 bcast_piece = i64(1) << 28;
}  // namespace

void bcast_doubles(MPI_Comm comm, int root, double* p, i64 count) {
  for (i64 off = 0; off < count; off += bcast_piece)
    MPI_Bcast(p + off, int(std::min(bcast_piece, count - off)), MPI_DOUBLE, root, comm);
}

namespace {
// A step's outcome as the ranks share it: head = {0 ok / 1 singular pivot /
// 2 other error, column, value bits, text length}, then the text.
struct step_outcome {
  std::int64_t head[4] = {0, 0, 0, 0};
  std::string text;
  std::exception_ptr mine;

  // On root: runs step and records its exception.
  void run(const std::function<void()>& step) {
    try {
      step();
    } catch (const singular_pivot& e) {
      mine = std::current_exception();
      text = st::pivot_why(e.what());
      head[0] = text.empty() ? 2 : 1;
      if (text.empty()) text = e.what();
      head[1] = e.column();
      head[2] = std::bit_cast<std::int64_t>(e.value());
    } catch (const std::exception& e) {
      mine = std::current_exception();
      head[0] = 2;
      text = e.what();
    } catch (...) {
      mine = std::current_exception();
      head[0] = 2;
      text = "an unknown exception";
    }
    if (text.size() > std::size_t(INT_MAX / 2)) text.resize(std::size_t(INT_MAX / 2));
    head[3] = std::int64_t(text.size());
  }
  // Once every rank holds root's head: returns (ok), or broadcasts the text
  // and throws alike on every rank.
  void conclude(MPI_Comm comm, int root, double threshold) {
    if (head[0] == 0) return;
    if (!mine) text.assign(std::size_t(head[3]), '\0');
    if (head[3] > 0) MPI_Bcast(text.data(), int(head[3]), MPI_CHAR, root, comm);
    if (mine) std::rethrow_exception(mine);
    if (head[0] == 1) throw singular_pivot(head[1], std::bit_cast<double>(head[2]), threshold, text);
    throw remote_error(root, text);
  }
};
}  // namespace

void owner_step(MPI_Comm comm, int root, double threshold, const std::function<void()>& step) {
  step_outcome o;
  if (detail::rank_of(comm) == root) o.run(step);
  MPI_Bcast(o.head, 4, MPI_INT64_T, root, comm);
  o.conclude(comm, root, threshold);
}

// distribution::async_step over MPI_Ibcast: the outcome's head, then the
// columns in pieces of at most bcast_piece doubles, posted in that order on every
// rank (the others at begin_step, root after its step).
class rank_async_step final : public st::distribution::async_step {
 public:
  rank_async_step(rank_distribution& d, MPI_Comm comm, int root, double threshold, double* p, i64 count)
      : d_(d), comm_(comm), root_(root), threshold_(threshold), p_(p), count_(count) {
    if (detail::rank_of(comm) != root) post();
  }
  ~rank_async_step() override {
    // Posted on every rank (root posts in run, whatever its step did): an
    // exception between post and finish still completes the transfer, so
    // that no buffer is freed under it.
    if (!req_.empty()) MPI_Waitall(int(req_.size()), req_.data(), MPI_STATUSES_IGNORE);
    d_.forget(this);
  }
  void run(const std::function<void()>& step) override {
    out_.run(step);
    post();
  }
  void finish() override {
    MPI_Waitall(int(req_.size()), req_.data(), MPI_STATUSES_IGNORE);
    req_.clear();
    d_.forget(this);
    out_.conclude(comm_, root_, threshold_);
  }
  // Lets the library move the transfer; true once it is complete.
  bool test() {
    int done = 1;
    if (!req_.empty()) MPI_Testall(int(req_.size()), req_.data(), &done, MPI_STATUSES_IGNORE);
    return done != 0;
  }

 private:
  void post() {
    req_.emplace_back();
    MPI_Ibcast(out_.head, 4, MPI_INT64_T, root_, comm_, &req_.back());
    for (i64 off = 0; off < count_; off += bcast_piece) {
      req_.emplace_back();
      MPI_Ibcast(p_ + off, int(std::min(bcast_piece, count_ - off)), MPI_DOUBLE, root_, comm_,
                 &req_.back());
    }
    d_.remember(this);
  }

  rank_distribution& d_;
  MPI_Comm comm_;
  int root_;
  double threshold_;
  double* p_;
  i64 count_;
  step_outcome out_;
  std::vector<MPI_Request> req_;
};

void agree_same(MPI_Comm comm, detail::operation op, std::size_t count,
                const std::function<std::vector<same_item>()>& local) {
  const int rank = detail::rank_of(comm);
  std::vector<same_item> mine(count);
  // The local checks, and the routine, in the fixed-size first agreement.
  detail::agree(
      comm,
      [&] {
        mine = local();
        if (mine.size() != count) throw error("exala: mpi: internal: agree_same count mismatch");
      },
      {detail::same_operation(op)});
  // Rank 0's values.
  std::vector<std::uint64_t> root(count);
  for (std::size_t i = 0; i < count; ++i) root[i] = mine[i].value;
  MPI_Bcast(root.data(), int(count), MPI_UINT64_T, 0, comm);
  detail::agree(comm, [&] {
    for (std::size_t i = 0; i < count; ++i) {
      const same_item& it = mine[i];
      if (it.value == root[i]) continue;
      auto show = [&](std::uint64_t v) {
        if (it.kind == same_item::real) {
          char t[40];
          std::snprintf(t, sizeof t, "%.17g", std::bit_cast<double>(v));
          return std::string(t);
        }
        return std::to_string(std::int64_t(v));
      };
      std::string what =
          it.kind == same_item::data
              ? "differs from rank 0's on rank " + std::to_string(rank)
              : "is " + show(it.value) + " on rank " + std::to_string(rank) + " but " +
                    show(root[i]) + " on rank 0";
      throw invalid_argument(it.name, what + ": every rank must pass the same" + it.hint);
    }
  });
}

rank_distribution::rank_distribution(MPI_Comm comm)
    : st::distribution(detail::rank_of(comm), detail::size_of(comm)), comm_(comm) {}

void rank_distribution::agree(const std::function<void()>& local) { detail::agree(comm_, local); }

void rank_distribution::owner_step(int root, double threshold, const std::function<void()>& step) {
  dist::owner_step(comm_, root, threshold, step);
}

void rank_distribution::broadcast(int root, double* p, i64 count) { bcast_doubles(comm_, root, p, count); }

std::unique_ptr<st::distribution::async_step> rank_distribution::begin_step(int root, double threshold,
                                                                           double* p, i64 count) {
  return std::make_unique<rank_async_step>(*this, comm_, root, threshold, p, count);
}

void rank_distribution::remember(rank_async_step* s) { live_.push_back(s); }  // once per step: post()

void rank_distribution::forget(rank_async_step* s) { std::erase(live_, s); }

// The work runs on a second thread; this one, the only one that calls MPI,
// lets the started transfers move (MPI_Testall every 50 us: Open MPI moves a
// large message only inside MPI calls) until they are complete, then waits
// for the work. The work makes no MPI call.
void rank_distribution::overlap(const std::function<void()>& work) {
  auto pending = [&] {
    bool all = true;
    for (rank_async_step* s : live_) all = s->test() && all;
    return !all;
  };
  if (!pending()) {
    work();
    return;
  }
  std::exception_ptr failed;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      failed = std::current_exception();
    }
    done.store(true, std::memory_order_release);
  });
  while (!done.load(std::memory_order_acquire) && pending())
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  worker.join();
  if (failed) std::rethrow_exception(failed);
}

void rank_distribution::all_gather(i64 mine, i64* all) {
  MPI_Allgather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, comm_);
}

i64 rank_distribution::min_over_ranks(i64 v) {
  i64 r = v;
  MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_MIN, comm_);
  return r;
}

i64 rank_distribution::max_over_ranks(i64 v) {
  i64 r = v;
  MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_MAX, comm_);
  return r;
}

st::factor_engine make_rank_engine(MPI_Comm comm, const stripe_lu_options& opt) {
  st::factor_engine f;
  if (opt.engine == "cpu") {
    detail::agree(comm, [&] { f = st::make_factor_engine(opt); });
    return f;
  }
  // Every rank passed the same engine name (option_items); each makes its
  // own device engine (its own CUDA context and device).
  agree_same(comm, detail::operation::none, 1, [&] {
    f = st::make_factor_engine(opt);
    const std::string dn = f.dev->device_name();
    return std::vector<same_item>{
        {"engine", st::checksum64(dn.data(), dn.size()), same_item::data,
         " device model: this rank's is '" + dn + "' (the engine's bits depend on the GPU model)"}};
  });
  return f;
}

std::uint64_t matrix_checksum(i64 n, i64 nrhs, const double* a, i64 ld) {
  return st::block_checksum(n, nrhs, a, ld, 0x6d70695f72687321ull);
}

}  // namespace dist

namespace {

using namespace dist;

// The single-process checks (stripe/driver_common.hpp, check_stripe_options),
// plus what the distributed LU cannot do.
void check_options(const stripe_lu_options& o) {
  st::check_stripe_options(o);
  if (o.pivot == pivoting::partial)
    throw invalid_argument("pivot", "the distributed stripe LU pivots locally only (global partial "
                                    "pivoting would need the whole matrix on one rank): use "
                                    "pivoting::local, or exala::stripe_lu on one process");
}

// The options that decide the bits or the control flow: the same on every
// rank. (threads, io_threads, cache_bytes, sync, drop_page_cache,
// checkpoint_interval_s and the progress callback are the rank's own; a
// cache_bytes that makes the chosen S or meta differ is caught later.)
std::vector<same_item> option_items(const stripe_lu_options& o) {
  return {{"stripe", std::uint64_t(o.stripe)},
          {"substripe", std::uint64_t(o.substripe)},
          {"meta", std::uint64_t(o.meta)},
          {"order", std::uint64_t(o.order)},
          {"pivot", std::uint64_t(o.pivot)},
          {"pivot_threshold", std::bit_cast<std::uint64_t>(o.pivot_threshold), same_item::real},
          {"engine", st::checksum64(o.engine.data(), o.engine.size()), same_item::data},
          {"resume", std::uint64_t(o.resume)}};
}

void check_rhs(i64 n, i64 nrhs, const void* b, i64 ldb, const char* bn, const char* ldn) {
  if (nrhs < 0) throw invalid_argument("nrhs", "must be >= 0, got " + std::to_string(nrhs));
  if (ldb < std::max<i64>(1, n))
    throw invalid_argument(ldn, "must be >= max(1, n) = " + std::to_string(std::max<i64>(1, n)) +
                                    ", got " + std::to_string(ldb));
  if (n > 0 && nrhs > 0 && b == nullptr) throw invalid_argument(bn, "is null");
}

// Doubles in a stripe of r rows and n columns; std::bad_alloc where the
// count is beyond any allocation (exala/checked.hpp's limit).
std::size_t stripe_doubles(i64 r, i64 n) {
  const auto count = exala::detail::count_of(r, n);
  if (!count) throw std::bad_alloc();
  return std::size_t(*count);
}

// One stripe's scan (copy_and_scan) into the running max|a_ij| and largest
// row sum; a non-finite entry is named by its (row, column) in A, as an
// error in the argument `arg`.
void take_scan(const st::copy_scan& c, i64 row0, const std::vector<double>& rowsum, const char* arg,
               double& max_abs, double& max_row_sum) {
  if (c.bad_col >= 0)
    throw invalid_argument(arg, "entry (" + std::to_string(row0 + c.bad_row) + ", " + std::to_string(c.bad_col) +
                                    ") is not finite");
  max_abs = std::max(max_abs, c.max_abs);
  for (double v : rowsum) max_row_sum = std::max(max_row_sum, v);
}

void check_max_refine(int max_refine) {
  if (max_refine < 0 || max_refine > 100)
    throw invalid_argument("max_refine", "must be in 0..100, got " + std::to_string(max_refine));
}

}  // namespace

// ------------------------------------------------------------------- impl

stripe_lu::impl::impl(MPI_Comm c, detail::operation op) {
  rank = detail::rank_of(c);
  P = detail::size_of(c);
  detail::agree(c, [] {}, {detail::same_operation(op)});
  MPI_Comm_dup(c, &comm);
}

stripe_lu::impl::~impl() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm);
}


// Every rank throws the same pivot error (owner_step), so every rank scales
// it back alike.
void stripe_lu::impl::factor(bool out_of_core) {
  st::factor_in_units_of_a(sc, threshold(), [&] { out_of_core ? factor_out_of_core() : factor_in_memory(); });
}

void stripe_lu::impl::note_pivots(const st::block& b, i64 r0) {
  if (sc.max_scaled == 0) return;
  for (i64 i = 0; i < b.rows; ++i) {
    const double r = std::fabs(b.col(r0 + i)[i]) / sc.max_scaled;
    if (r < pivot_ratio || pivot_ratio == 0) pivot_ratio = r;
  }
}

void stripe_lu::impl::finish_report(double seconds, double resumed_flops) {
  // Every rank reports the whole factorization's time: the slowest rank's.
  double in[2] = {seconds, pivot_ratio > 0 ? pivot_ratio : std::numeric_limits<double>::infinity()};
  double out[2] = {0, 0};
  MPI_Allreduce(&in[0], &out[0], 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&in[1], &out[1], 1, MPI_DOUBLE, MPI_MIN, comm);
  rep.factor_seconds = out[0];
  rep.factor_gflops =
      out[0] > 0 ? std::max(0.0, lu_flops(n) - resumed_flops) / out[0] * 1e-9 : 0;
  rep.min_pivot_ratio = std::isinf(out[1]) ? 0 : out[1];
}

// Out of core the sizes follow opt.cache_bytes, which is per rank here: the
// same budget gives the same S and meta as one process with that budget.
st::factor_setup stripe_lu::impl::setup() {
  return driver_state::setup([this](const st::block& b, i64 r0) { note_pivots(b, r0); },
                             [this](double seconds, double resumed) { finish_report(seconds, resumed); });
}

// --------------------------------------------------------------- in memory

// The loops of stripe/factor_loop.hpp over this rank's stripes (own stripe J
// at lu[J / P], ld rows(J)).
void stripe_lu::impl::factor_in_memory() {
  in_core = true;
  rep.in_core = true;
  ipiv.assign(std::size_t(n), 0);
  st::factor_engine fe = make_rank_engine(comm, opt);
  rep.engine = fe.get().name();
  rank_distribution d(comm);
  auto own = [this](i64 J) { return st::block{lu[std::size_t(J / P)].data(), rows(J), 0, n, rows(J)}; };
  if (!fe.dev) {
    st::factor_in_memory(setup(), d, *fe.cpu, own, ipiv.data());
    return;
  }
  // On a device engine: pivot groups of m stripes, m the smallest pivot-slot
  // count over the ranks' devices, capped by opt.meta when given (as the
  // single process caps it) and otherwise by max(1, N / (4P)): the members
  // of a group are factored one after the other (each owner eliminates the
  // earlier members from its stripe on its device while the others wait,
  // about m P / N of the work), and the sweep, every rank through its own
  // device, is the parallel part; larger groups stream each later stripe
  // through the device fewer times. The grouping does not change a bit
  // (device_driver.hpp: fixed slot layout).
  st::device_engine& e = *fe.dev;
  rep.device = e.device_name();
  st::pinned_host pinned(e);
  d.agree([&] {
    const auto tp = clock_type::now();
    for (auto& s : lu)
      pinned.pin(s.data(), s.size() * sizeof(double));
    rep.pin_seconds = seconds_since(tp);
  });
  // The user's progress callback may throw on one rank: the reports before
  // and after the loop are agreed (the loop keeps a throw for its next step).
  progress_meter pm(opt, "factor", lu_flops(n), N, nullptr);
  d.agree([&] { pm.report(0, nullptr, true); });
  const auto t0 = clock_type::now();
  const i64 cap = opt.meta > 0 ? opt.meta : std::max<i64>(1, N / (4 * i64(P)));
  rep.meta = st::factor_in_memory_device(
      e, d, n, S, Sp, N, threshold(), cap, own, ipiv.data(),
      [&](i64 step, double f) {
        pm.done += f;
        pm.report(step, nullptr, false);
      },
      [this](const st::block& b, i64 r0) { note_pivots(b, r0); }, &rep.pin_seconds);
  finish_report(seconds_since(t0), 0);
  pm.done = pm.total;
  d.agree([&] { pm.report(N, nullptr, true); });
}

// -------------------------------------------------------------- the solves

// y := A^-1 y as the single process computes it: stripe J's interchanges and
// forward_stripe on its owner (the earlier y rows are final and replicated),
// y_J broadcast; then backward_stripe from the last stripe up.
// The solve phase and the residual of factor_loop.hpp over the ranks: each
// stripe's owner works from its in-memory copies (lu / a0, ld rows(J)) or its
// store through a cache of its own stripes.
void stripe_lu::impl::solve_in_place(i64 nrhs, double* y, i64 ldy) const {
  dist::rank_distribution d(comm);
  std::unique_ptr<st::dense_engine> e;
  // Out of core: read with the lu_ stripes by the cache's I/O threads, so
  // declared before the cache (which joins them): an error that leaves this
  // function while a stripe is still being read must not free piv first.
  std::vector<i64> piv;
  std::unique_ptr<st::stripe_cache> cache;
  auto prepare = [&](const std::vector<i64>& plan) {
    e = st::make_cpu_engine(opt.threads);
    if (in_core) return;
    piv.assign(std::size_t(n), 0);
    const st::store& sto = *rs;
    cache = whole_stripes([this, &sto, &piv](i64 J, double* dst) {
      sto.read_lu(J, rows(J), 0, n, dst, rows(J), piv.data() + J * S);
    });
    cache->plan(plan);
  };
  st::solve_by_stripes(d, n, S, N, nrhs, y, ldy, prepare, [&]() -> st::dense_engine& { return *e; },
                       [&](i64 J) -> st::lu_view {
                         const i64 r = rows(J);
                         if (in_core)
                           return {{const_cast<double*>(lu[std::size_t(J / P)].data()), r, 0, n, r},
                                   ipiv.data() + J * S};
                         st::cache_buffer& b = cache->acquire(J);
                         return {{b.data.data(), r, 0, n, r}, piv.data() + J * S, [&cache, J] { cache->release(J); }};
                       });
}

// r := b - A x, each entry rounded once from the exact value (exala::gemv).
// In place, each own stripe's rows come from `given` into one buffer, and
// must have the checksum the stripe had when it was handed over.
void stripe_lu::impl::residual(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx, double* r,
                               const row_source* given) const {
  dist::rank_distribution d(comm);
  std::unique_ptr<st::stripe_cache> cache;
  st::host_array buf;
  auto prepare = [&](const std::vector<i64>& plan) {
    if (in_place) {
      if (!plan.empty()) buf = st::host_array(stripe_doubles(std::min(S, n), n));  // the tallest stripe
      return;
    }
    if (in_core) return;
    const st::store& sto = *rs;
    cache = whole_stripes(
        [this, &sto](i64 I, double* dst) { sto.read_original(I * S, rows(I), 0, n, dst, rows(I)); });
    cache->plan(plan);
  };
  st::residual_by_stripes(d, n, S, N, nrhs, b, ldb, x, ldx, r, opt.threads, prepare, [&](i64 I) -> st::rows_view {
    const i64 ri = rows(I);
    if (in_place) {
      (*given)(I * S, ri, buf.data(), ri);
      if (st::checksum64(buf.data(), std::size_t(ri) * std::size_t(n) * sizeof(double)) !=
          given_sums[std::size_t(I / P)])
        throw invalid_argument("a", "rows [" + std::to_string(I * S) + ", " + std::to_string(I * S + ri) +
                                        ") are not the rows that were factored (their checksum differs)");
      return {buf.data(), ri};
    }
    if (in_core) return {a0[std::size_t(I / P)].data(), ri};
    st::cache_buffer& a = cache->acquire(I);
    return {a.data.data(), a.rows, [&cache, I] { cache->release(I); }};
  });
}

void stripe_lu::impl::check_given(const row_source* given, const char* routine) const {
  st::check_residual_source(in_place, given != nullptr, routine, "a",
                            "A's rows as a row_source (the overload with a)");
  if (given != nullptr && first_own(0) < N && !*given) throw invalid_argument("a", "is an empty row_source");
}

double stripe_lu::impl::backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                                       const double* r) const {
  return st::backward_error(n, nrhs, b, ldb, x, ldx, r, sc.norm, sc.exp);
}

// The single-process refine() (stripe_lu.cpp), step for step: the same
// stopping rules on the same replicated values, so every rank takes the same
// branches and the result has the same bits.
refine_report stripe_lu::impl::refine(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx,
                                      int max_refine, const row_source* given) const {
  st::refine_ops ops;
  ops.solve = [this](i64 k, double* y, i64 ldy) { solve_in_place(k, y, ldy); };
  ops.residual = [&](const double* xx, i64 ldxx, double* r) { residual(nrhs, b, ldb, xx, ldxx, r, given); };
  ops.scale = sc;
  ops.agree = [this](const std::function<void()>& f) { detail::agree(comm, f); };
  return st::refine_loop(n, nrhs, b, ldb, x, ldx, max_refine, ops, opt, rs ? &rs->counters() : nullptr);
}

// max|a_ij| and ||A'||_inf as the single process computes them (row sums of
// |2^-k a_ij| in column order, then the max), combined with MPI_MAX, which is
// exact. k follows from the global max|a_ij|; the constructor's row sums are
// A''s where k = 0, and a second pass scales lu and sums again otherwise.
void stripe_lu::impl::scale_and_factor(double max_abs, double max_row_sum) {
  double local[2] = {max_abs, max_row_sum}, global[2] = {0, 0};
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, comm);
  set_scale(global[0]);
  sc.norm = global[1];
  if (sc.exp != 0) {
    double norm = 0;
    for (i64 J = first_own(0); J < N; J += P) {
      const std::size_t q = std::size_t(J / P);
      double* l = lu[q].data();
      const double* a = in_place ? l : a0[q].data();  // in place: lu's own values, scaled first
      norm = std::max(norm, st::scale_copy(rows(J), n, a, rows(J), l, rows(J), sc.exp));
    }
    MPI_Allreduce(&norm, &sc.norm, 1, MPI_DOUBLE, MPI_MAX, comm);
  }
  factor(false);
}

// ------------------------------------------------------------- public API

// Guarantee: the factors, and every solution computed from them, have the
// bits of exala::stripe_lu on the whole matrix with the same (S, S', local
// pivoting, engine), for any rank count.
stripe_lu::stripe_lu(MPI_Comm comm, i64 n, const row_source& rows, const stripe_lu_options& opt)
    : p_(std::make_unique<impl>(comm, detail::operation::stripe_lu_in_memory)) {
  impl& s = *p_;
  agree_same(s.comm, detail::operation::stripe_lu_in_memory, 9, [&] {
    check_options(opt);
    if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
    auto items = option_items(opt);
    items.insert(items.begin(), same_item{"n", std::uint64_t(n)});
    return items;
  });
  s.opt = opt;
  s.n = n;
  detail::agree(s.comm, [&] { s.choose_sizes(false); });
  // Each rank fills, copies and checks its own stripes (a0, kept for the
  // residual; lu, to be factored) with one pass over the rows after the
  // source's, which also takes their max|a_ij| and row sums
  // (scale_and_factor combines the ranks').
  double max_abs = 0, max_row_sum = 0;
  detail::agree(s.comm, [&] {
    if (s.first_own(0) < s.N && !rows) throw invalid_argument("rows", "is an empty row_source");
    std::vector<double> rowsum;
    for (i64 J = s.first_own(0); J < s.N; J += s.P) {
      const i64 r = s.rows(J);
      double* a = s.a0.emplace_back(stripe_doubles(r, n)).data();
      rows(J * s.S, r, a, r);
      rowsum.assign(std::size_t(r), 0.0);
      const st::copy_scan c = st::copy_and_scan(r, n, a, r, s.lu.emplace_back(stripe_doubles(r, n)).data(), r,
                                                nullptr, 0, rowsum.data());
      take_scan(c, J * s.S, rowsum, "rows", max_abs, max_row_sum);
    }
  });
  s.scale_and_factor(max_abs, max_row_sum);
}

// Guarantee: as the constructor above given the same rows (the same checks,
// the same factors and solutions, bit for bit).
stripe_lu::stripe_lu(MPI_Comm comm, local_stripes&& a, const stripe_lu_options& opt) {
  const std::unique_ptr<local_stripes::impl> given = std::move(a.p_);  // consumed, whatever happens
  p_ = std::make_unique<impl>(comm, detail::operation::stripe_lu_in_memory);
  impl& s = *p_;
  const i64 n = given ? given->n : 0;
  agree_same(s.comm, detail::operation::stripe_lu_in_memory, 9, [&] {
    check_options(opt);
    if (!given) throw invalid_argument("a", "holds no stripes (moved from, or already factored)");
    if (given->rank != s.rank || given->P != s.P)
      throw invalid_argument("a", "was made for rank " + std::to_string(given->rank) + " of " +
                                      std::to_string(given->P) + " ranks, but this is rank " +
                                      std::to_string(s.rank) + " of " + std::to_string(s.P) +
                                      ": make it with the same communicator");
    auto items = option_items(opt);
    items.insert(items.begin(), same_item{"n", std::uint64_t(n)});
    return items;
  });
  s.opt = opt;
  s.n = n;
  detail::agree(s.comm, [&] {
    s.choose_sizes(false);
    if (s.S != given->S)
      throw invalid_argument("a", "has stripes of " + std::to_string(given->S) + " rows, but opt gives " +
                                      std::to_string(s.S) + ": make it with the same options");
  });
  // The caller's stripes become lu; one pass checks them, takes their
  // checksums (for the row_source of the residual) and their max|a_ij| and
  // row sums, without writing them.
  s.lu = std::move(given->s);
  s.in_place = true;
  double max_abs = 0, max_row_sum = 0;
  detail::agree(s.comm, [&] {
    std::vector<double> rowsum;
    for (i64 J = s.first_own(0); J < s.N; J += s.P) {
      const i64 r = s.rows(J);
      const double* p = s.lu[std::size_t(J / s.P)].data();
      rowsum.assign(std::size_t(r), 0.0);
      take_scan(st::copy_and_scan(r, n, p, r, nullptr, 0, nullptr, 0, rowsum.data()), J * s.S, rowsum, "a",
                max_abs, max_row_sum);
      s.given_sums.push_back(st::checksum64(p, std::size_t(r) * std::size_t(n) * sizeof(double)));
    }
  });
  s.scale_and_factor(max_abs, max_row_sum);
}

stripe_lu::stripe_lu(MPI_Comm comm, const std::vector<std::string>& system,
                     const std::string& rank_workdir, const stripe_lu_options& opt)
    : p_(std::make_unique<impl>(comm, detail::operation::stripe_lu_out_of_core)) {
  impl& s = *p_;
  agree_same(s.comm, detail::operation::stripe_lu_out_of_core, 8, [&] {
    check_options(opt);
    if (system.empty()) throw invalid_argument("system", "is empty: give the system's work directories");
    if (rank_workdir.empty()) throw invalid_argument("rank_workdir", "is an empty path");
    return option_items(opt);
  });
  s.opt = opt;
  s.ooc_engine = make_rank_engine(s.comm, opt);
  s.open_out_of_core(system, rank_workdir);
  s.factor(true);
}

stripe_lu::~stripe_lu() = default;
stripe_lu::stripe_lu(stripe_lu&&) noexcept = default;
stripe_lu& stripe_lu::operator=(stripe_lu&&) noexcept = default;

std::int64_t stripe_lu::n() const noexcept { return p_->n; }
std::int64_t stripe_lu::stripe_height() const noexcept { return p_->S; }
int stripe_lu::owner(std::int64_t stripe) const noexcept {
  return stripe < 0 ? -1 : p_->owner(stripe);
}
const stripe_lu_report& stripe_lu::report() const noexcept { return p_->rep; }

// Guarantee: x := A^-1 b with the bits of exala::stripe_lu::solve (per column
// call), on every rank.
void stripe_lu::solve(std::int64_t nrhs, double* b, std::int64_t ldb) const {
  const impl& s = *p_;
  agree_same(s.comm, detail::operation::stripe_lu_solve, 2, [&] {
    check_rhs(s.n, nrhs, b, ldb, "b", "ldb");
    return std::vector<same_item>{{"nrhs", std::uint64_t(nrhs)},
                                  {"b", matrix_checksum(s.n, nrhs, b, ldb), same_item::data,
                                   " (b is replicated)"}};
  });
  // Every rank holds the same y: the same scalings, and the same outcome.
  st::scaled_solve(s.n, nrhs, b, ldb, s.sc,
                   [&s](i64 k, double* y, i64 ldy) { s.solve_in_place(k, y, ldy); }, true);
}

// solve_refined and backward_error, with or without a row_source.
refine_report stripe_lu::impl::checked_refine(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx,
                                              int max_refine, const row_source* given) const {
  const impl& s = *this;
  agree_same(s.comm, detail::operation::stripe_lu_solve_refined, 3, [&] {
    s.check_given(given, "solve_refined");
    check_rhs(s.n, nrhs, b, ldb, "b", "ldb");
    check_rhs(s.n, nrhs, x, ldx, "x", "ldx");
    check_max_refine(max_refine);
    return std::vector<same_item>{{"nrhs", std::uint64_t(nrhs)},
                                  {"max_refine", std::uint64_t(max_refine)},
                                  {"b", matrix_checksum(s.n, nrhs, b, ldb), same_item::data,
                                   " (b is replicated)"}};
  });
  return s.refine(nrhs, b, ldb, x, ldx, max_refine, given);
}

double stripe_lu::impl::checked_backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                                              const row_source* given) const {
  const impl& s = *this;
  agree_same(s.comm, detail::operation::stripe_lu_backward_error, 3, [&] {
    s.check_given(given, "backward_error");
    check_rhs(s.n, nrhs, b, ldb, "b", "ldb");
    check_rhs(s.n, nrhs, x, ldx, "x", "ldx");
    return std::vector<same_item>{{"nrhs", std::uint64_t(nrhs)},
                                  {"b", matrix_checksum(s.n, nrhs, b, ldb), same_item::data,
                                   " (b is replicated)"},
                                  {"x", matrix_checksum(s.n, nrhs, x, ldx), same_item::data,
                                   " (x is replicated)"}};
  });
  std::vector<double> r(std::size_t(s.n * nrhs));
  s.residual(nrhs, b, ldb, x, ldx, r.data(), given);
  return s.backward_error(nrhs, b, ldb, x, ldx, r.data());
}

// Guarantee: the refined solution and report of exala::stripe_lu::solve_refined,
// bit for bit, on every rank.
refine_report stripe_lu::solve_refined(std::int64_t nrhs, const double* b, std::int64_t ldb,
                                       double* x, std::int64_t ldx, int max_refine) const {
  return p_->checked_refine(nrhs, b, ldb, x, ldx, max_refine, nullptr);
}

// Guarantee: as above, for an object factored in place, given A's rows.
refine_report stripe_lu::solve_refined(std::int64_t nrhs, const double* b, std::int64_t ldb,
                                       double* x, std::int64_t ldx, const row_source& a,
                                       int max_refine) const {
  return p_->checked_refine(nrhs, b, ldb, x, ldx, max_refine, &a);
}

// Guarantee: as solve_refined, for the right-hand sides stored with the system.
refine_report stripe_lu::solve_stored(std::vector<double>& x, int max_refine) const {
  const impl& s = *p_;
  agree_same(s.comm, detail::operation::stripe_lu_solve_stored, 1, [&] {
    if (!s.sys)
      throw invalid_argument("solve_stored", "needs a stripe_lu made from a work directory");
    check_max_refine(max_refine);
    return std::vector<same_item>{{"max_refine", std::uint64_t(max_refine)}};
  });
  const i64 n = s.n, nrhs = s.sys->info().nrhs;
  std::vector<double> b(std::size_t(n * nrhs));
  detail::agree(s.comm, [&] {
    if (n > 0 && nrhs > 0) s.sys->read_rhs(b.data(), n);
  });
  x.assign(std::size_t(n * nrhs), 0.0);
  if (n == 0 || nrhs == 0) return {};
  return s.refine(nrhs, b.data(), n, x.data(), n, max_refine, nullptr);
}

// Guarantee: the normwise backward error of exala::stripe_lu::backward_error
// (exact residual), bit for bit, on every rank.
double stripe_lu::backward_error(std::int64_t nrhs, const double* b, std::int64_t ldb,
                                 const double* x, std::int64_t ldx) const {
  return p_->checked_backward_error(nrhs, b, ldb, x, ldx, nullptr);
}

// Guarantee: as above, for an object factored in place, given A's rows.
double stripe_lu::backward_error(std::int64_t nrhs, const double* b, std::int64_t ldb,
                                 const double* x, std::int64_t ldx, const row_source& a) const {
  return p_->checked_backward_error(nrhs, b, ldb, x, ldx, &a);
}

// ------------------------------------------------------------ local_stripes

local_stripes::local_stripes(MPI_Comm comm, std::int64_t n, const stripe_lu_options& opt)
    : p_(std::make_unique<impl>()) {
  if (comm == MPI_COMM_NULL) throw invalid_argument("comm", "is MPI_COMM_NULL");
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  check_options(opt);
  impl& s = *p_;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &s.P);
  const st::stripe_sizes z = st::choose_stripe_sizes(n, opt, 0, false);
  s.n = n, s.S = z.S, s.N = z.N;
  for (i64 J = s.rank; J < s.N; J += s.P) s.s.emplace_back(stripe_doubles(std::min(s.S, n - J * s.S), n));
}

local_stripes::~local_stripes() = default;
local_stripes::local_stripes(local_stripes&&) noexcept = default;
local_stripes& local_stripes::operator=(local_stripes&&) noexcept = default;

std::int64_t local_stripes::n() const noexcept { return p_ ? p_->n : 0; }
std::int64_t local_stripes::stripe_height() const noexcept { return p_ ? p_->S : 0; }
std::int64_t local_stripes::count() const noexcept { return p_ ? i64(p_->s.size()) : 0; }

namespace {
void check_own(i64 k, i64 count) {
  if (k < 0 || k >= count)
    throw std::out_of_range("exala::mpi::local_stripes: stripe " + std::to_string(k) + " of " +
                            std::to_string(count) + " on this rank");
}
}  // namespace

std::int64_t local_stripes::index(std::int64_t k) const {
  check_own(k, count());
  return p_->index(k);
}
std::int64_t local_stripes::first_row(std::int64_t k) const { return index(k) * p_->S; }
std::int64_t local_stripes::rows(std::int64_t k) const {
  check_own(k, count());
  return p_->rows(k);
}
double* local_stripes::data(std::int64_t k) {
  check_own(k, count());
  return p_->s[std::size_t(k)].data();
}
const double* local_stripes::data(std::int64_t k) const {
  check_own(k, count());
  return p_->s[std::size_t(k)].data();
}
void local_stripes::fill(const row_source& rows) {
  if (count() > 0 && !rows) throw invalid_argument("rows", "is an empty row_source");
  for (i64 k = 0; k < count(); ++k) rows(first_row(k), p_->rows(k), data(k), p_->rows(k));
}

}  // namespace exala::mpi
