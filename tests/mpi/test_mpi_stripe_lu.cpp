// test_mpi_stripe_lu.cpp - the distributed stripe LU (exala::mpi::stripe_lu,
// exala/mpi.hpp) against the single-process exala::stripe_lu on the same
// engine, bit for bit, on every rank, under mpirun -np 1..4: one source run
// over {engine} x {rank count}, as tests/test_stripe_lu.cpp runs the
// single-process LU over the engines. test_engine() names the engine of the
// build; the engine cases (test suite `on_engine`, label `engine`) set it in
// their options. Three builds (tests/mpi/stripe_lu.cmake):
// - test_mpi_stripe_lu (labels unit;mpi): the CPU engine. Every case runs
//   here: the engine cases (ctest entries test_mpi_stripe_cpu.npP, -np 1..4,
//   --run_test=@engine) and the CPU-only cases (test_mpi_stripe_lu.npP, the
//   rest; test_mpi_stripe_lu_long.np4, the long ones). The CPU-only cases
//   check what does not depend on the engine (bad or mismatched arguments,
//   ranks calling different routines, write faults during the copy, the
//   stored-system errors, "engine cuda not compiled in" where no CUDA engine
//   is registered) or sweep more shapes on the CPU engine; the device
//   builds skip them, saying why.
// - test_mpi_stripe_fakedev (EXALA_TEST_FAKE_DEVICE; labels unit;mpi, -np
//   1..4, small n): registers under the name "cuda" a device engine that
//   keeps its "device memory" in host memory (NaN-filled when allocated),
//   performs downloads only when the driver synchronizes, and counts dense
//   calls whose operands are not device memory (fake_device_engine.hpp). It
//   runs the device driver path of the distributed LU (slots, groups,
//   uploads of the broadcast pivots, sweeps, resume) in CI; its arithmetic
//   is the CPU engine's, so the bits it checks are the driver's, not
//   cuBLAS's.
// - test_mpi_stripe_cuda (EXALA_TEST_ENGINE_CUDA; labels cuda;mpi, -np 1
//   and 2, n up to 2000): links exala::gpu_cuda, the real engine; ranks may
//   share one GPU. Run on a GPU machine only: without a device every engine
//   case fails with the engine's error on every rank (no hang, no crash);
//   `every_rank_has_a_device` says why.
// No case compares the bits of two engines: the single-process reference is
// always on the build's engine.
//
// Engine cases: solves one column per call and all together, refined
// solutions and their reports, the backward error, the stored system's
// refined solution; in memory (pivot groups of 1, 3, the default and every
// stripe at once, a graded ill-conditioned matrix) and out of core (small
// caches that evict, meta-zigzag groups, S chosen from the cache, a finished
// run found again, a run cut by a write fault and resumed); systems scaled
// near the ends of the double range. A zero pivot on rank 1's stripe gives
// the single process's singular_pivot on every rank.
//
// CPU-only cases: the factors' effect (solves of several right-hand sides,
// one column per call and together), the unrefined and the refined
// solutions with their refine reports, the backward error; in memory and out
// of core (against the single process in core and out of core with the same
// S, S'); sizes 0, 1, < S, not a multiple of S, fewer stripes than ranks;
// meta-zigzag groups; a cache small enough to evict; generated well- and
// ill-conditioned systems. Errors: a zero pivot on a non-zero rank's stripe
// gives singular_pivot (same message as one process) on every rank; a bad or
// mismatched argument on one rank gives the named error there and
// remote_error elsewhere; a write fault on one rank mid-factorization makes
// every rank throw, and the rerun resumes with the bits of an uninterrupted
// run.
#define BOOST_TEST_MODULE exala_mpi_stripe_lu
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
#include "stripe/factor_loop.hpp"
#include "stripe/store.hpp"
#include "stripe_test_engine.hpp"

namespace t = exala_mpi_test;
namespace fs = std::filesystem;
namespace ut = boost::unit_test;
using i64 = std::int64_t;

namespace {

using exala_stripe_test::on_device;  // stripe_test_engine.hpp
using exala_stripe_test::only_if;
using exala_stripe_test::test_engine;

#ifdef EXALA_TEST_FAKE_DEVICE
constexpr bool fake = true;
#else
constexpr bool fake = false;
#endif
// The fake device and the CPU engine run the engine cases at reduced sizes
// (CI); the CUDA engine at full size.
constexpr bool small_sizes = fake || !on_device;

// The CPU-only cases run once, in test_mpi_stripe_lu.
const only_if cpu_only{!on_device,
                       "CPU engine only (engine-independent checks and CPU sweeps): run by "
                       "test_mpi_stripe_lu"};

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

exala::stripe_lu_options engine_options(i64 S, i64 Sp) {
  exala::stripe_lu_options o;
  o.stripe = S;
  o.substripe = Sp;
  o.engine = test_engine();
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
// the build's engine. scale: A and B scaled by 2^scale (then the solutions
// must also be finite, and the unrefined ones the unscaled system's bits).
void check_engine_in_memory(i64 n, const exala::stripe_lu_options& opt, std::uint64_t seed,
                            bool graded, const std::string& what, int scale = 0) {
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
      BOOST_TEST(rp.engine == test_engine());
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

// ------------------------------------------------- the engine cases

BOOST_AUTO_TEST_SUITE(on_engine, *ut::label("engine"))

#ifdef EXALA_TEST_ENGINE_CUDA
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
  // fake device and the CPU engine run the same shapes at a tenth of the size.
  const i64 k = small_sizes ? 10 : 1;
  check_engine_in_memory(300 / k, engine_options(64 / k, 16 / k), 1, false, "n = 300/k, S = 64/k");
  {
    auto o = engine_options(48 / k, 16 / k);
    o.meta = 1;
    check_engine_in_memory(517 / k, o, 2, false, "n = 517/k, S = 48/k, groups of 1");
  }
  {
    auto o = engine_options(48 / k, 16 / k);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 3;
    check_engine_in_memory(517 / k, o, 3, false, "n = 517/k, S = 48/k, groups of 3");
  }
  {
    auto o = engine_options(256 / k, 64 / k);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 8;
    check_engine_in_memory(2000 / k, o, 4, false, "n = 2000/k, S = 256/k, one group of 8");
  }
  check_engine_in_memory(1000 / k, engine_options(96 / k, 32 / k), 5, false, "n = 1000/k, S = 96/k");
  check_engine_in_memory(700 / k, engine_options(100 / k, 25 / k), 6, true, "graded n = 700/k (cond ~1e12)");
  // Three stripes: with 4 ranks one holds none (it only receives pivots).
  check_engine_in_memory(small_sizes ? 20 : 300, engine_options(small_sizes ? 8 : 128, small_sizes ? 4 : 32), 7, false,
                  "3 stripes");
  // n = 0: nothing to factor; solves leave b alone.
  run("n = 0", [&] {
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, 0, {}, engine_options(0, 0));
    BOOST_TEST(lu.n() == 0);
    BOOST_TEST(lu.report().engine == test_engine());
    std::vector<double> b{1.0, 2.0};
    lu.solve(2, b.data(), 1);
    BOOST_TEST(b[0] == 1.0);
    BOOST_TEST(b[1] == 2.0);
  });
}

BOOST_AUTO_TEST_CASE(in_memory_singular_pivot_everywhere) {
  // Stripe 1 (rank 1's when P > 1) has a zero row: the device meets an exact
  // zero pivot; every rank throws the single process's singular_pivot.
  const i64 n = small_sizes ? 60 : 300, S = small_sizes ? 12 : 64;
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
// process out of core on the build's engine (rank 0, its own copy of the
// system; results broadcast) and in core (every rank; unrefined solutions).
// Then a second object on the same rank directories finds the finished run.
void check_engine_out_of_core(i64 n, i64 file_stripe, double cond,
                              const exala::stripe_lu_options& opt, std::uint64_t seed,
                              const std::string& what, int scale = 0) {
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
      BOOST_TEST(rp.engine == test_engine());
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
  const i64 k = small_sizes ? 4 : 1;  // the fake device and the CPU: a quarter of the size
  {
    const i64 n = 600 / k, S = 64 / k;
    auto o = engine_options(S, S / 2);
    o.cache_bytes = 4ull * S * n * 8;  // four stripes: evictions
    check_engine_out_of_core(n, 100 / k, 0, o, 1, "n = 600/k, S = 64/k, cache of 4 stripes");
  }
  {
    const i64 n = 1200 / k, S = 128 / k;
    auto o = engine_options(S, S / 4);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 3;
    o.cache_bytes = 6ull * S * n * 8;
    check_engine_out_of_core(n, S, 0, o, 2, "n = 1200/k, S = 128/k, meta 3, cache of 6 stripes");
  }
  {
    const i64 n = 332 / k;
    auto o = engine_options(0, 0);
    o.cache_bytes = 8ull * n * 8 * (40 / k);  // S = 40/k from the cache (a multiple of the file's)
    check_engine_out_of_core(n, 20 / k, 1e8, o, 3, "n = 332/k, S from the cache, cond 1e8");
  }
}

// Issue 15, row 1, on the build's engine: systems scaled by 2^1015, 2^1021
// (n = 60) or 2^1019 (n = 400: ||A||_inf overflows, b stays finite) and
// 2^-1000 are factored as 2^-k A (scaled in host memory before the stripes
// are uploaded), with finite solutions and the single process's bits, in
// memory and out of core.
BOOST_AUTO_TEST_CASE(scaled_systems_match_single_process) {
  const i64 n = small_sizes ? 60 : 400, S = small_sizes ? 16 : 64;
  for (int s : {1015, small_sizes ? 1021 : 1019, -1000}) {
    check_engine_in_memory(n, engine_options(S, S / 2), 8, false, "n = " + std::to_string(n) + " scaled by 2^" + std::to_string(s), s);
    auto o = engine_options(S, S / 2);
    o.cache_bytes = 4ull * S * n * 8;
    check_engine_out_of_core(n, S, 0, o, 9, "out of core, scaled by 2^" + std::to_string(s), s);
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
  const i64 n = small_sizes ? 160 : 800, S = small_sizes ? 16 : 64;
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

BOOST_AUTO_TEST_SUITE_END()

// ------------------------------------------------- the CPU-only cases

namespace {

exala::stripe_lu_options base_options(i64 S, i64 Sp) {
  exala::stripe_lu_options o;
  o.stripe = S;
  o.substripe = Sp;
  o.threads = 1;
  o.io_threads = 1;
  return o;
}

// In memory: the distributed LU of a replicated matrix against the
// single-process in-core LU of the same matrix, on every rank. scale: A and
// B scaled by 2^scale (then also: the unrefined solutions are finite and
// have the bits of the unscaled system's).
void check_in_memory(i64 n, const exala::stripe_lu_options& opt, std::uint64_t seed, bool graded,
                     i64 nrhs, const std::string& what, int scale = 0) {
  const auto A = scaled(test_matrix(n, seed, graded), scale);
  const auto B = scaled(test_rhs(n, nrhs, seed + 1), scale);
  exala::stripe_lu ref(n, A.data(), std::max<i64>(1, n), opt);
  const results want = solve_all(ref, n, B, nrhs);
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), opt);
  const results got = solve_all(lu, n, B, nrhs);
  check_same(got, want, what);
  if (scale != 0) {
    const auto A0 = test_matrix(n, seed, graded);
    exala::stripe_lu lu0(n, A0.data(), std::max<i64>(1, n), opt);
    auto x0 = test_rhs(n, nrhs, seed + 1);
    lu0.solve(nrhs, x0.data(), std::max<i64>(1, n));
    BOOST_TEST_CONTEXT(what << " on rank " << t::rank()) {
      BOOST_TEST(same_bits(got.xm, x0));
      BOOST_TEST(all_finite(got.xrm));
      BOOST_TEST(got.rr.back() <= 0x1p-52);  // the refined backward error
      BOOST_TEST(lu.report().matrix_scale == ref.report().matrix_scale);
      BOOST_TEST(lu.report().matrix_scale != 0);
    }
  }
  const auto& rp = lu.report();
  BOOST_TEST_CONTEXT(what << " report on rank " << t::rank()) {
    BOOST_TEST(lu.n() == n);
    BOOST_TEST(rp.n == n);
    BOOST_TEST(rp.stripe == ref.report().stripe);
    BOOST_TEST(lu.stripe_height() == ref.report().stripe);
    BOOST_TEST(rp.substripe == ref.report().substripe);
    BOOST_TEST(rp.meta == ref.report().meta);
    BOOST_TEST(rp.in_core);
    BOOST_TEST(rp.engine == "cpu");
    BOOST_TEST(same_bits(rp.min_pivot_ratio, ref.report().min_pivot_ratio));
    for (i64 J = 0; J < 5; ++J) BOOST_TEST(lu.owner(J) == int(J % t::size()));
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(in_memory_sizes_and_parameters, *ut::precondition(cpu_only)) {
  // n = 0, 1, < S, not a multiple of S, fewer stripes than ranks, several
  // stripes per rank; default and explicit S, S'; the meta-zigzag order.
  {
    // n = 0 (the single process's refinement rejects n = 0, so no reference):
    // solves leave b alone, the refinement reports convergence.
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, 0, {}, base_options(0, 0));
    BOOST_TEST(lu.n() == 0);
    BOOST_TEST(lu.report().in_core);
    const auto B = test_rhs(0, 2, 1);
    const results r = solve_all(lu, 0, B, 2);
    BOOST_TEST(same_bits(r.x1, B));
    BOOST_TEST(same_bits(r.xm, B));
    BOOST_TEST(r.be == 0.0);
    BOOST_TEST(r.rr[1] == 1.0);
  }
  check_in_memory(1, base_options(0, 0), 2, false, 2, "n = 1");
  check_in_memory(5, base_options(16, 4), 3, false, 2, "n = 5 < S = 16");
  check_in_memory(3, base_options(1, 1), 4, false, 2, "n = 3, S = 1 (3 stripes)");
  check_in_memory(2, base_options(1, 1), 5, false, 1, "n = 2, S = 1 (2 stripes)");
  check_in_memory(37, base_options(8, 3), 6, false, 3, "n = 37, S = 8, S' = 3");
  auto o = base_options(16, 8);
  o.order = exala::stripe_order::meta_zigzag;
  o.meta = 3;
  check_in_memory(100, o, 7, false, 2, "n = 100, S = 16, S' = 8, meta 3");
  o = base_options(32, 0);
  o.order = exala::stripe_order::basic;
  check_in_memory(250, o, 8, false, 2, "n = 250, S = 32, basic order");
  check_in_memory(120, base_options(24, 8), 9, true, 2, "graded n = 120 (cond ~1e12)");
}

namespace {
// After a factorization that failed on every rank, the ranks are still in
// step: a factorization of the regular A on the same communicator gives the
// one-process bits.
void check_still_in_step(i64 n, const std::vector<double>& A, const exala::stripe_lu_options& opt,
                         const std::string& tag) {
  exala::stripe_lu ref(n, A.data(), n, opt);
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), opt);
  std::vector<double> x(std::size_t(n), 1.0), y = x;
  ref.solve(1, x.data(), n);
  lu.solve(1, y.data(), n);
  BOOST_TEST(std::memcmp(x.data(), y.data(), std::size_t(n) * 8) == 0, tag);
}
}  // namespace

BOOST_AUTO_TEST_CASE(in_memory_singular_pivot_everywhere, *ut::precondition(cpu_only)) {
  // Stripe K has a zero row: its factorization meets an exact zero pivot.
  // Every rank throws singular_pivot with the single process's message.
  // K = 0 is factored before the loop; K >= 1 by lookahead, on K's owner
  // while the others sweep K - 1 (the error travels with K's broadcast);
  // K = 4 is the last stripe, after which no step follows.
  const i64 n = 40, S = 8;
  for (const i64 K : {0, 1, 2, 3, 4}) {
    auto A = test_matrix(n, 11);
    for (i64 j = 0; j < n; ++j) A[std::size_t(K * S + 3 + j * n)] = 0.0;
    const auto opt = base_options(S, 4);
    const std::string want = outcome([&] { exala::stripe_lu ref(n, A.data(), n, opt); });
    BOOST_TEST(want.rfind("singular:", 0) == 0, "K = " << K << ": " << want);
    BOOST_TEST(want.find("zero pivot") != std::string::npos, "K = " << K << ": " << want);
    const std::string got = outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), opt); });
    BOOST_TEST(got == want, "K = " << K << ", rank " << t::rank() << ": " << got);
    check_still_in_step(n, test_matrix(n, 12), opt, "K = " + std::to_string(K));
  }
}

BOOST_AUTO_TEST_CASE(in_memory_failed_sweep_fails_every_rank, *ut::precondition(cpu_only)) {
  // Lookahead keeps no per-step agreement: a rank whose sweep fails (an
  // injected fault on the sweep's thread) keeps taking part in the steps'
  // broadcasts and fails the next step it owns, or the agreement after the
  // loop. Every rank must throw - the failed rank its own error, the others
  // remote_error naming it - and the ranks must stay in step for the next
  // call. n = 40, S = 8: 5 stripes; faults at the first step (the failed rank
  // owns later stripes) and the last ones (it owns none: the final agreement).
  const i64 n = 40, S = 8;
  const auto A = test_matrix(n, 13);
  const auto opt = base_options(S, 4);
  const int P = t::size();
  for (const i64 step : {0, 2, 3, 4})
    for (int bad = 0; bad < P; ++bad) {
      if (t::rank() == bad) exala::detail::stripe::inject_sweep_fault(step);
      const std::string got = outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), opt); });
      exala::detail::stripe::inject_sweep_fault(-1);
      // The fault fires at that step on rank `bad` whether or not it has a
      // stripe left to sweep.
      const std::string want = t::rank() == bad
                                   ? "other:exala: stripe LU: injected sweep fault at step " + std::to_string(step)
                                   : "remote:" + std::to_string(bad);
      BOOST_TEST(got == want, "step " << step << ", bad rank " << bad << ", rank " << t::rank() << ": " << got);
      check_still_in_step(n, A, opt, "step " + std::to_string(step) + ", bad " + std::to_string(bad));
    }
}

BOOST_AUTO_TEST_CASE(in_memory_bad_input, *ut::precondition(cpu_only)) {
  const int P = t::size(), me = t::rank(), last = P - 1;
  const i64 n = 30;
  const auto A = test_matrix(n, 21);
  auto expect = [&](const std::string& got, const std::string& arg, const std::string& what) {
    const std::string want = me == last ? "arg:" + arg : "remote:" + std::to_string(last);
    BOOST_TEST(got == want, what << " on rank " << me << ": " << got);
  };
  // A bad option on the last rank only.
  auto bad = base_options(8, 4);
  if (me == last) bad.stripe = -5;
  expect(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), bad); }), "stripe",
         "stripe = -5");
  // A valid option that differs from rank 0's.
  if (P > 1) {
    auto other = base_options(8, 4);
    if (me == last) other.substripe = 2;
    expect(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), other); }),
           "substripe", "substripe differs");
    expect(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, me == last ? n + 1 : n, rows_of(A, n), base_options(8, 4)); }),
           "n", "n differs");
  }
  // A non-finite entry in the last rank's first stripe.
  if (8 * last + 2 < n) {  // stripe `last` (S = 8) exists: rows 8*last ..
    auto B = A;
    B[std::size_t(8 * last + 2 + 5 * n)] = NAN;
    expect(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(B, n), base_options(8, 4)); }),
           "rows", "NaN entry");
  }
  // What the distributed LU cannot do: the same error on every rank.
  auto partial = base_options(8, 4);
  partial.pivot = exala::pivoting::partial;
  BOOST_TEST(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), partial); }) ==
             "arg:pivot");
  // Engine "cuda" in a program that did not register it (this one does not
  // link exala::gpu_cuda): the single process's not_compiled_in on every rank.
  auto cuda = base_options(8, 4);
  cuda.engine = "cuda";
  {
    const std::string want = outcome([&] { exala::stripe_lu ref(n, A.data(), n, cuda); });
    BOOST_TEST(want.find("is not compiled in") != std::string::npos, want);
    BOOST_TEST(outcome([&] {
                 try {
                   exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), cuda);
                 } catch (const exala::not_compiled_in&) {
                   throw;
                 } catch (const std::exception& e) {
                   throw std::runtime_error(std::string("not a not_compiled_in: ") + e.what());
                 }
               }) == want);
  }
  // Solve arguments: a bad ldb, or a b that is not replicated, on the last
  // rank; afterwards the object still works (no rank was left behind).
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), base_options(8, 4));
  exala::stripe_lu ref(n, A.data(), n, base_options(8, 4));
  auto b = test_rhs(n, 1, 5);
  expect(outcome([&] { lu.solve(1, b.data(), me == last ? n - 1 : n); }), "ldb", "ldb < n");
  if (P > 1) {
    auto c = b;
    if (me == last) c[3] += 1.0;
    expect(outcome([&] { lu.solve(1, c.data(), n); }), "b", "b not replicated");
    std::vector<double> x(static_cast<std::size_t>(n));
    expect(outcome([&] { lu.solve_refined(1, b.data(), n, x.data(), n, me == last ? 3 : 10); }),
           "max_refine", "max_refine differs");
  }
  BOOST_TEST(outcome([&] { lu.solve_refined(1, b.data(), n, nullptr, n, 10); }) == "arg:x");
  auto x = b, y = b;
  lu.solve(1, x.data(), n);
  ref.solve(1, y.data(), n);
  BOOST_TEST(same_bits(x, y));
  std::vector<double> s;
  BOOST_TEST(outcome([&] { lu.solve_stored(s, 3); }) == "arg:solve_stored");
}

// ----------------------------------------------------------- out of core

namespace {

struct ooc_case {
  i64 n, nrhs, file_stripe;
  double cond;
  exala::stripe_lu_options opt;
  std::string what;
  std::uint64_t seed = 1;
  int scale = 0;  // the system (A, the stored and the test B) scaled by 2^scale
};

// The distributed out-of-core LU of a generated system against the single
// process out of core (rank 0, on its own copy of the system; results
// broadcast) and in core (every rank, the matrix read back), on every rank.
void check_out_of_core(const ooc_case& c) {
  temp_dir tmp("ooc");
  BOOST_TEST_REQUIRE(generate(tmp.sub("sys"), c.n, c.nrhs, c.seed, c.file_stripe, c.cond, c.scale));
  BOOST_TEST_REQUIRE(generate(tmp.sub("ref"), c.n, c.nrhs, c.seed, c.file_stripe, c.cond, c.scale));
  const auto B = scaled(test_rhs(c.n, 2, c.seed + 7), c.scale);
  // Single process, out of core (rank 0).
  results want_ooc;
  exala::refine_report want_stored{};
  std::vector<double> want_xs;
  exala::stripe_lu_report want_rep;
  bool ok = true;
  if (t::rank() == 0) {
    try {
      exala::stripe_lu ref({tmp.sub("ref")}, c.opt);
      want_ooc = solve_all(ref, c.n, B, 2);
      want_stored = ref.solve_stored(want_xs, 10);
      want_rep = ref.report();
    } catch (const std::exception& e) {
      BOOST_TEST_MESSAGE("single process out of core failed: " << e.what());
      ok = false;
    }
  }
  BOOST_TEST_REQUIRE(t::all_ranks(ok));
  bcast(want_ooc);
  std::uint64_t len = want_xs.size();
  MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  want_xs.resize(len);
  MPI_Bcast(want_xs.data(), int(len), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double stored[4] = {double(want_stored.steps), double(want_stored.converged),
                      want_stored.backward_error_before, want_stored.backward_error_after};
  MPI_Bcast(stored, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::int64_t rep_sizes[3] = {want_rep.stripe, want_rep.substripe, want_rep.meta};
  MPI_Bcast(rep_sizes, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
  // Single process, in core, same S and S' (every rank).
  std::vector<double> A(std::size_t(c.n * c.n));
  exala::stripe_system_reader(std::vector<std::string>{tmp.sub("sys")}).read_rows(0, c.n, A.data(), c.n);
  auto in_core_opt = c.opt;
  in_core_opt.stripe = rep_sizes[0];
  in_core_opt.substripe = rep_sizes[1];
  in_core_opt.meta = 0;
  in_core_opt.order = exala::stripe_order::zigzag;
  in_core_opt.cache_bytes = 0;
  exala::stripe_lu ref_core(c.n, A.data(), c.n, in_core_opt);
  const results want_core = solve_all(ref_core, c.n, B, 2);

  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, {tmp.sub("sys")}, tmp.rank_dir("work"), c.opt);
  const results got = solve_all(lu, c.n, B, 2);
  check_same(got, want_ooc, c.what + " vs one process out of core");
  check_same(got, want_core, c.what + " vs one process in core", true);
  if (c.scale != 0) t::check_scaled(got, lu.report().matrix_scale, c.what);
  std::vector<double> xs;
  const auto rs = lu.solve_stored(xs, 10);
  const auto& rp = lu.report();
  BOOST_TEST_CONTEXT(c.what << " on rank " << t::rank()) {
    BOOST_TEST(same_bits(xs, want_xs));
    BOOST_TEST(rs.steps == int(stored[0]));
    BOOST_TEST(rs.converged == (stored[1] != 0));
    BOOST_TEST(same_bits(rs.backward_error_before, stored[2]));
    BOOST_TEST(same_bits(rs.backward_error_after, stored[3]));
    BOOST_TEST(rp.stripe == rep_sizes[0]);
    BOOST_TEST(rp.substripe == rep_sizes[1]);
    BOOST_TEST(rp.meta == rep_sizes[2]);
    BOOST_TEST(!rp.in_core);
    BOOST_TEST(!rp.resumed);
    if (c.opt.cache_bytes != 0) BOOST_TEST(rp.peak_cache_bytes <= c.opt.cache_bytes);
  }
  // A second object on the same rank directories finds the finished run
  // (with S chosen by the library, it keeps the journal's S although a
  // larger cache would choose another).
  auto again_opt = c.opt;
  if (again_opt.stripe == 0 && again_opt.cache_bytes != 0) again_opt.cache_bytes *= 2;
  exala::mpi::stripe_lu again(MPI_COMM_WORLD, {tmp.sub("sys")}, tmp.rank_dir("work"), again_opt);
  BOOST_TEST(again.report().resumed);
  BOOST_TEST(again.stripe_height() == rp.stripe);
  BOOST_TEST(again.report().groups_resumed == (c.n + rp.stripe * rp.meta - 1) / (rp.stripe * rp.meta));
  std::vector<double> x1 = B;
  again.solve(1, x1.data(), c.n);
  BOOST_TEST(same_bits(std::vector<double>(x1.begin(), x1.begin() + c.n),
                       std::vector<double>(want_ooc.x1.begin(), want_ooc.x1.begin() + c.n)));
}

}  // namespace

// Ranks that call different routines of the distributed LU (or another
// collective of the layer) fail at their first agreement, on every rank and
// with the routine named, instead of pairing unrelated collectives (a hang
// or an MPI abort before): issue 15, "one agreement step before every
// collective".
BOOST_AUTO_TEST_CASE(different_routines_on_different_ranks, *ut::precondition(cpu_only)) {
  const int P = t::size(), me = t::rank(), last = P - 1;
  if (P < 2) return;
  const i64 n = 30;
  const auto A = test_matrix(n, 23);
  auto expect = [&](const std::string& got, const std::string& what) {
    const std::string want = me == last ? "arg:operation" : "remote:" + std::to_string(last);
    BOOST_TEST(got == want, what << " on rank " << me << ": " << got);
  };
  // Construction against a reduction (the constructor's first collective
  // used to be MPI_Comm_dup).
  std::vector<double> v(8, 1.0);
  expect(outcome([&] {
           if (me == last)
             (void)exala::mpi::sum(MPI_COMM_WORLD, 8, v.data(), 1);
           else
             exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), base_options(8, 4));
         }),
         "constructor vs sum");
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), base_options(8, 4));
  auto b = test_rhs(n, 1, 7);
  std::vector<double> x(std::size_t(n), 0.0);
  // Members whose first agreements had the same shape (3 values each) and
  // used to pair silently, and members of different shapes.
  expect(outcome([&] {
           if (me == last)
             (void)lu.backward_error(1, b.data(), n, b.data(), n);
           else
             (void)lu.solve_refined(1, b.data(), n, x.data(), n, 3);
         }),
         "solve_refined vs backward_error");
  expect(outcome([&] {
           auto y = b;
           if (me == last)
             (void)lu.solve_refined(1, b.data(), n, x.data(), n, 3);
           else
             lu.solve(1, y.data(), n);
         }),
         "solve vs solve_refined");
  // The object still works on every rank afterwards.
  auto y = b;
  BOOST_TEST(outcome([&] { lu.solve(1, y.data(), n); }) == "ok");
}

BOOST_AUTO_TEST_CASE(out_of_core_matches_single_process, *ut::precondition(cpu_only)) {
  {
    ooc_case c{150, 2, 40, 0, base_options(32, 8), "n = 150, file stripe 40, S = 32, S' = 8"};
    check_out_of_core(c);
  }
  {
    // Meta-zigzag groups of 3 and a cache of 5 stripes: evictions.
    auto o = base_options(16, 8);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 3;
    o.cache_bytes = 5ull * 16 * 130 * 8;
    o.checkpoint_interval_s = 0;
    ooc_case c{130, 1, 25, 0, o, "n = 130, meta 3, small cache"};
    check_out_of_core(c);
  }
  {
    // Ill-conditioned: refinement takes steps.
    auto o = base_options(24, 12);
    o.cache_bytes = 3ull * 24 * 100 * 8;
    ooc_case c{100, 1, 100, 1e10, o, "cond 1e10, n = 100, minimal cache", 3};
    check_out_of_core(c);
  }
  {
    // S chosen from the cache as the single process chooses it; fewer
    // stripes than ranks for P = 4.
    auto o = base_options(0, 0);
    o.cache_bytes = 73728;  // S = 73728 / 8 / (8 n) = 28, then a multiple of 20: 20
    ooc_case c{40, 1, 20, 0, o, "n = 40, S from the cache"};
    check_out_of_core(c);
  }
}

// Issue 15, row 1: systems near the ends of the double range (scaled by
// 2^1015, 2^1021: ||A||_inf overflows, and 2^-1000) give finite solutions
// with the single process's bits - the unscaled system's, for the unrefined
// ones - in memory and out of core; the 2 x 2 system whose forward
// substitution overflowed (b = (1e308, -1e308)) its exact solution.
BOOST_AUTO_TEST_CASE(scaled_systems_match_single_process, *ut::precondition(cpu_only)) {
  for (int s : {1015, 1021, -1000}) {
    check_in_memory(60, base_options(16, 8), 61, false, 2, "n = 60 scaled by 2^" + std::to_string(s), s);
    auto o = base_options(16, 8);
    o.cache_bytes = 3ull * 16 * 60 * 8;
    o.checkpoint_interval_s = 0;
    ooc_case c{60, 1, 20, 0, o, "out of core, n = 60 scaled by 2^" + std::to_string(s), 62, s};
    check_out_of_core(c);
  }
  const std::vector<double> A{1, 1, 0, 4}, b{1e308, -1e308};
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, 2, rows_of(A, 2), base_options(1, 1));
  auto x = b;
  lu.solve(1, x.data(), 2);
  BOOST_TEST(same_bits(x, std::vector<double>{1e308, -0.5e308}), "rank " << t::rank());
  std::vector<double> xr(2);
  const auto rr = lu.solve_refined(1, b.data(), 2, xr.data(), 2, 5);
  BOOST_TEST(same_bits(xr, x));
  BOOST_TEST(rr.converged);
  const std::vector<double> wrong{1e308, -4e307};
  BOOST_TEST(lu.backward_error(1, b.data(), 2, wrong.data(), 2) > 0.06);
}

BOOST_AUTO_TEST_CASE(out_of_core_bad_input, *ut::precondition(cpu_only)) {
  const int P = t::size(), me = t::rank(), last = P - 1;
  temp_dir tmp("bad");
  BOOST_TEST_REQUIRE(generate(tmp.sub("sys"), 40, 1, 5, 10, 0));
  const std::vector<std::string> sys{tmp.sub("sys")};
  // The system's own directory as rank_workdir.
  BOOST_TEST(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, sys[0], base_options(8, 4)); }) ==
             "arg:rank_workdir");
  // One directory for every rank.
  if (P > 1)
    BOOST_TEST(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.sub("shared"), base_options(8, 4)); }) ==
               "arg:rank_workdir");
  // A directory that holds another system (on the last rank).
  BOOST_TEST_REQUIRE(generate(tmp.sub("other"), 20, 1, 6, 10, 0));
  {
    const std::string got = outcome([&] {
      exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, me == last ? tmp.sub("other") : tmp.rank_dir("w"),
                               base_options(8, 4));
    });
    const std::string want = me == last ? "arg:rank_workdir" : "remote:" + std::to_string(last);
    BOOST_TEST(got == want, "rank " << me << ": " << got);
  }
  // A missing system on the last rank.
  {
    const std::string got = outcome([&] {
      exala::mpi::stripe_lu lu(MPI_COMM_WORLD, {me == last ? tmp.sub("nothing") : sys[0]},
                               tmp.rank_dir("w2"), base_options(8, 4));
    });
    const std::string want = me == last ? "storage" : "remote:" + std::to_string(last);
    BOOST_TEST(got == want, "rank " << me << ": " << got);
  }
  // Engine "cuda" without the registered engine: not_compiled_in everywhere.
  {
    auto cuda = base_options(8, 4);
    cuda.engine = "cuda";
    const std::string got = outcome([&] {
      try {
        exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("wc"), cuda);
      } catch (const exala::not_compiled_in& e) {
        throw std::runtime_error(std::string("not_compiled_in: ") + e.what());
      }
    });
    BOOST_TEST(got.rfind("other:not_compiled_in: ", 0) == 0, "rank " << me << ": " << got);
    BOOST_TEST(got.find("'cuda'") != std::string::npos, "rank " << me << ": " << got);
  }
  // A cache that cannot hold two working stripes beside the pivots.
  auto small = base_options(8, 4);
  small.cache_bytes = 2ull * 8 * 40 * 8;
  BOOST_TEST(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("w3"), small); }) ==
             "arg:cache");
  // Different cache budgets that choose different stripe heights.
  if (P > 1) {
    auto o = base_options(0, 0);
    o.cache_bytes = me == last ? 40ull * 40 * 8 * 8 : 20ull * 40 * 8 * 8;
    const std::string got =
        outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("w4"), o); });
    BOOST_TEST((got == "arg:cache_bytes" || got.rfind("remote:", 0) == 0), "rank " << me << ": " << got);
    BOOST_TEST(t::all_ranks(got != "ok"));
  }
}

BOOST_AUTO_TEST_CASE(out_of_core_singular_pivot_everywhere, *ut::precondition(cpu_only)) {
  // A stored system whose stripe 1 has a zero row.
  temp_dir tmp("sing");
  const i64 n = 48, S = 8;
  auto A = test_matrix(n, 31);
  for (i64 j = 0; j < n; ++j) A[std::size_t(S + 5 + j * n)] = 0.0;
  bool ok = true;
  if (t::rank() == 0) {
    try {
      exala::stripe_system_writer w({tmp.sub("sys")}, n, 1, 16, true);
      for (i64 I = 0; I < w.stripes(); ++I) w.write_stripe(I, A.data() + I * 16, n);
      std::vector<double> b(std::size_t(n), 1.0);
      w.write_rhs(b.data(), n);
      w.finish("test: zero row 13");
    } catch (const std::exception& e) {
      BOOST_TEST_MESSAGE(e.what());
      ok = false;
    }
  }
  BOOST_TEST_REQUIRE(t::all_ranks(ok));
  const auto opt = base_options(S, 4);
  const std::string want = outcome([&] { exala::stripe_lu ref(n, A.data(), n, opt); });
  BOOST_TEST(want.rfind("singular:", 0) == 0);
  const std::string got = outcome(
      [&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, {tmp.sub("sys")}, tmp.rank_dir("w"), opt); });
  BOOST_TEST(got == want, "rank " << t::rank() << ": " << got);
}

namespace {

// A write fault on one rank in the middle of its factorization: every rank
// throws (storage_error there, remote_error elsewhere); the rerun resumes and
// gives the bits of an uninterrupted run.
void check_interrupted(const exala::stripe_lu_options& opt, i64 n, i64 file_stripe,
                       const std::string& what) {
  namespace st = exala::detail::stripe;
  const int P = t::size(), me = t::rank();
  const int faulty = P > 1 ? 1 : 0;
  temp_dir tmp("kill");
  BOOST_TEST_REQUIRE(generate(tmp.sub("sys"), n, 1, 9, file_stripe, 0));
  const std::vector<std::string> sys{tmp.sub("sys")};
  const auto B = test_rhs(n, 1, 17);
  results want;
  std::int64_t written = 0;
  {
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("a"), opt);
    want = solve_all(lu, n, B, 1);
    written = lu.report().bytes_written;
  }
  // The fault: halfway through this rank's factorization (write_fault_offset).
  if (me == faulty) st::inject_write_fault(t::write_fault_offset(n, opt.stripe, written));
  const std::string got =
      outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("b"), opt); });
  st::inject_write_fault(-1);
  const std::string expect_got = me == faulty ? "storage" : "remote:" + std::to_string(faulty);
  BOOST_TEST(got == expect_got, what << ", rank " << me << ": " << got);
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("b"), opt);
  BOOST_TEST_CONTEXT(what << " on rank " << me) {
    BOOST_TEST_MESSAGE(what << ", rank " << me << " of " << P << ": resumed "
                            << lu.report().groups_resumed << " groups, wrote "
                            << lu.report().bytes_written << " of " << written << " bytes");
    BOOST_TEST(lu.report().resumed);
    BOOST_TEST(lu.report().groups_resumed > 0);
    BOOST_TEST(lu.report().bytes_written < written);  // the finished groups were not redone
    check_same(solve_all(lu, n, B, 1), want, what + ": resumed vs uninterrupted");
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(out_of_core_fault_during_copy, *ut::precondition(cpu_only)) {
  // A write fault on the last rank while it copies its stripes: every rank
  // throws; the rerun makes that rank's copy again, reuses the others', and
  // gives the bits of the single process.
  namespace st = exala::detail::stripe;
  const int P = t::size(), me = t::rank(), last = P - 1;
  temp_dir tmp("copy");
  const i64 n = 64;
  BOOST_TEST_REQUIRE(generate(tmp.sub("sys"), n, 1, 12, 16, 0));
  const std::vector<std::string> sys{tmp.sub("sys")};
  const auto opt = base_options(16, 8);
  if (me == last) st::inject_write_fault(5000);  // inside the first orig_ file
  const std::string got =
      outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("w"), opt); });
  st::inject_write_fault(-1);
  BOOST_TEST(got == (me == last ? std::string("storage") : "remote:" + std::to_string(last)),
             "rank " << me << ": " << got);
  std::vector<double> A(std::size_t(n * n));
  exala::stripe_system_reader(sys).read_rows(0, n, A.data(), n);
  exala::stripe_lu ref(n, A.data(), n, opt);
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("w"), opt);
  const auto B = test_rhs(n, 2, 4);
  check_same(solve_all(lu, n, B, 2), solve_all(ref, n, B, 2), "after a fault in the copy", true);
}

BOOST_AUTO_TEST_CASE(out_of_core_interrupted_run_resumes, *ut::precondition(cpu_only)) {
  check_interrupted(base_options(16, 8), 128, 32, "unlimited cache");
  auto o = base_options(16, 8);
  o.cache_bytes = 3ull * 16 * 128 * 8;  // evictions: act_ and lseg_ files
  o.checkpoint_interval_s = 0;
  check_interrupted(o, 128, 32, "small cache, checkpoint every group");
  auto z = base_options(16, 8);
  z.order = exala::stripe_order::meta_zigzag;
  z.meta = 2;
  z.cache_bytes = 4ull * 16 * 128 * 8;
  z.checkpoint_interval_s = 0;
  check_interrupted(z, 128, 32, "meta 2, small cache");
}

// ------------------------------------------------------------------ long

BOOST_AUTO_TEST_CASE(long_in_memory_sweep, *ut::label("long") * ut::precondition(cpu_only)) {
  for (i64 n : {500, 777, 1500}) {
    check_in_memory(n, base_options(64, 16), std::uint64_t(n), false, 2, "n = " + std::to_string(n));
    check_in_memory(n, base_options(0, 0), std::uint64_t(n) + 1, true, 1,
                    "graded n = " + std::to_string(n) + ", default S");
  }
}

BOOST_AUTO_TEST_CASE(long_out_of_core_sweep, *ut::label("long") * ut::precondition(cpu_only)) {
  auto o = base_options(48, 16);
  o.order = exala::stripe_order::meta_zigzag;
  o.meta = 3;
  o.cache_bytes = 6ull * 48 * 600 * 8;
  o.checkpoint_interval_s = 0;
  check_out_of_core({600, 2, 100, 0, o, "n = 600, meta 3, small cache"});
  auto big = base_options(96, 32);
  big.cache_bytes = 4ull * 96 * 1400 * 8;
  big.checkpoint_interval_s = 0;
  check_out_of_core({1400, 1, 128, 1e8, big, "cond 1e8, n = 1400, small cache"});
  check_out_of_core({400, 1, 64, 1e12, base_options(64, 32), "cond 1e12, n = 400"});
  auto k = base_options(32, 16);
  k.cache_bytes = 3ull * 32 * 500 * 8;
  k.checkpoint_interval_s = 0;
  check_interrupted(k, 500, 50, "n = 500, small cache");
}
