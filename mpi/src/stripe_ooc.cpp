// mpi/src/stripe_ooc.cpp - the distributed stripe LU out of core
// (exala/mpi.hpp): each rank copies its own stripes from the shared system
// into its rank_workdir and factors them there through its own byte-budgeted
// stripe cache, with the single-process driver's files (act_, lseg_, lu_ and
// a progress journal; solvers/src/stripe/store.hpp).
//
// The factorization itself is the stripe LU's one out-of-core loop
// (solvers/src/stripe/factor_loop.cpp) over this rank's store, with the MPI
// distribution (stripe J on rank J % P): pivot groups, the lu_ files written
// behind the sweep, the per-rank journal and the resume across ranks, and the
// device pivot slots, are described there. A stripe receives the same
// kernel calls as in exala::stripe_lu, whatever m, the order, the cache, a
// resume or the rank count: the same bits.
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

// The loop of stripe/factor_loop.hpp over this rank's store.
void stripe_lu::impl::factor_out_of_core() {
  st::factor_engine fe = std::move(ooc_engine);  // destroyed last: the device slots use it
  rank_distribution d(comm);
  st::factor_out_of_core(setup(), d, fe.get(), fe.dev.get(), *rs, rank_dir + "/progress",
                         "(resume = false)");
}

}  // namespace exala::mpi
