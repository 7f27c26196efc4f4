// test_mpi_stripe_engines.cpp - the distributed stripe LU (exala::mpi::stripe_lu)
// against the single-process exala::stripe_lu on the same engine, bit for
// bit, on every rank: one source run over {engine} x {rank count}. Compared:
// solves one column per call and all together, refined solutions and their
// reports, the backward error, the stored system's refined solution; in
// memory (pivot groups of 1, 3, the default and every stripe at once, a
// graded ill-conditioned matrix) and out of core (small caches that evict,
// meta-zigzag groups, S chosen from the cache, a finished run found again, a
// run cut by a write fault and resumed). A zero pivot on rank 1's stripe
// gives the single process's singular_pivot on every rank.
//
// Three builds of this source (tests/mpi/stripe_lu.cmake):
// - test_mpi_stripe_cpu (EXALA_TEST_ENGINE_CPU; labels unit;mpi, -np 1..4,
//   small n): the CPU engine (the factorization loop in memory across
//   ranks, the out-of-core loop over the ranks' stores).
// - test_mpi_stripe_cuda (labels cuda;mpi, -np 1 and 2, n up to 2000): links
//   exala::gpu_cuda, the real engine; ranks may share one GPU. Run on a GPU
//   machine only: without a device every case fails with the engine's error
//   on every rank (no hang, no crash); `every_rank_has_a_device` says why.
// - test_mpi_stripe_fakedev (EXALA_TEST_FAKE_DEVICE; labels unit;mpi, -np
//   1..4, small n): registers under the name "cuda" a device engine that
//   keeps its "device memory" in host memory (NaN-filled when allocated),
//   performs downloads only when the driver synchronizes, and counts dense
//   calls whose operands are not device memory. It runs the device driver
//   path of the distributed LU (slots, groups, uploads of the broadcast
//   pivots, sweeps, resume) in CI; its arithmetic is the CPU engine's, so
//   the bits it checks are the driver's, not cuBLAS's.
// The single-process suite over the same engines: tests/test_stripe_lu.cpp.
#define BOOST_TEST_MODULE exala_mpi_stripe_cuda
#include "mpi_test_main.hpp"
#include "stripe_test_systems.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "exala/mpi.hpp"
#include "exala/stripe_lu.hpp"
#include "stripe/store.hpp"
#ifdef EXALA_TEST_FAKE_DEVICE
#include "fake_device_engine.hpp"  // registers the fake "cuda" engine
#elif !defined(EXALA_TEST_ENGINE_CPU)
#include "exala/cuda.hpp"  // registers the "cuda" engine
#endif

namespace t = exala_mpi_test;
namespace fs = std::filesystem;
using i64 = std::int64_t;

#ifdef EXALA_TEST_FAKE_DEVICE
constexpr bool fake = true;
#else
constexpr bool fake = false;
#endif
#ifdef EXALA_TEST_ENGINE_CPU
constexpr const char* engine = "cpu";
constexpr bool on_device = false;
#else
constexpr const char* engine = "cuda";
constexpr bool on_device = true;
#endif
// The fake device and the CPU engine run the cases at reduced sizes (CI).
constexpr bool small = fake || !on_device;

namespace {

// The fake device's counters around a distributed run: every rank used its
// device (uploads), every dense call had device operands, and a rank that
// owns a stripe computed on its device.
struct device_use {
#ifdef EXALA_TEST_FAKE_DEVICE
  long calls0 = fake_dense_calls, foreign0 = fake_foreign_calls, uploads0 = fake_uploads;
#endif
  void check(const std::string& what, bool owns_a_stripe) const {
#ifdef EXALA_TEST_FAKE_DEVICE
    BOOST_TEST_CONTEXT(what << ": the fake device on rank " << t::rank()) {
      BOOST_TEST(fake_uploads > uploads0);
      BOOST_TEST(fake_foreign_calls == foreign0);
      if (owns_a_stripe) BOOST_TEST(fake_dense_calls > calls0);
    }
#else
    (void)what;
    (void)owns_a_stripe;
#endif
  }
};

using t::all_finite;  // stripe_test_systems.hpp
using t::bcast;
using t::check_same;
using t::generate;
using t::outcome;
using t::results;
using t::rows_of;
using t::same_bits;
using t::scaled;
using t::solve_all;
using t::temp_dir;
using t::test_matrix;
using t::test_rhs;

exala::stripe_lu_options engine_options(i64 S, i64 Sp) {
  exala::stripe_lu_options o;
  o.stripe = S;
  o.substripe = Sp;
  o.engine = engine;
  o.threads = 1;
  o.io_threads = 1;
  o.checkpoint_interval_s = 0;
  return o;
}

// Runs `f` (collective calls only: every rank throws or none), reporting an
// exception as a failure on this rank; true when it returned.
bool run(const std::string& what, const std::function<void()>& f) {
  const std::string r = outcome(f);
  BOOST_TEST(r == "ok", what << " on rank " << t::rank() << ": " << r);
  return r == "ok";
}

// In memory: the distributed LU against the single process in core, both on
// the CUDA engine. scale: A and B scaled by 2^scale (then the solutions
// must also be finite, and the unrefined ones the unscaled system's bits).
void check_in_memory(i64 n, const exala::stripe_lu_options& opt, std::uint64_t seed, bool graded,
                     const std::string& what, int scale = 0) {
  const auto A = scaled(test_matrix(n, seed, graded), scale);
  const auto B = scaled(test_rhs(n, 2, seed + 1), scale);
  results want;
  exala::stripe_lu_report want_rep;
  // Local (not collective): combine the verdicts before going on.
  const bool ref_ok = run(what + ": one process", [&] {
    exala::stripe_lu ref(n, A.data(), n, opt);
    want = solve_all(ref, n, B, 2);
    want_rep = ref.report();
  });
  if (!t::all_ranks(ref_ok)) return;
  run(what + ": distributed", [&] {
    const device_use use;
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), opt);
    use.check(what, t::rank() * want_rep.stripe < n);
    const results got = solve_all(lu, n, B, 2);
    check_same(got, want, what);
    if (scale != 0) {
      const auto A0 = test_matrix(n, seed, graded);
      exala::stripe_lu lu0(n, A0.data(), n, opt);
      auto x0 = test_rhs(n, 2, seed + 1);
      lu0.solve(2, x0.data(), n);
      BOOST_TEST_CONTEXT(what << " on rank " << t::rank()) {
        BOOST_TEST(same_bits(got.xm, x0));
        BOOST_TEST(all_finite(got.xrm));
        BOOST_TEST(got.rr.back() <= 0x1p-52);
        BOOST_TEST(lu.report().matrix_scale != 0);
      }
    }
    const auto& rp = lu.report();
    BOOST_TEST_CONTEXT(what << " report on rank " << t::rank()) {
      BOOST_TEST(rp.engine == engine);
      BOOST_TEST(rp.device.empty() == !on_device);
      BOOST_TEST(rp.device == want_rep.device);
      BOOST_TEST(rp.in_core);
      BOOST_TEST(rp.stripe == want_rep.stripe);
      BOOST_TEST(rp.substripe == want_rep.substripe);
      // The pivot groups: meta when given (every device here has room).
      const i64 N = (n + rp.stripe - 1) / rp.stripe;
      BOOST_TEST(rp.meta >= 1);
      if (on_device && opt.meta > 0) BOOST_TEST(rp.meta == std::min(opt.meta, N));
      BOOST_TEST(same_bits(rp.min_pivot_ratio, want_rep.min_pivot_ratio));
    }
  });
}

}  // namespace

#if !defined(EXALA_TEST_FAKE_DEVICE) && !defined(EXALA_TEST_ENGINE_CPU)
BOOST_AUTO_TEST_CASE(every_rank_has_a_device) {
  const int d = exala::cuda::device_count();
  BOOST_TEST(t::all_ranks(d > 0), "rank " << t::rank() << " sees " << d
                                          << " CUDA device(s): these tests need a GPU");
}
#endif

BOOST_AUTO_TEST_CASE(in_memory_matches_single_process) {
  // Default groups (max(1, N / 4P) stripes), one stripe per group, groups of
  // 3, one group holding every stripe (its members factored in turn, no
  // sweep), and an ill-conditioned matrix whose refinement takes steps. The
  // fake device runs the same shapes at a tenth of the size.
  const i64 k = small ? 10 : 1;
  check_in_memory(300 / k, engine_options(64 / k, 16 / k), 1, false, "n = 300/k, S = 64/k");
  {
    auto o = engine_options(48 / k, 16 / k);
    o.meta = 1;
    check_in_memory(517 / k, o, 2, false, "n = 517/k, S = 48/k, groups of 1");
  }
  {
    auto o = engine_options(48 / k, 16 / k);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 3;
    check_in_memory(517 / k, o, 3, false, "n = 517/k, S = 48/k, groups of 3");
  }
  {
    auto o = engine_options(256 / k, 64 / k);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 8;
    check_in_memory(2000 / k, o, 4, false, "n = 2000/k, S = 256/k, one group of 8");
  }
  check_in_memory(1000 / k, engine_options(96 / k, 32 / k), 5, false, "n = 1000/k, S = 96/k");
  check_in_memory(700 / k, engine_options(100 / k, 25 / k), 6, true, "graded n = 700/k (cond ~1e12)");
  // Three stripes: with 4 ranks one holds none (it only receives pivots).
  check_in_memory(small ? 20 : 300, engine_options(small ? 8 : 128, small ? 4 : 32), 7, false,
                  "3 stripes");
  // n = 0: nothing to factor; solves leave b alone.
  run("n = 0", [&] {
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, 0, {}, engine_options(0, 0));
    BOOST_TEST(lu.n() == 0);
    BOOST_TEST(lu.report().engine == engine);
    std::vector<double> b{1.0, 2.0};
    lu.solve(2, b.data(), 1);
    BOOST_TEST(b[0] == 1.0);
    BOOST_TEST(b[1] == 2.0);
  });
}

BOOST_AUTO_TEST_CASE(in_memory_singular_pivot_everywhere) {
  // Stripe 1 (rank 1's when P > 1) has a zero row: the device meets an exact
  // zero pivot; every rank throws the single process's singular_pivot.
  const i64 n = small ? 60 : 300, S = small ? 12 : 64;
  auto A = test_matrix(n, 11);
  for (i64 j = 0; j < n; ++j) A[std::size_t(S + 5 + j * n)] = 0.0;
  const auto opt = engine_options(S, S / 4);
  const std::string want = outcome([&] { exala::stripe_lu ref(n, A.data(), n, opt); });
  BOOST_TEST(want.rfind("singular:", 0) == 0, want);
  const std::string got = outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), opt); });
  BOOST_TEST(got == want, "rank " << t::rank() << ": " << got);
}

namespace {

// The distributed out-of-core LU of a generated system against the single
// process out of core on the CUDA engine (rank 0, its own copy of the
// system; results broadcast) and in core (every rank; unrefined solutions).
// Then a second object on the same rank directories finds the finished run.
void check_out_of_core(i64 n, i64 file_stripe, double cond, const exala::stripe_lu_options& opt,
                       std::uint64_t seed, const std::string& what, int scale = 0) {
  temp_dir tmp("ooc");
  if (!generate(tmp.sub("sys"), n, 1, seed, file_stripe, cond, scale) ||
      !generate(tmp.sub("ref"), n, 1, seed, file_stripe, cond, scale)) {
    BOOST_TEST(false, what << ": the system could not be generated");
    return;
  }
  const auto B = scaled(test_rhs(n, 2, seed + 7), scale);
  results want;
  std::vector<double> want_xs;
  std::vector<double> stored(4, 0.0);
  std::vector<double> sizes(3, 0.0);  // S, S', meta
  bool ok = true;
  if (t::rank() == 0)
    ok = run(what + ": one process out of core", [&] {
      exala::stripe_lu ref({tmp.sub("ref")}, opt);
      want = solve_all(ref, n, B, 2);
      const auto rs = ref.solve_stored(want_xs, 10);
      stored = {double(rs.steps), double(rs.converged), rs.backward_error_before,
                rs.backward_error_after};
      sizes = {double(ref.report().stripe), double(ref.report().substripe), double(ref.report().meta)};
    });
  if (!t::all_ranks(ok)) return;
  bcast(want);
  bcast(want_xs);
  bcast(stored);
  bcast(sizes);
  std::vector<double> A(std::size_t(n * n));
  exala::stripe_system_reader(std::vector<std::string>{tmp.sub("sys")}).read_rows(0, n, A.data(), n);
  auto core_opt = opt;
  core_opt.stripe = i64(sizes[0]);
  core_opt.substripe = i64(sizes[1]);
  core_opt.meta = 0;
  core_opt.order = exala::stripe_order::zigzag;
  core_opt.cache_bytes = 0;
  results want_core;
  const bool core_ok = run(what + ": one process in core", [&] {
    exala::stripe_lu ref(n, A.data(), n, core_opt);
    want_core = solve_all(ref, n, B, 2);
  });
  if (!t::all_ranks(core_ok)) return;

  const bool dist_ok = run(what + ": distributed", [&] {
    const device_use use;
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, {tmp.sub("sys")}, tmp.rank_dir("work"), opt);
    use.check(what, t::rank() * i64(sizes[0]) < n);
    const results got = solve_all(lu, n, B, 2);
    check_same(got, want, what + " vs one process out of core");
    check_same(got, want_core, what + " vs one process in core", true);
    if (scale != 0) t::check_scaled(got, lu.report().matrix_scale, what);
    std::vector<double> xs;
    const auto rs = lu.solve_stored(xs, 10);
    const auto& rp = lu.report();
    BOOST_TEST_CONTEXT(what << " on rank " << t::rank()) {
      BOOST_TEST(same_bits(xs, want_xs));
      BOOST_TEST(same_bits(std::vector<double>{double(rs.steps), double(rs.converged),
                                               rs.backward_error_before, rs.backward_error_after},
                           stored));
      BOOST_TEST(rp.engine == engine);
      BOOST_TEST(rp.device.empty() == !on_device);
      BOOST_TEST(rp.stripe == i64(sizes[0]));
      BOOST_TEST(rp.substripe == i64(sizes[1]));
      BOOST_TEST(rp.meta == i64(sizes[2]));
      BOOST_TEST(!rp.in_core);
      BOOST_TEST(!rp.resumed);
      if (opt.cache_bytes != 0) BOOST_TEST(rp.peak_cache_bytes <= opt.cache_bytes);
    }
  });
  if (!dist_ok) return;  // every rank (the failure was agreed)
  run(what + ": finished run found again", [&] {
    exala::mpi::stripe_lu again(MPI_COMM_WORLD, {tmp.sub("sys")}, tmp.rank_dir("work"), opt);
    BOOST_TEST(again.report().resumed);
    std::vector<double> x = B;
    again.solve(2, x.data(), n);
    BOOST_TEST(same_bits(x, want.xm), what << ": found again, rank " << t::rank());
  });
}

}  // namespace

BOOST_AUTO_TEST_CASE(out_of_core_matches_single_process) {
  const i64 k = small ? 4 : 1;  // the fake device: a quarter of the size
  {
    const i64 n = 600 / k, S = 64 / k;
    auto o = engine_options(S, S / 2);
    o.cache_bytes = 4ull * S * n * 8;  // four stripes: evictions
    check_out_of_core(n, 100 / k, 0, o, 1, "n = 600/k, S = 64/k, cache of 4 stripes");
  }
  {
    const i64 n = 1200 / k, S = 128 / k;
    auto o = engine_options(S, S / 4);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 3;
    o.cache_bytes = 6ull * S * n * 8;
    check_out_of_core(n, S, 0, o, 2, "n = 1200/k, S = 128/k, meta 3, cache of 6 stripes");
  }
  {
    const i64 n = 332 / k;
    auto o = engine_options(0, 0);
    o.cache_bytes = 8ull * n * 8 * (40 / k);  // S = 40/k from the cache (a multiple of the file's)
    check_out_of_core(n, 20 / k, 1e8, o, 3, "n = 332/k, S from the cache, cond 1e8");
  }
}

// Issue 15, row 1, on the device engine: systems scaled by 2^1015, 2^1021
// (n = 60) or 2^1019 (n = 400: ||A||_inf overflows, b stays finite) and
// 2^-1000 are factored as 2^-k A (scaled in host memory before the stripes
// are uploaded), with finite solutions and the single process's bits, in
// memory and out of core.
BOOST_AUTO_TEST_CASE(scaled_systems_match_single_process) {
  const i64 n = small ? 60 : 400, S = small ? 16 : 64;
  for (int s : {1015, small ? 1021 : 1019, -1000}) {
    check_in_memory(n, engine_options(S, S / 2), 8, false, "n = " + std::to_string(n) + " scaled by 2^" + std::to_string(s), s);
    auto o = engine_options(S, S / 2);
    o.cache_bytes = 4ull * S * n * 8;
    check_out_of_core(n, S, 0, o, 9, "out of core, scaled by 2^" + std::to_string(s), s);
  }
}

BOOST_AUTO_TEST_CASE(out_of_core_resumes_after_a_write_fault) {
  // A write fault on rank 1 (rank 0 alone) halfway through its factorization:
  // every rank throws; the rerun catches up (factored pivots re-uploaded
  // from their lu_ files, the others factored again on the device) and gives
  // the bits of an uninterrupted run.
  namespace st = exala::detail::stripe;
  const int P = t::size(), me = t::rank();
  const int faulty = P > 1 ? 1 : 0;
  const i64 n = small ? 160 : 800, S = small ? 16 : 64;
  auto opt = engine_options(S, S / 2);
  opt.order = exala::stripe_order::meta_zigzag;
  opt.meta = 2;
  opt.cache_bytes = 5ull * S * n * 8;
  temp_dir tmp("kill");
  if (!generate(tmp.sub("sys"), n, 1, 9, S, 0)) {
    BOOST_TEST(false, "the system could not be generated");
    return;
  }
  const std::vector<std::string> sys{tmp.sub("sys")};
  const auto B = test_rhs(n, 1, 17);
  results want;
  std::int64_t written = 0;
  if (!run("uninterrupted", [&] {
        exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("a"), opt);
        want = solve_all(lu, n, B, 1);
        written = lu.report().bytes_written;
      }))
    return;
  if (me == faulty) st::inject_write_fault(t::write_fault_offset(n, S, written));
  const std::string got =
      outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("b"), opt); });
  st::inject_write_fault(-1);
  BOOST_TEST(got == (me == faulty ? std::string("storage") : "remote:" + std::to_string(faulty)),
             "rank " << me << ": " << got);
  run("resumed", [&] {
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("b"), opt);
    BOOST_TEST_CONTEXT("resumed on rank " << me) {
      BOOST_TEST(lu.report().resumed);
      BOOST_TEST(lu.report().groups_resumed > 0);
      BOOST_TEST(lu.report().bytes_written < written);
      check_same(solve_all(lu, n, B, 1), want, "resumed vs uninterrupted");
    }
  });
}
