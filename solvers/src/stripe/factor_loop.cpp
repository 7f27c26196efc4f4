// stripe/factor_loop.cpp - the factorization loops of the stripe LU, for one
// process and for P MPI ranks (factor_loop.hpp).
#include "factor_loop.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <future>
#include <optional>

#include "cache.hpp"
#include "device_driver.hpp"
#include "driver_common.hpp"
#include "engine.hpp"
#include "exala/blas2.hpp"
#include "exala/detail/backend_hooks.hpp"
#include "exala/error.hpp"
#include "store.hpp"

namespace exala::detail::stripe {

using i64 = std::int64_t;

factor_engine make_factor_engine(const stripe_lu_options& opt) {
  factor_engine f;
  if (opt.engine == "cpu") {
    f.cpu = make_cpu_engine(opt.threads);
    return f;
  }
  f.dev = make_device_engine(opt.engine, opt.threads);
  if (!f.dev) {
    // A build with CUDA loads the engine from its plugin: say why that failed.
    const std::string why = opt.engine == "cuda" ? exala::detail::plugin_load_error(backend::cuda) : std::string();
    throw not_compiled_in("the stripe LU engine '" + opt.engine + "' (" +
                          (why.empty() ? "build with CUDA, link exala::gpu_cuda and include <exala/cuda.hpp>" : why) +
                          ")");
  }
  return f;
}

void driver_state::set_scale(double max_abs) {
  sc.set_max(max_abs);
  rep.matrix_scale = sc.exp;
}

void driver_state::choose_sizes(bool out_of_core) {
  const stripe_sizes z = choose_stripe_sizes(n, opt, file_stripe, out_of_core);
  S = z.S, Sp = z.Sp, m = z.m, N = z.N, G = z.G;
  rep.n = n, rep.stripe = S, rep.substripe = Sp, rep.meta = m;
  rep.order = std::string(to_string(opt.order));
  rep.pivot = std::string(to_string(opt.pivot));
  rep.engine = opt.engine;
}

factor_setup driver_state::setup(std::function<void(const block&, std::int64_t)> note_pivots,
                                 std::function<void(double, double)> finish) {
  factor_setup f{opt, rep};
  f.n = n, f.S = S, f.Sp = Sp, f.m = m, f.N = N, f.G = G;
  f.threshold = threshold();
  f.scale_exp = sc.exp;
  f.note_pivots = std::move(note_pivots);
  f.finish = std::move(finish);
  return f;
}

std::unique_ptr<stripe_cache> driver_state::whole_stripes(std::function<void(i64, double*)> fill) const {
  cache_callbacks cb;
  cb.size = [this](i64 I) { return std::uint64_t(rows(I)) * std::uint64_t(n) * 8u; };
  cb.load = [this, fill](i64 I, cache_buffer& b) {
    b.rows = rows(I), b.col0 = 0, b.ncols = n;
    b.data = host_array(std::size_t(b.rows * n));
    fill(I, b.data.data());
  };
  cb.flush = [](i64, const cache_buffer&) {};
  return std::make_unique<stripe_cache>(cb, opt.cache_bytes, opt.io_threads);
}

// ------------------------------------------------------------- in memory

// Lookahead. Step J: stripe J's factored columns [J*S, n) are on every
// rank; the owner of J + 1 eliminates J from J + 1 and factors it, then
// starts its broadcast; every rank eliminates J from its other later stripes
// while that broadcast travels (distribution::overlap) and then waits for it.
// No collective ties the ranks' sweeps together: a rank starts step J + 1 as
// soon as it holds stripe J + 1, so the factorization of J + 2 (on J + 2's
// owner) overlaps with the other ranks' sweeps of J + 1 (as in HPL's
// lookahead). Each stripe still receives the eliminations by 0..J-1 in that
// order, then its factorization: the same engine calls, hence the same bits,
// as without lookahead.
// Errors: a failed step is shared with its broadcast (owner_step's contract:
// every rank throws). A rank whose sweep fails, or whose progress callback
// throws, stops sweeping but keeps taking part in the broadcasts; it fails
// the next step it owns, or, at the latest, the agreement after the loop, so
// no rank is left waiting.
namespace {
std::atomic<i64> sweep_fault_step{-1};
}
void inject_sweep_fault(i64 step) { sweep_fault_step = step; }

void factor_in_memory(const factor_setup& f, distribution& d, dense_engine& e,
                      const own_stripe_fn& own, i64* ipiv) {
  const i64 n = f.n, S = f.S, N = f.N;
  progress_meter pm(f.opt, "factor", lu_flops(n), N, nullptr);
  const auto t0 = clock_type::now();
  f.rep.lookahead = 1;
  auto count = [&](i64 J) { return f.rows(J) * (n - J * S); };
  // Stripe J's factored columns [J*S, n): the owner's stripe, or received
  // into one of two buffers (J's is read while J + 1's arrives).
  std::vector<double> recv[2];
  auto columns = [&](i64 J) {
    if (d.mine(J)) return own(J).col(J * S);
    std::vector<double>& v = recv[J % 2];
    v.resize(std::size_t(count(J)));
    return v.data();
  };
  auto panel = [&](i64 J) -> block {
    if (d.mine(J)) return own(J);
    return {recv[J % 2].data(), f.rows(J), J * S, n, f.rows(J)};
  };
  // This rank's failed sweep, or its progress callback's exception (which
  // fails the rank like a failed sweep: thrown at once, it would leave the
  // other ranks waiting in a broadcast).
  std::exception_ptr failed;
  pm.report_or_keep(0, nullptr, true, failed);
  // Stripe J on its owner, eliminated by J - 1 (the earlier pivots reached
  // it in earlier steps), then factored.
  auto factor = [&](i64 J) {
    if (failed) std::rethrow_exception(failed);
    const block t = own(J);
    if (J > 0) apply_pivot_stripe(e, panel(J - 1), (J - 1) * S, t);
    factor_stripe_local(e, t, J * S, f.Sp, f.threshold, ipiv + J * S);
    f.note_pivots(t, J * S);
  };
  if (N > 0) {
    auto s0 = d.begin_step(d.owner(0), f.threshold, columns(0), count(0));
    if (d.mine(0)) s0->run([&] { factor(0); });
    s0->finish();
  }
  for (i64 J = 0; J < N; ++J) {
    const i64 c0 = J * S;
    const block p = panel(J);
    std::unique_ptr<distribution::async_step> next;
    if (J + 1 < N) next = d.begin_step(d.owner(J + 1), f.threshold, columns(J + 1), count(J + 1));
    if (next && d.mine(J + 1)) next->run([&] { factor(J + 1); });
    if (!failed) try {
        d.overlap([&] {
          i64 at = J;
          if (sweep_fault_step.compare_exchange_strong(at, -1))
            throw error("exala: stripe LU: injected sweep fault at step " + std::to_string(J));
          for (i64 I = d.first_own(J + 2); I < N; I += d.ranks()) apply_pivot_stripe(e, p, c0, own(I));
        });
      } catch (...) {
        failed = std::current_exception();
      }
    if (next) next->finish();
    pm.done += factor_flops(n, c0, f.rows(J));
    for (i64 I = J + 1; I < N; ++I) pm.done += elim_flops(n, c0, f.rows(J), f.rows(I));
    pm.report_or_keep(J + 1, nullptr, false, failed);
  }
  pm.done = pm.total;
  pm.report_or_keep(N, nullptr, true, failed);
  d.agree([&] {
    if (failed) std::rethrow_exception(failed);
  });
  f.finish(seconds_since(t0), 0);
}

i64 factor_in_memory_device(device_engine& e, distribution& d, i64 n, i64 S, i64 Sp, i64 N,
                            double threshold, i64 cap, const own_stripe_fn& own, i64* ipiv,
                            const std::function<void(i64, double)>& on_stripe,
                            const std::function<void(const block&, i64)>& note_pivots,
                            double* pin_seconds) {
  const int P = d.ranks();
  auto rows = [&](i64 J) { return std::min(S, n - J * S); };
  // Received pivots land here (one buffer per slot), pinned like the own
  // stripes so that the copies are asynchronous.
  std::vector<std::vector<double>> recv;
  pinned_host pinned(e);  // after recv: unpinned before it is freed
  std::optional<device_stripes> ds;  // after `pinned`: synchronized before the unpinning
  i64 slots = N == 0 ? 1 : 0;
  d.agree([&] {
    if (N == 0) return;
    ds.emplace(e, n, S, Sp, threshold, cap);
    slots = ds->pivot_slots();
  });
  const i64 mg = d.min_over_ranks(slots);
  d.agree([&] {
    if (N == 0 || P == 1) return;
    const auto tp = clock_type::now();
    recv.resize(std::size_t(mg));
    for (auto& b : recv) {
      b.assign(std::size_t(S * n), 0.0);
      pinned.pin(b.data(), b.size() * sizeof(double));
    }
    if (pin_seconds) *pin_seconds += seconds_since(tp);
  });
  // A failed upload of a received pivot, or an exception from on_stripe (the
  // user's progress callback): thrown at this rank's next step or agreement
  // (never skipping a collective).
  std::exception_ptr pending;
  auto report = [&](i64 step, double flops) {
    if (!on_stripe || pending) return;
    try {
      on_stripe(step, flops);
    } catch (...) {
      pending = std::current_exception();
    }
  };
  for (i64 first = 0; first < N; first += mg) {
    const i64 last = std::min(N, first + mg);
    for (i64 J = first; J < last; ++J) {
      const int o = d.owner(J);
      const i64 q = J - first, r = rows(J), c0 = J * S, count = r * (n - c0);
      d.owner_step(o, threshold, [&] {
        if (pending) std::rethrow_exception(pending);
        const block h = own(J);
        ds->upload_pivot(q, h, c0);
        ds->factor(q, h, c0, ipiv + c0);
        if (P == 1) return;  // one process: the group's downloads end together
        ds->finish_group();  // h holds the factored stripe, to be broadcast
        note_pivots(h, c0);
      });
      if (P > 1) {
        double* pd = d.mine(J) ? own(J).col(c0) : recv[std::size_t(q)].data();
        d.broadcast(o, pd, count);
        if (!d.mine(J) && !pending) try {
            ds->upload_pivot(q, {pd, r, c0, n, r}, c0);
          } catch (...) {
            pending = std::current_exception();
          }
      }
      double fl = factor_flops(n, c0, r);
      for (i64 Q = first; Q < J; ++Q) fl += elim_flops(n, Q * S, rows(Q), r);
      report(J + 1, fl);
    }
    d.agree([&] {
      if (pending) std::rethrow_exception(pending);
      if (P == 1) {
        ds->finish_group();
        for (i64 J = first; J < last; ++J) note_pivots(own(J), J * S);
      }
      const i64 c = first * S;  // columns [0, c) of a later stripe are final
      for (i64 I = d.first_own(last); I < N; I += P) {
        const block h = own(I);
        ds->submit({h.col(c), h.rows, c, n, h.ld}, last - first);
      }
      ds->complete_all();
      e.sync_all();  // the received pivots' uploads too: recv is free for the next group
    });
    double fl = 0;
    for (i64 J = first; J < last; ++J)
      for (i64 I = last; I < N; ++I) fl += elim_flops(n, J * S, rows(J), rows(I));
    report(last, fl);
  }
  d.agree([&] {
    if (pending) std::rethrow_exception(pending);
  });
  return mg;
}

// ----------------------------------------------------------- out of core

namespace {

// One rank's out-of-core factorization; see factor_out_of_core below.
class ooc_run {
 public:
  ooc_run(const factor_setup& f, distribution& d, dense_engine& eng, device_engine* dev, store& sto)
      : f_(f), d_(d), eng_(eng), dev_(dev), sto_(sto), n_(f.n), S_(f.S), m_(f.m), N_(f.N), G_(f.G),
        P_(d.ranks()), k_(std::size_t(N_), 0), disk_k_(std::size_t(N_)) {}

  void open_journal(const std::string& journal, const std::string& restart_hint);
  void run();

 private:
  i64 rows(i64 J) const { return f_.rows(J); }
  i64 col(i64 g) const { return f_.col_of_group(g); }
  bool factored(i64 J) const { return gd_[std::size_t(d_.owner(J))] > J / m_; }
  cache_callbacks callbacks();
  std::uint64_t cache_budget();
  cache_buffer& timed_acquire(stripe_cache& c, i64 I);
  void write_lu(i64 J, i64 col0, const double* data, const std::vector<i64>& pv,
                std::vector<double>& whole);

  const factor_setup& f_;
  distribution& d_;
  dense_engine& eng_;
  device_engine* dev_;
  store& sto_;
  const i64 n_, S_, m_, N_, G_;
  const int P_;
  progress_record want_{};
  i64 gd_mine_ = 0;                     // this rank's journal: groups done
  bool resumed_mine_ = false;
  std::vector<i64> k_;                  // groups applied to own unfactored stripes (memory)
  std::vector<std::atomic<i64>> disk_k_;  // ... as on disk
  std::vector<std::int64_t> gd_;        // every rank's groups done
  i64 ahead_ = 0;                       // lookahead: members of a group factored in the previous sweep
};

void ooc_run::open_journal(const std::string& journal, const std::string& restart_hint) {
  want_ = progress_record{S_, f_.Sp, m_, int(f_.opt.pivot), "", 0};
  d_.agree([&] {
    want_.engine = eng_.name();
    auto have = f_.opt.resume ? sto_.read_progress() : std::nullopt;  // (restart: even a foreign journal goes)
    if (have) {
      if (have->stripe != S_ || have->substripe != f_.Sp || have->meta != m_ ||
          have->pivot != want_.pivot || have->engine != want_.engine)
        throw storage_error(-1, journal,
                            "holds a partial run with stripe " + std::to_string(have->stripe) +
                                ", substripe " + std::to_string(have->substripe) + ", meta " +
                                std::to_string(have->meta) + ", engine " + have->engine +
                                "; give the same parameters to resume it, or start over " +
                                restart_hint);
      gd_mine_ = std::clamp<i64>(have->groups_done, 0, G_);
      resumed_mine_ = true;
    } else {
      sto_.clear_factorization();
      sto_.write_progress(want_);
    }
    for (i64 J = d_.first_own(0); J < std::min(N_, gd_mine_ * m_); J += P_) {  // a kill at a group's end
      sto_.remove_active(J);
      sto_.remove_lsegments(J);
    }
    for (i64 I = d_.first_own(gd_mine_ * m_); I < N_; I += P_) {
      if (auto h = sto_.read_active_header(I)) {
        // gd + 1: the sweep of a group runs while its lu_ files are written,
        // so a stripe may hold one group more than the journal.
        if (h->groups_applied < 0 || h->groups_applied > std::min(gd_mine_ + 1, I / m_) ||
            h->col0 != col(h->groups_applied))
          throw storage_error(I, "", "act_ file of the partial run is inconsistent with its journal "
                                     "(groups applied " + std::to_string(h->groups_applied) + ")");
        k_[std::size_t(I)] = h->groups_applied;
      }
      disk_k_[std::size_t(I)] = k_[std::size_t(I)];
    }
  });
  f_.rep.engine = want_.engine;
}

// This rank's working stripes (keys I >= 0): columns [c_k, n) after k groups.
cache_callbacks ooc_run::callbacks() {
  cache_callbacks cb;
  cb.size = [this](i64 I) -> std::uint64_t {
    return std::uint64_t(rows(I)) * std::uint64_t(n_ - col(disk_k_[std::size_t(I)])) * 8u;
  };
  cb.load = [this](i64 I, cache_buffer& b) {
    const i64 kk = disk_k_[std::size_t(I)], c0 = col(kk);
    b.rows = rows(I), b.col0 = c0, b.ncols = n_ - c0, b.version = b.disk_version = kk;
    b.data = host_array(std::size_t(b.rows * b.ncols));
    if (kk == 0) {  // the original stripe enters the factorization: A' = 2^-k A
      sto_.read_original(I * S_, b.rows, 0, n_, b.data.data(), b.rows);
      scale_block(b.rows, n_, b.data.data(), b.rows, f_.scale_exp);
    } else
      sto_.read_active(I, b.rows, c0, b.data.data(), b.rows);
  };
  cb.flush = [this](i64 I, const cache_buffer& b) {
    const i64 r = b.rows;
    for (i64 g = b.disk_version; g < b.version; ++g) {
      const i64 c0 = col(g), c1 = col(g + 1);
      sto_.write_lsegment(I, r, c0, c1, b.data.data() + (c0 - b.col0) * r, r);
    }
    const i64 c = col(b.version);
    sto_.write_active(I, r, b.version, c, b.data.data() + (c - b.col0) * r, r);
    disk_k_[std::size_t(I)] = b.version;
  };
  return cb;
}

// Room for m pivots and two working stripes. One process keeps its pivot
// stripes in the cache (pinned: no copy); with more ranks the group's m
// pivots live beside the cache, whose budget is cache_bytes less their room,
// so that a rank never holds more than cache_bytes of stripes.
// Lookahead (more ranks, CPU engine; see run): the next group's members
// factored during a sweep live beside the cache too, so they take room only
// where the cache can spare it: up to m of them, as many as leave room for
// all of the rank's own stripes, the fewest over the ranks (with a smaller
// cache the sweep's extra evictions cost more than the ranks' waits save:
// n = 8000, P = 2, meta 3 read 25% more and took 4% longer).
std::uint64_t ooc_run::cache_budget() {
  const std::uint64_t stripe_bytes = std::uint64_t(S_) * std::uint64_t(n_) * 8u;
  i64 ahead = P_ > 1 && !dev_ ? m_ : 0;
  d_.agree([&] {
    const std::uint64_t cb = f_.opt.cache_bytes;
    if (cb == 0) return;
    if (cb < std::uint64_t(m_ + 2) * stripe_bytes)
      throw invalid_argument("cache", std::to_string(cb) + " bytes cannot hold " + std::to_string(m_) +
                                          " pivot stripe(s) plus two working stripes of " +
                                          std::to_string(stripe_bytes) +
                                          " bytes: raise the cache or lower the stripe or meta");
    std::uint64_t own = std::uint64_t(m_) * stripe_bytes;
    for (i64 I = d_.first_own(0); I < N_; I += P_) own += std::uint64_t(rows(I)) * std::uint64_t(n_) * 8u;
    ahead = cb <= own ? 0 : std::min<i64>(ahead, i64((cb - own) / stripe_bytes));
  });
  ahead_ = d_.min_over_ranks(ahead);
  if (f_.opt.cache_bytes == 0 || P_ == 1) return f_.opt.cache_bytes;
  return f_.opt.cache_bytes - std::uint64_t(m_ + ahead_) * stripe_bytes;
}

cache_buffer& ooc_run::timed_acquire(stripe_cache& c, i64 I) {
  const auto ta = clock_type::now();
  cache_buffer& b = c.acquire(I);
  f_.rep.io_wait_seconds += seconds_since(ta);
  return b;
}

// lu_ file of a factored own stripe J whose columns [col0, n) are at data
// (ld rows(J)): the L columns [0, col0) from its lseg_ files, row-swapped
// now, then data.
void ooc_run::write_lu(i64 J, i64 col0, const double* data, const std::vector<i64>& pv,
                       std::vector<double>& whole) {
  const i64 r = rows(J);
  if (col0 == 0) {
    sto_.write_lu(J, r, data, r, pv.data());
    return;
  }
  whole.resize(std::size_t(r * n_));
  for (i64 q = 0;; ++q) {
    const i64 c0 = col(q), c1 = col(q + 1);
    if (c1 > col0) break;
    sto_.read_lsegment(J, r, c0, c1, whole.data() + c0 * r, r);
  }
  for (i64 c = 0; c < col0; ++c)
    for (i64 i = 0; i < r; ++i)
      if (pv[std::size_t(i)] != i)
        std::swap(whole[std::size_t(c * r + i)], whole[std::size_t(c * r + pv[std::size_t(i)])]);
  std::memcpy(whole.data() + col0 * r, data, std::size_t(r * (n_ - col0)) * 8u);
  sto_.write_lu(J, r, whole.data(), r, pv.data());
}

// Group g (members first .. last-1): each member J is factored by its owner
// (first eliminated by the group's earlier members), copied into the pivot
// buffers and broadcast from column J*S; the owners' lu_ files are written
// behind the sweep (from those buffers), and the journal says "group g done"
// only once they are complete; then every rank eliminates the group, member
// by member, from each of its later stripes in the chosen traversal order.
// Resume: stripe J counts as factored when its owner's journal covers its
// group; the others restart from their act_ files (k groups applied); the run
// restarts at the smallest k over all ranks, factored members of the groups
// caught up coming back from their lu_ files (the owner re-broadcasts them).
//
// Lookahead (more ranks, CPU engine, ahead_ > 0): the first ahead_ members
// of group g + 1 are factored during the sweep of g, one after the other,
// each by its owner (g eliminated from it first, then the earlier members of
// g + 1) and broadcast while every rank sweeps a slice of its targets; group
// g + 1 then starts with only its other members to factor. Each stripe still
// receives the same engine calls in the same order (the bits do not change),
// and a member factored ahead is never written back as an act_ file: a kill
// before its group's journal entry re-factors it on resume, from its last
// act_ file. One process has no rank waiting on a member, so no lookahead.
//
// On a device engine the group's pivot stripes sit in the device's pivot
// slots (the owner's member factored there, received ones uploaded into the
// same slot), and the sweep streams each later stripe through the device, two
// in flight.
void ooc_run::run() {
  const stripe_lu_options& opt = f_.opt;
  stripe_lu_report& rep = f_.rep;
  gd_.assign(std::size_t(P_), 0);
  d_.all_gather(gd_mine_, gd_.data());
  i64 g_local = G_;
  for (i64 I = d_.first_own(0); I < N_; I += P_)
    if (!factored(I)) g_local = std::min(g_local, k_[std::size_t(I)]);
  const i64 g_start = d_.min_over_ranks(g_local);
  rep.resumed = d_.max_over_ranks(resumed_mine_ ? 1 : 0) != 0;
  rep.groups_resumed = 0;  // leading groups whose stripes are all factored
  while (rep.groups_resumed < G_) {
    bool all = true;
    for (i64 J = rep.groups_resumed * m_; J < std::min(N_, (rep.groups_resumed + 1) * m_); ++J)
      all = all && factored(J);
    if (!all) break;
    ++rep.groups_resumed;
  }

  stripe_cache cache(callbacks(), cache_budget(), opt.io_threads);
  rep.lookahead = ahead_;
  // A device engine holds the group's m pivot stripes in device slots
  // (declared after the cache: synchronized and freed before it).
  std::optional<device_stripes> ds;
  if (dev_)
    d_.agree([&] {
      ds.emplace(*dev_, n_, S_, f_.Sp, f_.threshold, m_);
      if (ds->pivot_slots() < m_)
        throw invalid_argument("meta", "groups of " + std::to_string(m_) + " stripes do not fit on " +
                                           dev_->device_name() + " (room for " +
                                           std::to_string(ds->pivot_slots()) + "): give a smaller meta");
    });
  // A failed upload of a received pivot, or a failed sweep slice (lookahead):
  // thrown at this rank's next step or collective.
  std::exception_ptr pending;
  double resumed_flops = 0;
  for (i64 J = 0; J < N_; ++J)
    if (factored(J)) {
      resumed_flops += factor_flops(n_, J * S_, rows(J));
      for (i64 I = J + 1; I < N_; ++I) resumed_flops += elim_flops(n_, J * S_, rows(J), rows(I));
    }
  progress_meter pm(opt, "factor", lu_flops(n_), G_, &sto_.counters());
  pm.done = pm.start_done = std::min(resumed_flops, pm.total);
  const auto t0 = clock_type::now();
  auto last_checkpoint = t0;
  const i64 read0 = sto_.counters().bytes_read, written0 = sto_.counters().bytes_written;
  // The user's progress callback: its exception, like any, must reach every
  // rank, so it is thrown inside an agreement, or kept (pending) for the next.
  d_.agree([&] { pm.report(rep.groups_resumed, nullptr, true); });

  auto view = [&](cache_buffer& b) { return block{b.data.data(), b.rows, b.col0, n_, b.rows}; };
  // A group's pivot stripes: member J's columns [pcol0, n) (ld rows(J)) at
  // data. One process keeps a factored member in its cache buffer, acquired
  // and pinned until the group's end (buf; the lu_ writer reads it there).
  // With more ranks an own member factored in this run is copied out, at its
  // columns' place in a whole-width row block, with every column its buffer
  // held (its lu_ file is written from them), and leaves the cache; a
  // received one, or one read back from its lu_ file, has [J*S, n). Two
  // sets: with lookahead the next group's first members are factored into
  // the other set while this group's sweep still reads its own.
  const bool pin_own = P_ == 1;
  struct pivot_set {
    std::vector<std::vector<double>> mem;
    std::vector<double*> data;
    std::vector<i64> pcol0;
    std::vector<std::vector<i64>> pv;
    std::vector<cache_buffer*> buf;
    std::vector<i64> to_write;  // own members factored in this run (their lu_ files)
    explicit pivot_set(std::size_t m) : mem(m), data(m, nullptr), pcol0(m, 0), pv(m), buf(m, nullptr) {}
  };
  pivot_set sets[2] = {pivot_set(std::size_t(m_)), pivot_set(std::size_t(m_))};
  auto pivot_block = [&](const pivot_set& ps, i64 J, i64 first) {
    const std::size_t q = std::size_t(J - first);
    return block{ps.data[q], rows(J), ps.pcol0[q], n_, rows(J)};
  };
  // Readies slot J - first of ps for member J and returns where its columns
  // [J*S, n) will be (nullptr: they stay in the owner's pinned cache buffer),
  // so that a broadcast can be posted before the member is factored.
  auto slot_for = [&](pivot_set& ps, i64 J, i64 first) -> double* {
    const std::size_t q = std::size_t(J - first);
    const i64 r = rows(J);
    ps.buf[q] = nullptr;
    if (d_.mine(J) && !factored(J)) {
      if (pin_own) return nullptr;
      ps.mem[q].resize(std::size_t(r * n_));
      return ps.mem[q].data() + J * S_ * r;
    }
    ps.mem[q].resize(std::size_t(r * (n_ - J * S_)));
    ps.data[q] = ps.mem[q].data();
    ps.pcol0[q] = J * S_;
    return ps.data[q];
  };
  std::vector<i64> pv(static_cast<std::size_t>(S_));
  std::vector<double> whole;  // the lu_ writer's row buffer

  // Own member J of group gj into slot J - gj*m of ps (after slot_for): read
  // back from its lu_ file (factored in an earlier run), or acquired,
  // eliminated by the group's earlier members and factored. prev: the
  // previous group's pivots, when J is factored ahead (lookahead) and may
  // still lack them.
  auto member_step = [&](stripe_cache& cache, pivot_set& ps, const pivot_set* prev, i64 J, i64 gj) {
    if (pending) std::rethrow_exception(pending);
    const i64 first = gj * m_, r = rows(J);
    const std::size_t q = std::size_t(J - first);
    if (factored(J)) {  // catching up after a resume: from its lu_ file
      sto_.read_lu(J, r, J * S_, n_, ps.data[q], r, nullptr);
      return;
    }
    cache_buffer& b = timed_acquire(cache, J);
    struct release_at_exit {
      stripe_cache& c;
      i64 J;
      bool keep = false;  // a pinned pivot: released at the group's end
      ~release_at_exit() {
        if (!keep) try {
            c.release(J);
          } catch (...) {
          }
      }
    } rel{cache, J};
    const block tb = view(b);
    if (prev && b.version == gj - 1) {  // the previous group's sweep, ahead of the others
      const i64 pf = first - m_;
      for (i64 Q = pf; Q < first; ++Q) {
        apply_pivot_stripe(eng_, pivot_block(*prev, Q, pf), Q * S_, tb);
        pm.done += elim_flops(n_, Q * S_, rows(Q), r);
      }
      b.version = gj;
      k_[std::size_t(J)] = gj;
    }
    if (b.version != gj)
      throw storage_error(J, "", "stripe holds " + std::to_string(b.version) +
                                     " groups when its own group " + std::to_string(gj) + " starts");
    for (i64 Q = first; Q < J; ++Q) {
      if (!ds) apply_pivot_stripe(eng_, pivot_block(ps, Q, first), Q * S_, tb);
      pm.done += elim_flops(n_, Q * S_, rows(Q), r);
    }
    if (ds) {  // eliminated by slots 0 .. q-1 and factored on the device
      ds->upload_pivot(i64(q), tb, J * S_);
      ds->factor(i64(q), tb, J * S_, pv.data());
      ds->finish_group();  // tb holds the factored stripe
    } else {
      factor_stripe_local(eng_, tb, J * S_, f_.Sp, f_.threshold, pv.data());
    }
    f_.note_pivots(tb, J * S_);
    pm.done += factor_flops(n_, J * S_, r);
    ps.pcol0[q] = b.col0;
    if (pin_own) {
      cache.pin(J);
      ps.buf[q] = &b;
      ps.data[q] = b.data.data();
      rel.keep = true;
    } else {
      ps.data[q] = ps.mem[q].data() + b.col0 * r;
      std::memcpy(ps.data[q], b.data.data(), std::size_t(r * b.ncols) * sizeof(double));
    }
    ps.pv[q].assign(pv.begin(), pv.begin() + r);
    ps.to_write.push_back(J);
    // Never written back as act_ again: it becomes an lu_ file.
    b.version = b.disk_version = gj + 1;
  };

  for (i64 g = g_start; g < G_; ++g) {
    const i64 first = g * m_, last = std::min(N_, (g + 1) * m_);
    pivot_set& cur = sets[g % 2];
    pivot_set& nxt = sets[(g + 1) % 2];
    // Members [first, from) were factored ahead, during the previous sweep.
    const i64 from = g > g_start ? std::min(last, first + ahead_) : first;
    // The next group's members factored ahead in this group's sweep.
    const i64 chain_end = g + 1 < G_ ? std::min(N_, last + ahead_) : last;
    // Announce this rank's acquisitions: its unfactored members, then the
    // sweep (its slices interleaved with the own members factored ahead).
    std::vector<i64> targets, upcoming;
    for (i64 I = d_.first_own(last); I < N_; I += P_)
      if (!factored(I) && k_[std::size_t(I)] == g && I >= chain_end) targets.push_back(I);
    if (opt.order != stripe_order::basic && (g % 2) == 1) std::reverse(targets.begin(), targets.end());
    const std::size_t slices = std::size_t(chain_end - last) + 1;
    auto slice_begin = [&](std::size_t c) { return targets.size() * c / slices; };
    for (i64 J = d_.first_own(from); J < last; J += P_)
      if (!factored(J)) upcoming.push_back(J);
    for (std::size_t c = 0; c < slices; ++c) {
      const i64 J = last + i64(c);
      if (J < chain_end && d_.mine(J) && !factored(J)) upcoming.push_back(J);
      upcoming.insert(upcoming.end(), targets.begin() + std::ptrdiff_t(slice_begin(c)),
                      targets.begin() + std::ptrdiff_t(slice_begin(c + 1)));
    }
    cache.plan(upcoming);
    if (from == first) cur.to_write.clear();
    std::future<void> lu_writer;  // waited for at the sweep's agreement

    for (i64 J = from; J < last; ++J) {
      const int o = d_.owner(J);
      const std::size_t q = std::size_t(J - first);
      const i64 count = rows(J) * (n_ - J * S_);
      double* const at = slot_for(cur, J, first);
      d_.owner_step(o, f_.threshold, [&] { member_step(cache, cur, nullptr, J, g); });
      if (d_.mine(J) && !factored(J) && !pin_own) cache.discard(J);
      if (P_ > 1) d_.broadcast(o, at, count);
      // Every rank's slot q holds the pivot (the owner's already does when
      // it factored it there).
      if (ds && (!d_.mine(J) || factored(J)) && !pending) try {
          ds->upload_pivot(i64(q), pivot_block(cur, J, first), J * S_);
        } catch (...) {
          pending = std::current_exception();
        }
    }
    // The own members' lu_ files, behind the sweep (which only reads them).
    if (!cur.to_write.empty())
      lu_writer = std::async(std::launch::async, [&, first] {
        for (i64 J : cur.to_write) {
          const std::size_t q = std::size_t(J - first);
          write_lu(J, cur.pcol0[q], cur.data[q], cur.pv[q], whole);
        }
      });
    struct wait_at_exit {  // an exception must not leave the writer reading the pivots
      std::future<void>& w;
      ~wait_at_exit() {
        if (w.valid()) try {
            w.get();
          } catch (...) {
          }
      }
    } writer_guard{lu_writer};

    // Sweep: eliminate the group from every own later stripe still behind.
    const double sweep_start = pm.done;
    // Target I, acquired and checked to hold groups 0 .. g-1.
    auto acquire_target = [&](i64 I) -> cache_buffer& {
      cache_buffer& b = timed_acquire(cache, I);
      if (b.version != g) {
        cache.release(I);
        throw storage_error(I, "", "cached stripe holds " + std::to_string(b.version) +
                                       " groups, expected " + std::to_string(g));
      }
      return b;
    };
    // One target on the CPU engine (the device's path is in the last slice).
    auto sweep_cpu = [&](i64 I) {
      cache_buffer& b = acquire_target(I);
      const block tb = view(b);
      // b belongs to the cache again once released (an I/O thread may
      // evict and free it at once): nothing below reads it after that.
      for (i64 J = first; J < last; ++J) apply_pivot_stripe(eng_, pivot_block(cur, J, first), J * S_, tb);
      b.version = g + 1;
      k_[std::size_t(I)] = g + 1;
      cache.release(I);
      for (i64 J = first; J < last; ++J) pm.done += elim_flops(n_, J * S_, rows(J), rows(I));
    };
    // Lookahead (more ranks, CPU engine): the next group's members
    // last .. chain_end-1, each factored by its owner (with this group's
    // elimination first) and broadcast as in the member loop above, while
    // every rank sweeps a slice of its targets (distribution::overlap, no
    // collective call); a failed slice is thrown at a later step or at the
    // agreement below, as in factor_in_memory.
    double chain_flops = 0;
    for (i64 J = last; J < chain_end; ++J) {
      const std::size_t c = std::size_t(J - last);
      const int o = d_.owner(J);
      const i64 r = rows(J), count = r * (n_ - J * S_);
      double* const at = slot_for(nxt, J, last);
      if (J == last) nxt.to_write.clear();
      auto step = d_.begin_step(o, f_.threshold, at, count);
      bool factored_here = false;
      if (d_.mine(J))
        step->run([&] {
          member_step(cache, nxt, &cur, J, g + 1);
          factored_here = !factored(J);
        });
      if (factored_here) cache.discard(J);
      if (!pending) try {
          d_.overlap([&] {
            for (std::size_t t = slice_begin(c); t < slice_begin(c + 1); ++t) sweep_cpu(targets[t]);
          });
        } catch (...) {
          pending = std::current_exception();
        }
      step->finish();
      chain_flops += factor_flops(n_, J * S_, r);
      for (i64 Q = last; Q < J; ++Q) chain_flops += elim_flops(n_, Q * S_, rows(Q), r);
      const auto cs = cache.stats();
      pm.report_or_keep(g, &cs, false, pending);
    }
    d_.agree([&] {
      if (pending) std::rethrow_exception(pending);
      // On a device engine up to two targets are in flight (uploaded,
      // updated, downloaded asynchronously); a target is released once it
      // is back.
      struct in_flight {
        i64 I;
        cache_buffer* b;
        i64 ticket;
      };
      std::vector<in_flight> flying;
      auto retire = [&](const in_flight& fl) {
        ds->complete(fl.ticket);
        fl.b->version = g + 1;
        k_[std::size_t(fl.I)] = g + 1;
        cache.release(fl.I);
      };
      struct retire_at_exit {  // an exception must not leave transfers into released buffers
        std::optional<device_stripes>& ds;
        ~retire_at_exit() {
          if (ds) try {
              ds->complete_all();
            } catch (...) {
            }
        }
      } retire_guard{ds};
      for (std::size_t t = slice_begin(slices - 1); t < targets.size(); ++t) {
        const i64 I = targets[t];
        if (!ds) {
          sweep_cpu(I);
        } else {
          if (flying.size() >= 2) {
            retire(flying.front());
            flying.erase(flying.begin());
          }
          cache_buffer& b = acquire_target(I);
          flying.push_back({I, &b, ds->submit(view(b), last - first)});
          for (i64 J = first; J < last; ++J) pm.done += elim_flops(n_, J * S_, rows(J), rows(I));
        }
        const auto cs = cache.stats();
        pm.report(g, &cs, false);
      }
      for (const in_flight& fl : flying) retire(fl);
      flying.clear();
      // The received pivots' uploads are done: the pivots are free for the next group.
      if (ds) dev_->sync_all();
      if (lu_writer.valid()) {
        const auto tw = clock_type::now();
        lu_writer.get();
        rep.io_wait_seconds += seconds_since(tw);
      }
      if (g + 1 > gd_mine_) {
        // This rank's members of groups <= g all have their lu_ files; a
        // kill before this point re-factors the group (same bits) on resume.
        want_.groups_done = g + 1;
        sto_.write_progress(want_);
        for (i64 J = d_.first_own(first); J < last; J += P_) {
          sto_.remove_active(J);
          sto_.remove_lsegments(J);
        }
        gd_mine_ = g + 1;
      }
      if (seconds_since(last_checkpoint) >= opt.checkpoint_interval_s && g + 1 < G_) {
        cache.flush_async();
        last_checkpoint = clock_type::now();
      }
    });
    // The pinned pivots (their lu_ files are complete) leave the cache.
    for (i64 J = first; J < last; ++J)
      if (cur.buf[std::size_t(J - first)]) {
        cache.release(J);
        cache.unpin(J);
        cache.discard(J);
      }
    // Progress: the group's whole sweep, every rank's (this rank's targets
    // were counted as they were done), and the members factored ahead.
    pm.done = sweep_start + chain_flops;
    for (i64 I = last; I < N_; ++I)
      for (i64 J = first; J < last; ++J) pm.done += elim_flops(n_, J * S_, rows(J), rows(I));
    const auto cs = cache.stats();
    pm.report_or_keep(g + 1, &cs, true, pending);
  }
  d_.agree([&] {
    if (pending) std::rethrow_exception(pending);
    cache.flush_all();
  });
  const auto cs = cache.stats();
  f_.finish(seconds_since(t0), resumed_flops);
  rep.bytes_read = sto_.counters().bytes_read - read0;
  rep.bytes_written = sto_.counters().bytes_written - written0;
  rep.cache_hits = cs.hits, rep.cache_misses = cs.misses + cs.prefetched;
  rep.peak_cache_bytes = cs.peak_bytes;
  pm.done = pm.total;
  d_.agree([&] { pm.report(G_, &cs, true); });
}

}  // namespace

void factor_out_of_core(const factor_setup& f, distribution& d, dense_engine& eng,
                        device_engine* dev, store& sto, const std::string& journal,
                        const std::string& restart_hint) {
  if (dev) f.rep.device = dev->device_name();
  ooc_run run(f, d, eng, dev, sto);
  run.open_journal(journal, restart_hint);
  run.run();
}

// ------------------------------------------------- after the factorization

namespace {
// Rows [r0, r0 + r) of y's nrhs columns into buf (r x nrhs) and back.
void pack_rows(const double* y, i64 ldy, i64 r0, i64 r, i64 nrhs, double* buf) {
  for (i64 c = 0; c < nrhs; ++c) std::copy_n(y + r0 + c * ldy, r, buf + c * r);
}
void unpack_rows(const double* buf, i64 r0, i64 r, i64 nrhs, double* y, i64 ldy) {
  for (i64 c = 0; c < nrhs; ++c) std::copy_n(buf + c * r, r, y + r0 + c * ldy);
}
// Runs a view's `done` when a step leaves, normally or by an exception.
struct run_at_exit {
  const std::function<void()>& f;
  ~run_at_exit() {
    if (f) f();
  }
};
// This rank's own stripes in increasing order.
std::vector<i64> own_stripes(const distribution& d, i64 N) {
  std::vector<i64> v;
  for (i64 J = d.first_own(0); J < N; J += d.ranks()) v.push_back(J);
  return v;
}
// Sends rows [r0, r0 + r) of y from their owner o to every rank.
void share_rows(distribution& d, int o, i64 r0, i64 r, i64 nrhs, double* y, i64 ldy, std::vector<double>& buf) {
  if (d.ranks() == 1) return;
  buf.resize(std::size_t(r * nrhs));
  if (o == d.rank()) pack_rows(y, ldy, r0, r, nrhs, buf.data());
  d.broadcast(o, buf.data(), r * nrhs);
  if (o != d.rank()) unpack_rows(buf.data(), r0, r, nrhs, y, ldy);
}
}  // namespace

void solve_by_stripes(distribution& d, i64 n, i64 S, i64 N, i64 nrhs, double* y, i64 ldy,
                      const prepare_fn& prepare, const std::function<dense_engine&()>& engine,
                      const std::function<lu_view(i64 J)>& lu_of) {
  if (n == 0 || nrhs == 0) return;
  std::vector<i64> plan = own_stripes(d, N);  // forward, then back
  plan.insert(plan.end(), plan.rbegin(), plan.rend());
  d.agree([&] { prepare(plan); });
  std::vector<double> buf;
  auto step = [&](i64 J, bool forward) {
    const int o = d.owner(J);
    const i64 r = std::min(S, n - J * S), r0 = J * S;
    d.owner_step(o, 0, [&] {
      lu_view v = lu_of(J);
      const run_at_exit done{v.done};
      if (forward) {
        if (v.piv != nullptr)
          for (i64 i = 0; i < r; ++i) {
            const i64 a = r0 + i, t = r0 + v.piv[i];
            if (a != t)
              for (i64 c = 0; c < nrhs; ++c) std::swap(y[a + c * ldy], y[t + c * ldy]);
          }
        forward_stripe(engine(), v.b, r0, nrhs, y, ldy);
      } else {
        backward_stripe(engine(), v.b, r0, nrhs, y, ldy);
      }
    });
    share_rows(d, o, r0, r, nrhs, y, ldy, buf);
  };
  for (i64 J = 0; J < N; ++J) step(J, true);
  for (i64 J = N - 1; J >= 0; --J) step(J, false);
}

void residual_by_stripes(distribution& d, i64 n, i64 S, i64 N, i64 nrhs, const double* b, i64 ldb,
                         const double* x, i64 ldx, double* r, int threads, const prepare_fn& prepare,
                         const std::function<rows_view(i64 I)>& rows_of) {
  const exec ex{is_compiled_in(backend::omp) ? backend::omp : backend::simd, threads};
  for (i64 c = 0; c < nrhs; ++c)
    for (i64 i = 0; i < n; ++i) r[i + c * n] = b[i + c * ldb];
  if (n == 0 || nrhs == 0) return;  // nothing to compute (and gemv wants lda >= 1)
  auto rows = [&](i64 I) { return std::min(S, n - I * S); };
  d.agree([&] {
    const std::vector<i64> plan = own_stripes(d, N);
    prepare(plan);
    for (const i64 I : plan) {
      rows_view v = rows_of(I);
      const run_at_exit done{v.done};
      for (i64 c = 0; c < nrhs; ++c)
        gemv(layout::col_major, transpose::none, rows(I), n, -1.0, v.a, v.lda, x + c * ldx, 1, 1.0,
             r + I * S + c * n, 1, ex);
    }
  });
  std::vector<double> buf;
  for (i64 J = 0; J < N; ++J) share_rows(d, d.owner(J), J * S, rows(J), nrhs, r, n, buf);
}

}  // namespace exala::detail::stripe
