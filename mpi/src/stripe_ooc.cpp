// mpi/src/stripe_ooc.cpp - the distributed stripe LU out of core
// (exala/mpi.hpp): each rank copies its own stripes from the shared system
// into its rank_workdir and factors them there through its own byte-budgeted
// stripe cache, with the single-process driver's files (act_, lseg_, lu_ and
// a progress journal; solvers/src/stripe/store.hpp).
//
// Pivot groups of m stripes (m = 1 unless meta_zigzag) as in the single
// process: the members J of group g are factored one after the other, each
// by its owner (first eliminated by the group's earlier members, which every
// rank holds as broadcast), its lu_ file written, and its columns [J*S, n)
// broadcast; then every rank eliminates the group's m stripes, in order,
// from each of its own later stripes (the sweep, in the chosen traversal
// order). A stripe therefore receives the same kernel calls as in
// exala::stripe_lu, whatever m, the order, the cache or a resume.
//
// Memory per rank: the group's m broadcast pivot stripes live beside the
// cache, whose budget is opt.cache_bytes less their room, so the rank never
// holds more than opt.cache_bytes of stripes (the single process needs room
// for m pivots and two working stripes: the same rule).
//
// Journal: rank r records "groups_done = g + 1" once the lu_ files of all its
// members of groups <= g are complete (then removes their act_/lseg_ files).
// A killed run resumes as follows: the ranks exchange their groups_done;
// stripe J counts as factored when its owner's journal covers its group (its
// lu_ file is complete); every other stripe restarts from its act_ file (the
// groups applied, k). The run restarts at the smallest k over all ranks;
// factored pivots of the groups caught up are re-broadcast by their owners
// from their lu_ files, unfactored ones are factored again (same bits).
//
// On a device engine ("cuda", one rank per GPU intended) the group's pivot
// stripes sit in the rank's device pivot slots: the owner uploads its member
// into slot J - first, where the device eliminates the earlier members and
// factors it (device_stripes::factor), the other ranks upload the broadcast
// into the same slot, and the sweep streams each own later stripe through
// the device (two in flight, as in the single process). The same engine
// calls per stripe as exala::stripe_lu out of core with that engine: the
// same bits. The rank's device needs room for m pivot slots plus three
// target slots (an invalid_argument naming meta otherwise, as one process).
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>

#include "stripe_dist.hpp"

namespace exala::mpi {

namespace fs = std::filesystem;
using namespace dist;

namespace {

// The manifest source of a rank's copy starts with this: a directory holding
// another system is never overwritten.
const std::string copy_marker = "exala mpi stripe_lu rank copy";

std::string hex64(std::uint64_t v) {
  char t[20];
  std::snprintf(t, sizeof t, "%016llx", static_cast<unsigned long long>(v));
  return t;
}

// Identifies the shared system's contents as far as its manifest does.
std::uint64_t fingerprint(const st::manifest& m) {
  std::uint64_t w[8] = {std::uint64_t(m.n), std::uint64_t(m.nrhs), std::uint64_t(m.stripe),
                        std::bit_cast<std::uint64_t>(m.max_abs),
                        std::bit_cast<std::uint64_t>(m.norm_inf), std::uint64_t(m.has_xtrue),
                        m.system_id.hi, m.system_id.lo};  // (a new system: a new copy)
  return st::checksum64(m.source.data(), m.source.size(), st::checksum64(w, sizeof w));
}

bool has_manifest(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / "manifest", ec);
}

}  // namespace

void stripe_lu::impl::open_out_of_core(const std::vector<std::string>& system,
                                       const std::string& rank_workdir) {
  rank_dir = rank_workdir;
  // The shared system: every rank opens it (read only from here on) and
  // must see the same one.
  agree_same(comm, detail::operation::none, 1, [&] {
    sys.emplace(st::store::open(system));
    return std::vector<same_item>{{"system", fingerprint(sys->info()), same_item::data,
                                   " system (the ranks see different manifests)"}};
  });
  const st::manifest& man = sys->info();
  n = man.n;
  file_stripe = man.stripe;
  set_scale(man.max_abs);  // ||A'||_inf at the end (it may need the stripe height)

  // One directory per rank, none of them the system's.
  std::string key;
  detail::agree(comm, [&] {
    std::error_code ec;
    const fs::path me = fs::weakly_canonical(fs::absolute(rank_workdir), ec);
    if (ec) throw invalid_argument("rank_workdir", "'" + rank_workdir + "': " + ec.message());
    for (const auto& d : system) {
      const fs::path sd = fs::weakly_canonical(fs::absolute(d), ec);
      if (!ec && sd == me)
        throw invalid_argument("rank_workdir", "'" + rank_workdir +
                                                   "' is a directory of the system: give each rank "
                                                   "its own directory for its copy and factorization");
    }
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    key = std::string(host, std::size_t(std::max(len, 0))) + ":" + me.string();
  });
  const std::uint64_t mine_key = st::checksum64(key.data(), key.size());
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(P));
  MPI_Allgather(&mine_key, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, comm);
  detail::agree(comm, [&] {
    for (int q = 0; q < P; ++q)
      if (q != rank && keys[std::size_t(q)] == mine_key)
        throw invalid_argument("rank_workdir", "'" + rank_workdir + "' is also rank " +
                                                   std::to_string(q) +
                                                   "'s rank_workdir on this host: every rank "
                                                   "needs its own directory");
  });

  // Parameters left to the library (0) follow a partial run, as in the
  // single process, when the ranks' journals agree on them.
  std::int64_t have[4] = {0, 0, 0, 0};  // has a journal, stripe, substripe, meta
  detail::agree(comm, [&] {
    if (!opt.resume || !has_manifest(rank_dir)) return;
    st::store probe = st::store::open({rank_dir}, true);
    if (probe.info().source.rfind(copy_marker, 0) != 0) return;  // refused below
    if (auto pr = probe.read_progress()) have[0] = 1, have[1] = pr->stripe, have[2] = pr->substripe, have[3] = pr->meta;
  });
  {
    std::int64_t lo[4], hi[4], in_lo[4], in_hi[4];
    for (int i = 0; i < 4; ++i) {
      in_lo[i] = have[0] ? have[i] : std::numeric_limits<std::int64_t>::max();
      in_hi[i] = have[0] ? have[i] : std::numeric_limits<std::int64_t>::min();
    }
    MPI_Allreduce(in_lo, lo, 4, MPI_INT64_T, MPI_MIN, comm);
    MPI_Allreduce(in_hi, hi, 4, MPI_INT64_T, MPI_MAX, comm);
    if (hi[0] == 1 && lo[1] == hi[1] && lo[2] == hi[2] && lo[3] == hi[3]) {
      // S' only with its S (as the single-process stripe LU).
      const bool same_stripe = opt.stripe == 0 || opt.stripe == lo[1];
      if (opt.stripe == 0) opt.stripe = lo[1];
      if (opt.substripe == 0 && same_stripe) opt.substripe = lo[2];
      if (opt.meta == 0 && opt.order == stripe_order::meta_zigzag) opt.meta = lo[3];
    }
  }
  detail::agree(comm, [&] { choose_sizes(true); });
  agree_same(comm, detail::operation::none, 1, [&] {
    const std::uint64_t w[3] = {std::uint64_t(S), std::uint64_t(Sp), std::uint64_t(m)};
    return std::vector<same_item>{
        {"cache_bytes", st::checksum64(w, sizeof w), same_item::data,
         " budget, or set stripe, substripe and meta: here it gives stripe " + std::to_string(S) +
             ", substripe " + std::to_string(Sp) + ", meta " + std::to_string(m) +
             " (they must be the same on every rank)"}};
  });

  // This rank's copy of its stripes, with the factorization's stripe height
  // (reused when a complete copy for this rank, rank count and system is
  // there: a resumed run).
  const std::string want_source = copy_marker + ": rank " + std::to_string(rank) + " of " +
                                  std::to_string(P) + ", system " + hex64(fingerprint(man)) + " (" +
                                  man.source + ")";
  detail::agree(comm, [&] {
    if (has_manifest(rank_dir)) {
      st::store probe = st::store::open({rank_dir}, true);
      const st::manifest& pm = probe.info();
      if (pm.source.rfind(copy_marker, 0) != 0)
        throw invalid_argument("rank_workdir", "'" + rank_dir + "' holds another system (" +
                                                   pm.source +
                                                   "): give each rank an empty directory or its "
                                                   "own from an earlier run");
      if (pm.source == want_source && pm.n == n) {
        if (pm.stripe == S) {
          rs.emplace(std::move(probe));
        } else if (opt.resume) {
          if (auto pr = probe.read_progress())
            throw storage_error(-1, rank_dir + "/progress",
                                "holds a partial run with stripe " + std::to_string(pr->stripe) +
                                    ", substripe " + std::to_string(pr->substripe) + ", meta " +
                                    std::to_string(pr->meta) + ", engine " + pr->engine +
                                    "; give the same parameters to resume it, or start over "
                                    "(resume = false)");
        }
      }
    }
    if (!rs) {
      rs.emplace(st::store::create({rank_dir}, n, 0, S, true));
      rs->set_policy(opt.sync, opt.drop_page_cache);
      std::vector<double> buf;
      for (i64 J = first_own(0); J < N; J += P) {
        buf.resize(std::size_t(rows(J) * n));
        sys->read_original(J * S, rows(J), 0, n, buf.data(), rows(J));
        rs->write_original(J, buf.data(), rows(J));
      }
      rs->finish(man.max_abs, man.norm_inf, want_source);
    }
    rs->set_policy(opt.sync, opt.drop_page_cache);
  });

  // ||A'||_inf = 2^-k ||A||_inf exactly; where the manifest's overflowed
  // (inf, on every rank: the manifests agree), from the rank's own stripes,
  // combined with MPI_MAX (exact): the single process's value.
  if (std::isfinite(man.norm_inf)) {
    sc.norm = std::ldexp(man.norm_inf, -sc.exp);
  } else {
    double local = 0;
    detail::agree(comm, [&] {
      for (i64 J = first_own(0); J < N; J += P)
        local = std::max(local, st::stored_row_norm(*sys, n, J * S, rows(J), sc.exp));
    });
    MPI_Allreduce(&local, &sc.norm, 1, MPI_DOUBLE, MPI_MAX, comm);
  }
}

void stripe_lu::impl::factor_out_of_core() {
  st::store& sto = *rs;
  rank_engine fe = std::move(ooc_engine);  // destroyed last: the device slots use it
  st::dense_engine* eng = &fe.get();
  if (fe.dev) rep.device = fe.dev->device_name();
  st::progress_record want{S, Sp, m, int(opt.pivot), "", 0};
  i64 gd_mine = 0;  // this rank's journal
  bool resumed_mine = false;
  std::vector<i64> k(std::size_t(N), 0);  // groups applied to own unfactored stripes
  std::vector<std::atomic<i64>> disk_k(static_cast<std::size_t>(N));
  detail::agree(comm, [&] {
    want.engine = eng->name();
    auto have = opt.resume ? sto.read_progress() : std::nullopt;  // (restart: even a foreign journal goes)
    if (have && opt.resume) {
      if (have->stripe != S || have->substripe != Sp || have->meta != m || have->pivot != want.pivot ||
          have->engine != want.engine)
        throw storage_error(-1, rank_dir + "/progress",
                            "holds a partial run with stripe " + std::to_string(have->stripe) +
                                ", substripe " + std::to_string(have->substripe) + ", meta " +
                                std::to_string(have->meta) + ", engine " + have->engine +
                                "; give the same parameters to resume it, or start over "
                                "(resume = false)");
      gd_mine = std::clamp<i64>(have->groups_done, 0, G);
      resumed_mine = true;
    } else {
      sto.clear_factorization();
      sto.write_progress(want);
    }
    for (i64 J = first_own(0); J < std::min(N, gd_mine * m); J += P) {  // a kill at a group's end
      sto.remove_active(J);
      sto.remove_lsegments(J);
    }
    for (i64 I = first_own(gd_mine * m); I < N; I += P) {
      if (auto h = sto.read_active_header(I)) {
        if (h->groups_applied < 0 || h->groups_applied > std::min(gd_mine + 1, I / m) ||
            h->col0 != col_of_group(h->groups_applied))
          throw storage_error(I, "", "act_ file of the partial run is inconsistent with its journal "
                                     "(groups applied " + std::to_string(h->groups_applied) + ")");
        k[std::size_t(I)] = h->groups_applied;
      }
      disk_k[std::size_t(I)] = k[std::size_t(I)];
    }
  });
  rep.engine = want.engine;

  // Which stripes are factored on disk (their owner's journal covers them).
  std::vector<std::int64_t> gd(static_cast<std::size_t>(P));
  MPI_Allgather(&gd_mine, 1, MPI_INT64_T, gd.data(), 1, MPI_INT64_T, comm);
  auto factored = [&](i64 J) { return gd[std::size_t(owner(J))] > J / m; };
  std::int64_t g_local = G, g_start = G;
  for (i64 I = first_own(0); I < N; I += P)
    if (!factored(I)) g_local = std::min(g_local, k[std::size_t(I)]);
  MPI_Allreduce(&g_local, &g_start, 1, MPI_INT64_T, MPI_MIN, comm);
  int any_resumed = resumed_mine ? 1 : 0, resumed = 0;
  MPI_Allreduce(&any_resumed, &resumed, 1, MPI_INT, MPI_MAX, comm);
  rep.resumed = resumed != 0;
  rep.groups_resumed = 0;  // leading groups whose stripes are all factored
  while (rep.groups_resumed < G) {
    bool all = true;
    for (i64 J = rep.groups_resumed * m; J < std::min(N, (rep.groups_resumed + 1) * m); ++J)
      all = all && factored(J);
    if (!all) break;
    ++rep.groups_resumed;
  }

  // This rank's working stripes (keys I >= 0), as in the single process.
  st::cache_callbacks cb;
  cb.size = [&](i64 I) -> std::uint64_t {
    return std::uint64_t(rows(I)) * std::uint64_t(n - col_of_group(disk_k[std::size_t(I)])) * 8u;
  };
  cb.load = [&](i64 I, st::cache_buffer& b) {
    const i64 kk = disk_k[std::size_t(I)], c0 = col_of_group(kk);
    b.rows = rows(I), b.col0 = c0, b.ncols = n - c0, b.version = b.disk_version = kk;
    b.data.reset(new double[std::size_t(b.rows * b.ncols)]);
    if (kk == 0) {  // the original stripe enters the factorization: A' = 2^-k A
      sto.read_original(I * S, b.rows, 0, n, b.data.get(), b.rows);
      st::scale_block(b.rows, n, b.data.get(), b.rows, sc.exp);
    } else
      sto.read_active(I, b.rows, c0, b.data.get(), b.rows);
  };
  cb.flush = [&](i64 I, const st::cache_buffer& b) {
    const i64 r = b.rows;
    for (i64 g = b.disk_version; g < b.version; ++g) {
      const i64 c0 = col_of_group(g), c1 = col_of_group(g + 1);
      sto.write_lsegment(I, r, c0, c1, b.data.get() + (c0 - b.col0) * r, r);
    }
    const i64 c = col_of_group(b.version);
    sto.write_active(I, r, b.version, c, b.data.get() + (c - b.col0) * r, r);
    disk_k[std::size_t(I)] = b.version;
  };
  const std::uint64_t stripe_bytes = std::uint64_t(S) * std::uint64_t(n) * 8u;
  std::uint64_t budget = 0;
  detail::agree(comm, [&] {
    if (opt.cache_bytes == 0) return;
    if (opt.cache_bytes < std::uint64_t(m + 2) * stripe_bytes)
      throw invalid_argument("cache", std::to_string(opt.cache_bytes) + " bytes cannot hold " +
                                          std::to_string(m) +
                                          " pivot stripe(s) plus two working stripes of " +
                                          std::to_string(stripe_bytes) +
                                          " bytes: raise the cache or lower the stripe or meta");
    budget = opt.cache_bytes - std::uint64_t(m) * stripe_bytes;  // the pivots live beside it
  });
  st::stripe_cache cache(cb, budget, opt.io_threads);

  const double thr = threshold();
  // A device engine holds the group's m pivot stripes in device slots
  // (declared after the cache: synchronized and freed before it).
  std::optional<st::device_stripes> ds;
  if (fe.dev)
    detail::agree(comm, [&] {
      ds.emplace(*fe.dev, n, S, Sp, thr, m);
      if (ds->pivot_slots() < m)
        throw invalid_argument("meta", "groups of " + std::to_string(m) + " stripes do not fit on " +
                                           fe.dev->device_name() + " (room for " +
                                           std::to_string(ds->pivot_slots()) + "): give a smaller meta");
    });
  // A failed upload of a received pivot: thrown at this rank's next step or
  // agreement (never skipping a collective).
  std::exception_ptr pending;
  double resumed_flops = 0;
  for (i64 J = 0; J < N; ++J)
    if (factored(J)) {
      resumed_flops += factor_flops(n, J * S, rows(J));
      for (i64 I = J + 1; I < N; ++I) resumed_flops += elim_flops(n, J * S, rows(J), rows(I));
    }
  progress_meter pm(opt, "factor", lu_flops(n), G, &sto.counters());
  pm.done = pm.start_done = std::min(resumed_flops, pm.total);
  const auto t0 = clock_type::now();
  auto last_checkpoint = t0;
  const i64 read0 = sto.counters().bytes_read, written0 = sto.counters().bytes_written;
  pm.report(rep.groups_resumed, nullptr, true);

  auto view = [&](st::cache_buffer& b) { return st::block{b.data.get(), b.rows, b.col0, n, b.rows}; };
  auto timed_acquire = [&](i64 I) -> st::cache_buffer& {
    const auto ta = clock_type::now();
    st::cache_buffer& b = cache.acquire(I);
    rep.io_wait_seconds += seconds_since(ta);
    return b;
  };
  // lu_ file of a factored own stripe: the L columns [0, col0) already on
  // disk (lseg_ files), row-swapped now, then the buffer's columns.
  std::vector<double> whole;
  auto write_lu = [&](i64 J, const st::cache_buffer& b, const std::vector<i64>& pv) {
    const i64 r = b.rows;
    if (b.col0 == 0) {
      sto.write_lu(J, r, b.data.get(), r, pv.data());
      return;
    }
    whole.resize(std::size_t(r * n));
    for (i64 q = 0;; ++q) {
      const i64 c0 = col_of_group(q), c1 = col_of_group(q + 1);
      if (c1 > b.col0) break;
      sto.read_lsegment(J, r, c0, c1, whole.data() + c0 * r, r);
    }
    for (i64 c = 0; c < b.col0; ++c)
      for (i64 i = 0; i < r; ++i)
        if (pv[std::size_t(i)] != i)
          std::swap(whole[std::size_t(c * r + i)], whole[std::size_t(c * r + pv[std::size_t(i)])]);
    std::memcpy(whole.data() + b.col0 * r, b.data.get(), std::size_t(r * b.ncols) * 8u);
    sto.write_lu(J, r, whole.data(), r, pv.data());
  };

  // The group's pivot stripes: columns [J*S, n) of each member (ld rows(J)).
  std::vector<std::vector<double>> piv_data(static_cast<std::size_t>(m));
  std::vector<i64> pv(static_cast<std::size_t>(S));
  auto pivot_block = [&](i64 J, i64 first) {
    return st::block{piv_data[std::size_t(J - first)].data(), rows(J), J * S, n, rows(J)};
  };

  for (i64 g = g_start; g < G; ++g) {
    const i64 first = g * m, last = std::min(N, (g + 1) * m);
    // Announce this rank's acquisitions: its unfactored members, then the sweep.
    std::vector<i64> targets, upcoming;
    for (i64 I = first_own(last); I < N; I += P)
      if (!factored(I) && k[std::size_t(I)] == g) targets.push_back(I);
    if (opt.order != stripe_order::basic && (g % 2) == 1) std::reverse(targets.begin(), targets.end());
    for (i64 J = first_own(first); J < last; J += P)
      if (!factored(J)) upcoming.push_back(J);
    upcoming.insert(upcoming.end(), targets.begin(), targets.end());
    cache.plan(upcoming);

    for (i64 J = first; J < last; ++J) {
      const int o = owner(J);
      const i64 r = rows(J), count = r * (n - J * S);
      std::vector<double>& pd = piv_data[std::size_t(J - first)];
      pd.resize(std::size_t(count));
      owner_step(comm, o, thr, [&] {
        if (pending) std::rethrow_exception(pending);
        if (factored(J)) {  // catching up after a resume: from its lu_ file
          sto.read_lu(J, r, J * S, n, pd.data(), r, nullptr);
          return;
        }
        st::cache_buffer& b = timed_acquire(J);
        struct release_at_exit {
          st::stripe_cache& c;
          i64 J;
          ~release_at_exit() {
            try {
              c.release(J);
            } catch (...) {
            }
          }
        } rel{cache, J};
        if (b.version != g)
          throw storage_error(J, "", "stripe holds " + std::to_string(b.version) +
                                         " groups when its own group " + std::to_string(g) +
                                         " starts");
        const st::block tb = view(b);
        for (i64 Q = first; Q < J; ++Q) {
          if (!ds) st::apply_pivot_stripe(*eng, pivot_block(Q, first), Q * S, tb);
          pm.done += elim_flops(n, Q * S, rows(Q), r);
        }
        if (ds) {  // eliminated by slots 0 .. J-first-1 and factored on the device
          ds->upload_pivot(J - first, tb, J * S);
          ds->factor(J - first, tb, J * S, pv.data());
          ds->finish_group();  // tb holds the factored stripe
        } else {
          st::factor_stripe_local(*eng, tb, J * S, Sp, thr, pv.data());
        }
        note_pivots(tb, J * S);
        pm.done += factor_flops(n, J * S, r);
        std::memcpy(pd.data(), tb.col(J * S), std::size_t(count) * 8u);
        write_lu(J, b, std::vector<i64>(pv.begin(), pv.begin() + r));
        // Never written back as act_ again: it is an lu_ file now.
        b.version = b.disk_version = g + 1;
      });
      if (o == rank && !factored(J)) cache.discard(J);
      bcast_doubles(comm, o, pd.data(), count);
      // Every rank's slot J - first holds the pivot (the owner's already
      // does when it factored it there).
      if (ds && (o != rank || factored(J)) && !pending) try {
          ds->upload_pivot(J - first, pivot_block(J, first), J * S);
        } catch (...) {
          pending = std::current_exception();
        }
    }

    // Sweep: eliminate the group from every own later stripe still behind.
    detail::agree(comm, [&] {
      if (pending) std::rethrow_exception(pending);
      // On a device engine up to two targets are in flight (uploaded,
      // updated, downloaded asynchronously); a target is released once it
      // is back.
      struct in_flight {
        i64 I;
        st::cache_buffer* b;
        i64 ticket;
      };
      std::vector<in_flight> flying;
      auto retire = [&](const in_flight& f) {
        ds->complete(f.ticket);
        f.b->version = g + 1;
        k[std::size_t(f.I)] = g + 1;
        cache.release(f.I);
      };
      struct retire_at_exit {  // an exception must not leave transfers into released buffers
        std::optional<st::device_stripes>& ds;
        ~retire_at_exit() {
          if (ds) try {
              ds->complete_all();
            } catch (...) {
            }
        }
      } retire_guard{ds};
      for (i64 I : targets) {
        if (flying.size() >= 2) {
          retire(flying.front());
          flying.erase(flying.begin());
        }
        st::cache_buffer& b = timed_acquire(I);
        if (b.version != g) {
          cache.release(I);
          throw storage_error(I, "", "cached stripe holds " + std::to_string(b.version) +
                                         " groups, expected " + std::to_string(g));
        }
        const st::block tb = view(b);
        if (ds) {
          flying.push_back({I, &b, ds->submit(tb, last - first)});
        } else {
          for (i64 J = first; J < last; ++J) st::apply_pivot_stripe(*eng, pivot_block(J, first), J * S, tb);
          b.version = g + 1;
          k[std::size_t(I)] = g + 1;
          cache.release(I);
        }
        const auto cs = cache.stats();
        pm.report(g, &cs, false);
      }
      for (const in_flight& f : flying) retire(f);
      flying.clear();
      // The received pivots' uploads are done: piv_data is free for the next group.
      if (ds) fe.dev->sync_all();
      if (g + 1 > gd_mine) {
        // This rank's members of groups <= g all have their lu_ files.
        want.groups_done = g + 1;
        sto.write_progress(want);
        for (i64 J = first_own(first); J < last; J += P) {
          sto.remove_active(J);
          sto.remove_lsegments(J);
        }
        gd_mine = g + 1;
      }
      if (seconds_since(last_checkpoint) >= opt.checkpoint_interval_s && g + 1 < G) {
        cache.flush_async();
        last_checkpoint = clock_type::now();
      }
    });
    for (i64 J = first; J < last; ++J)
      for (i64 I = last; I < N; ++I) pm.done += elim_flops(n, J * S, rows(J), rows(I));
    const auto cs = cache.stats();
    pm.report(g + 1, &cs, true);
  }
  detail::agree(comm, [&] { cache.flush_all(); });
  const auto cs = cache.stats();
  finish_report(seconds_since(t0), resumed_flops);
  rep.bytes_read = sto.counters().bytes_read - read0;
  rep.bytes_written = sto.counters().bytes_written - written0;
  rep.cache_hits = cs.hits, rep.cache_misses = cs.misses + cs.prefetched;
  rep.peak_cache_bytes = cs.peak_bytes;
  pm.done = pm.total;
  pm.report(G, &cs, true);
}

}  // namespace exala::mpi
