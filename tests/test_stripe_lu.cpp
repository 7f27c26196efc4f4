// tests/test_stripe_lu.cpp - the stripe LU solver end to end, one source run
// over {engine} x {rank count}, as the BLAS suites run over every backend:
// in-core and out-of-core factorizations and solves, reproducibility,
// refinement, resume after a failure, corrupted files, bad parameters, the
// ends of the double range; and, distributed, bit equality with one process
// and the ranks' agreement on every error.
//
// The engine (test_engine(), set by the engine cases in their options):
// - the CPU engine (no macro);
// - EXALA_TEST_FAKE_DEVICE: the fake device of fake_device_engine.hpp,
//   registered as "cuda": the device driver path (slots, pivot groups,
//   streamed stripes, out of core, resume) with the CPU engine's arithmetic,
//   and every dense call on device memory (label unit, CI);
// - EXALA_TEST_ENGINE_CUDA: the CUDA engine (cuBLAS / cuSOLVER,
//   exala::gpu_cuda), run on the GPU machine (label cuda). Without a device
//   the cases through the front are skipped, and the suite distributed's
//   engine cases fail on every rank with the engine's error; both say why.
// The rank count (the front, lu_under_test below):
// - one process (no macro): exala::stripe_lu; builds test_stripe_lu,
//   test_stripe_fakedev, test_stripe_cuda (tests/CMakeLists.txt);
// - EXALA_TEST_MPI: exala::mpi::stripe_lu over MPI_COMM_WORLD, run under
//   mpirun -np 1..4; builds test_mpi_stripe_lu, test_mpi_stripe_fakedev,
//   test_mpi_stripe_cuda (tests/mpi/stripe_lu.cmake).
//
// Which case runs where:
// - The in-core cases (suites in_core and range) run through the front in
//   every build: against LAPACK and MPFR on one process and on every rank
//   (the distributed LU has local pivoting only: asked for partial
//   pivoting it must refuse, naming `pivot`).
// - The out-of-core cases of the one-process front (suites out_of_core and
//   the out-of-core halves of range) run on one process; their distributed
//   counterparts are the suite `distributed`, which compares the distributed
//   LU with the one-process LU bit for bit (in memory and out of core,
//   resume, scaled systems) and checks that every rank agrees on every
//   error (singular pivots, bad or mismatched arguments, write faults, a
//   failed sweep, a progress callback that throws on one rank). It runs in
//   the MPI builds only.
// - The cases whose subject depends on neither the engine nor the rank count
//   (the host cache, the reader, the stored solution, the backward-error
//   formula, the refinement loop) run once, in test_stripe_lu.
//
// Oracles:
//  * LAPACK dgesv_ (the solution agrees within a bound set by the condition
//    number), and the exact residual computed in MPFR (independent of
//    exala::gemv) for the refined backward error <= 2u;
//  * bit equality between configurations of one engine that must give the
//    same bits: in core vs out of core, every cache size (down to the
//    minimum), order, meta-stripe count, pivot-slot count, thread count,
//    I/O-thread count, rank count, and a run that failed (injected full
//    disk, a failed rank) and was resumed. The fake device gives the CPU
//    engine's bits; a CUDA engine gives its own, so no case compares the
//    bits of two engines.
#ifdef EXALA_TEST_MPI
#define BOOST_TEST_MODULE exala_mpi_stripe_lu
#include "mpi_test_main.hpp"  // MPI_Init / MPI_Finalize around the cases
#include "stripe_test_systems.hpp"
#else
#define BOOST_TEST_MODULE exala_stripe_lu
#include <boost/test/unit_test.hpp>
#endif

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "stripe/cache.hpp"
#include "stripe/driver_common.hpp"
#include "stripe/host_array.hpp"
#include "stripe/store.hpp"
#include "stripe_test_common.hpp"
#include "stripe_test_engine.hpp"
#ifdef EXALA_TEST_MPI
#include "exala/mpi.hpp"
#include "stripe/factor_loop.hpp"
#endif

BOOST_TEST_DONT_PRINT_LOG_VALUE(exala::detail::stripe::stripe_state)

namespace st = exala::detail::stripe;
namespace ut = boost::unit_test;

namespace {

using exala_stripe_test::on_device;  // stripe_test_engine.hpp
using exala_stripe_test::only_if;
using exala_stripe_test::test_engine;

// The engine cases' precondition: the engine has its device (a machine
// without a GPU skips test_stripe_cuda's cases, saying so).
struct has_device {
  boost::test_tools::assertion_result operator()(ut::test_unit_id) const {
#ifdef EXALA_TEST_ENGINE_CUDA
    boost::test_tools::assertion_result r(exala::cuda::device_count() > 0);
    if (!r) r.message() << "no CUDA device: the CUDA engine is not tested here";
    return r;
#else
    return true;
#endif
  }
};

// ---- the front: the LU under test, on one process or distributed ----
#ifdef EXALA_TEST_MPI
constexpr bool distributed = true;
using lu_under_test = exala::mpi::stripe_lu;

// Every rank holds the whole matrix and hands the LU the rows it asks for.
lu_under_test make_lu(i64 n, const double* a, i64 lda, const exala::stripe_lu_options& o) {
  const exala::mpi::row_source rows = [n, a, lda](i64 r0, i64 m, double* dst, i64 ld) {
    for (i64 j = 0; j < n; ++j)
      for (i64 i = 0; i < m; ++i) dst[i + j * ld] = a[r0 + i + j * lda];
  };
  return lu_under_test(MPI_COMM_WORLD, n, rows, o);
}
#else
constexpr bool distributed = false;
using lu_under_test = exala::stripe_lu;

lu_under_test make_lu(i64 n, const double* a, i64 lda, const exala::stripe_lu_options& o) {
  return lu_under_test(n, a, lda, o);
}
#endif

// Whether this rank owns a stripe of an LU of order n (one process: yes
// unless n = 0), i.e. runs dense calls of its own.
bool owns_a_stripe(const lu_under_test& lu) {
#ifdef EXALA_TEST_MPI
  return exala_mpi_test::rank() * lu.stripe_height() < lu.n();
#else
  return lu.n() > 0;
#endif
}

// Work done once per check, not on every rank (the MPFR residuals).
bool on_first_rank() {
#ifdef EXALA_TEST_MPI
  return exala_mpi_test::rank() == 0;
#else
  return true;
#endif
}

// Subjects that depend on neither the engine nor the rank count run once, on
// the CPU engine and one process.
const only_if engine_independent{!on_device && !distributed,
                                 "engine- and rank-independent: run by test_stripe_lu only"};
// Cases of the one-process front only (out of core, the progress callback):
// their distributed counterparts are in the suite `distributed`.
const only_if one_process{!distributed,
                          "one process only: the distributed counterparts are in the suite "
                          "distributed"};

// The fake device's counters around a factorization: it uploaded stripes,
// and every dense call had device operands. (Nothing to check on the CPU or
// on CUDA.) computes: whether this rank owns a stripe (a rank without one
// may have nothing to upload or compute).
struct device_use {
#ifdef EXALA_TEST_FAKE_DEVICE
  long calls0 = fake_dense_calls, foreign0 = fake_foreign_calls, uploads0 = fake_uploads;
#endif
  void check(bool computes = true) const {
#ifdef EXALA_TEST_FAKE_DEVICE
    BOOST_TEST(fake_foreign_calls == foreign0);
    if (!computes) return;
    BOOST_TEST(fake_uploads > uploads0);
    BOOST_TEST(fake_dense_calls > calls0);
#else
    (void)computes;
#endif
  }
};

// The whole original matrix and B of a work directory.
void read_system(const std::string& dir, std::vector<double>& a, std::vector<double>& b, i64& n,
                 i64& nrhs) {
  // Through the public reader, in two row ranges that straddle stripe files.
  exala::stripe_system_reader r({dir});
  n = r.n();
  nrhs = r.nrhs();
  a.resize(std::size_t(n * n));
  b.resize(std::size_t(n * nrhs));
  const i64 half = n / 2 + 3;
  r.read_rows(0, half, a.data(), n);
  r.read_rows(half, n - half, a.data() + half, n);
  r.read_rhs(b.data(), n);
}

// Options on the engine under test: default sizes, or stripes of S rows and
// substripes of S' with a checkpoint after every group.
exala::stripe_lu_options engine_opts() {
  exala::stripe_lu_options o;
  o.engine = test_engine();
  return o;
}

exala::stripe_lu_options opts(i64 S, i64 Sp) {
  auto o = engine_opts();
  o.stripe = S;
  o.substripe = Sp;
  o.checkpoint_interval_s = 0;
  return o;
}

std::vector<double> solve_workdir(const std::string& dir, const exala::stripe_lu_options& o,
                                  exala::refine_report* rr = nullptr,
                                  exala::stripe_lu_report* rep = nullptr, int refine = 0) {
  exala::stripe_lu lu({dir}, o);
  std::vector<double> x;
  auto r = lu.solve_stored(x, refine);
  if (rr) *rr = r;
  if (rep) *rep = lu.report();
  return x;
}

// A system written to a new work directory (stripes of file_stripe rows).
void write_system(const std::string& dir, i64 n, const std::vector<double>& a,
                  const std::vector<double>& b, i64 nrhs, i64 file_stripe) {
  exala::stripe_system_writer w({dir}, n, nrhs, file_stripe, true);
  for (i64 I = 0; I < w.stripes(); ++I) w.write_stripe(I, a.data() + I * file_stripe, n);
  w.write_rhs(b.data(), n);
  w.finish("test system");
}

// 2^k v, entry by entry.
std::vector<double> scaled(std::vector<double> v, int k) {
  for (double& x : v) x = std::ldexp(x, k);
  return v;
}

// Whether 2^k v is exact (no entry rounded into the subnormals).
bool scales_exactly(const std::vector<double>& v, int k) {
  for (double x : v)
    if (std::ldexp(std::ldexp(x, k), -k) != x) return false;
  return true;
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

#ifdef EXALA_TEST_HAVE_MPFR
// The normwise backward error ||b - A x||_inf / (||A||_inf ||x||_inf +
// ||b||_inf) with every quantity in MPFR (the residual exact at 4400 bits,
// the norms exact, the ratio rounded upward): MPFR's exponent range has no
// overflow or underflow at the ends of the double range, so this is the
// oracle for scaled systems (the shared mpfr_backward_error rounds its norms
// to doubles).
double mpfr_backward_error_wide(i64 n, const std::vector<double>& a, const double* b,
                                const double* x) {
  mpfr_t acc, t, rmax, rowsum, anorm, xmax, bmax;
  for (auto* v : {&acc, &t, &rmax, &rowsum, &anorm, &xmax, &bmax}) {
    mpfr_init2(*v, 4400);
    mpfr_set_zero(*v, 1);
  }
  for (i64 i = 0; i < n; ++i) {
    mpfr_set_d(acc, b[i], MPFR_RNDN);
    mpfr_set_zero(rowsum, 1);
    for (i64 j = 0; j < n; ++j) {
      mpfr_set_d(t, a[std::size_t(i + j * n)], MPFR_RNDN);
      mpfr_mul_d(t, t, x[j], MPFR_RNDN);  // exact
      mpfr_sub(acc, acc, t, MPFR_RNDN);   // exact
      mpfr_set_d(t, std::fabs(a[std::size_t(i + j * n)]), MPFR_RNDN);
      mpfr_add(rowsum, rowsum, t, MPFR_RNDN);  // exact
    }
    mpfr_abs(acc, acc, MPFR_RNDN);
    mpfr_max(rmax, rmax, acc, MPFR_RNDN);
    mpfr_max(anorm, anorm, rowsum, MPFR_RNDN);
    mpfr_set_d(t, std::fabs(b[i]), MPFR_RNDN);
    mpfr_max(bmax, bmax, t, MPFR_RNDN);
  }
  for (i64 j = 0; j < n; ++j) {
    mpfr_set_d(t, std::fabs(x[j]), MPFR_RNDN);
    mpfr_max(xmax, xmax, t, MPFR_RNDN);
  }
  mpfr_mul(anorm, anorm, xmax, MPFR_RNDD);
  mpfr_add(anorm, anorm, bmax, MPFR_RNDD);
  mpfr_div(rmax, rmax, anorm, MPFR_RNDU);
  const double eta = mpfr_get_d(rmax, MPFR_RNDU);
  for (auto* v : {&acc, &t, &rmax, &rowsum, &anorm, &xmax, &bmax}) mpfr_clear(*v);
  return eta;
}
#endif

}  // namespace

// ------------------------------------------------------------- the cache

BOOST_AUTO_TEST_SUITE(cache, *ut::precondition(engine_independent))

// A fake disk: stripe i has `size` doubles; flush records what was written.
struct fake_disk {
  std::map<i64, std::vector<double>> disk;
  std::atomic<int> loads{0}, flushes{0};
  i64 len = 1000;
  st::cache_callbacks callbacks() {
    st::cache_callbacks cb;
    cb.size = [this](i64) { return std::uint64_t(len) * 8u; };
    cb.load = [this](i64 i, st::cache_buffer& b) {
      ++loads;
      b.rows = 1, b.col0 = 0, b.ncols = len;
      b.data = st::host_array(std::size_t(len));
      auto it = disk.find(i);
      for (i64 j = 0; j < len; ++j) b.data.data()[std::size_t(j)] = it == disk.end() ? double(i) : it->second[std::size_t(j)];
      b.version = b.disk_version = 0;
    };
    cb.flush = [this](i64 i, const st::cache_buffer& b) {
      ++flushes;
      disk[i].assign(b.data.data(), b.data.data() + len);
    };
    return cb;
  }
};

BOOST_AUTO_TEST_CASE(budget_lru_and_write_back) {
  for (int io : {0, 2}) {
    fake_disk d;
    st::stripe_cache c(d.callbacks(), 3 * 8000, io);  // room for 3 stripes
    for (i64 i = 0; i < 6; ++i) {
      auto& b = c.acquire(i);
      BOOST_TEST(b.data.data()[0] == double(i));
      b.data.data()[0] = 100.0 + double(i);
      b.version = 1;
      c.release(i);
      BOOST_TEST(c.stats().resident_bytes <= 3u * 8000u);
    }
    BOOST_TEST(c.stats().peak_bytes <= 3u * 8000u);
    // Stripes 0..2 were evicted, dirty, so written back first.
    for (i64 i = 0; i < 3; ++i) {
      BOOST_TEST(c.state(i) == st::stripe_state::on_disk);
      BOOST_TEST(d.disk.at(i)[0] == 100.0 + double(i));
    }
    BOOST_TEST(c.state(5) == st::stripe_state::cached);
    auto& b0 = c.acquire(0);  // reloaded from the written-back copy
    BOOST_TEST(b0.data.data()[0] == 100.0);
    BOOST_TEST(c.state(0) == st::stripe_state::in_use);
    c.release(0);
    c.flush_all();
    BOOST_TEST(d.disk.at(5)[0] == 105.0);
    BOOST_TEST(c.stats().misses == 7);
  }
}

BOOST_AUTO_TEST_CASE(pinned_stripes_stay_and_too_small_throws) {
  fake_disk d;
  st::stripe_cache c(d.callbacks(), 2 * 8000, 0);
  c.acquire(0);
  c.pin(0);
  c.release(0);
  BOOST_TEST(c.state(0) == st::stripe_state::stuck);
  c.acquire(1);
  // 0 is stuck and 1 in use: no room for 2.
  BOOST_CHECK_THROW(c.acquire(2), exala::invalid_argument);
  c.release(1);
  c.acquire(2);  // evicts 1 (clean), never 0
  BOOST_TEST(c.state(0) == st::stripe_state::stuck);
  BOOST_TEST(c.state(1) == st::stripe_state::on_disk);
  c.release(2);
  c.unpin(0);
  c.discard(0);
  BOOST_TEST(c.state(0) == st::stripe_state::on_disk);
}

BOOST_AUTO_TEST_CASE(prefetch_loads_ahead) {
  fake_disk d;
  st::stripe_cache c(d.callbacks(), 4 * 8000, 2);
  c.plan({0, 1, 2});
  for (int spin = 0; spin < 2000 && d.loads < 2; ++spin)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  BOOST_TEST(d.loads >= 2);
  for (i64 i = 0; i < 3; ++i) {
    c.acquire(i);
    c.release(i);
  }
  // Each stripe read once: on demand or ahead; a prefetched stripe is no hit.
  BOOST_TEST(c.stats().misses + c.stats().prefetched == 3);
  BOOST_TEST(c.stats().prefetched >= 2);
  BOOST_TEST(c.stats().hits == 0);
  c.acquire(2);  // still resident: a hit
  c.release(2);
  BOOST_TEST(c.stats().hits == 1);
}

// A prefetch never evicts a stripe that the plan still needs: with a deep
// window (many I/O threads) and a small cache, prefetchers once evicted each
// other's fresh loads and the stripes cached for later in the plan (the
// CLI's --io-threads 64 --cache 512K at n = 600 read 448 MiB instead of
// ~150 MiB). Here 5, 6, 7 are cached and planned after 0 .. 4: they stay,
// and the prefetchers wait for room instead.
BOOST_AUTO_TEST_CASE(prefetch_keeps_planned_stripes) {
  fake_disk d;
  st::stripe_cache c(d.callbacks(), 3 * 8000, 8);
  for (i64 i : {5, 6, 7}) {
    c.acquire(i);
    c.release(i);
  }
  BOOST_TEST(d.loads == 3);
  c.plan({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the I/O threads act
  for (i64 i : {5, 6, 7}) BOOST_TEST(c.state(i) == st::stripe_state::cached, "stripe " << i);
  BOOST_TEST(d.loads == 3);
  // The compute thread still gets every stripe (on demand it evicts the
  // least recently used, planned or not), each with its own data.
  for (i64 i = 0; i < 10; ++i) {
    auto& b = c.acquire(i);
    BOOST_TEST(b.data.data()[0] == double(i));
    c.release(i);
  }
  BOOST_TEST(c.stats().resident_bytes <= 3u * 8000u);
}

BOOST_AUTO_TEST_CASE(load_errors_reach_the_caller) {
  st::cache_callbacks cb;
  cb.size = [](i64) { return std::uint64_t(8); };
  cb.load = [](i64 i, st::cache_buffer&) {
    throw exala::storage_error(i, "/nowhere/x.bin", "truncated");
  };
  cb.flush = [](i64, const st::cache_buffer&) {};
  for (int io : {0, 1}) {
    st::stripe_cache c(cb, 0, io);
    c.plan({3});
    try {
      c.acquire(3);
      BOOST_FAIL("no exception");
    } catch (const exala::storage_error& e) {
      BOOST_TEST(e.stripe() == 3);
      BOOST_TEST(std::string(e.what()).find("/nowhere/x.bin") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// An engine name that no backend has is an argument error, in every build
// (no device needed).
BOOST_AUTO_TEST_CASE(unknown_engine_names_the_argument) {
  exala::stripe_lu_options o;
  o.engine = "tpu";
  const auto a = random_matrix(4, 4, 1);
  BOOST_CHECK_EXCEPTION(make_lu(4, a.data(), 4, o), exala::invalid_argument,
                        [](const exala::invalid_argument& e) {
                          return std::string(e.what()).find("engine") != std::string::npos;
                        });
}

// ------------------------------------------- the constructors' host copies

BOOST_AUTO_TEST_SUITE(host_copies, *ut::precondition(engine_independent))

// host_array: zero-filled on either side of its calloc / mmap(MAP_POPULATE)
// boundary (1 MiB), writable to the last entry, and moved without a copy.
BOOST_AUTO_TEST_CASE(host_array_is_zero_and_movable_either_side_of_the_mmap_boundary) {
  const std::size_t mib = (std::size_t(1) << 20) / sizeof(double);
  for (const std::size_t count : {std::size_t(0), std::size_t(1), mib - 1, mib, 3 * mib + 5}) {
    BOOST_TEST_CONTEXT("count " << count) {
      st::host_array a(count);
      BOOST_TEST(a.size() == count);
      BOOST_TEST((a.data() != nullptr) == (count > 0));
      std::size_t nonzero = 0;
      for (std::size_t i = 0; i < count; ++i) nonzero += a.data()[i] != 0.0;
      BOOST_TEST(nonzero == 0u);
      for (std::size_t i = 0; i < count; ++i) a.data()[i] = double(i) + 0.5;
      double* const p = a.data();
      st::host_array b(std::move(a));
      BOOST_TEST((b.data() == p && b.size() == count && a.data() == nullptr && a.size() == 0u));
      st::host_array c(7);
      c = std::move(b);
      BOOST_TEST((c.data() == p && c.size() == count && b.data() == nullptr));
      if (count > 0) BOOST_TEST((c.data()[0] == 0.5 && c.data()[count - 1] == double(count - 1) + 0.5));
    }
  }
}

// copy_and_scan against the separate passes it replaces: the same copies,
// the row sums of add_row_sums (k = 0) bit for bit, the same max; the first
// non-finite entry in column order is named; scale_copy is scale_block plus
// add_row_sums with k != 0 (subnormal results included).
BOOST_AUTO_TEST_CASE(copy_and_scan_matches_the_separate_passes) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-40, 40);
  const i64 rows = 37, n = 53, lda = 41, ld1 = 37, ld2 = 40;
  std::vector<double> a(std::size_t(lda * n));
  for (double& v : a) v = std::ldexp(u(gen), e(gen));
  std::vector<double> d1(std::size_t(ld1 * n), -1), d2(std::size_t(ld2 * n), -1), rs(std::size_t(rows), 0.0);
  const st::copy_scan c = st::copy_and_scan(rows, n, a.data(), lda, d1.data(), ld1, d2.data(), ld2, rs.data());
  BOOST_TEST((c.bad_row == -1 && c.bad_col == -1));
  std::vector<double> want_rs(std::size_t(rows), 0.0);
  st::add_row_sums(rows, n, a.data(), lda, 0, want_rs.data());
  double want_max = 0;
  bool copies = true;
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < rows; ++i) {
      const double v = a[std::size_t(i + j * lda)];
      want_max = std::max(want_max, std::fabs(v));
      copies = copies && std::bit_cast<std::uint64_t>(d1[std::size_t(i + j * ld1)]) == std::bit_cast<std::uint64_t>(v) &&
               std::bit_cast<std::uint64_t>(d2[std::size_t(i + j * ld2)]) == std::bit_cast<std::uint64_t>(v);
    }
  BOOST_TEST(copies);
  BOOST_TEST(c.max_abs == want_max);
  BOOST_TEST(std::memcmp(rs.data(), want_rs.data(), rs.size() * sizeof(double)) == 0);
  // Without the second destination.
  std::fill(rs.begin(), rs.end(), 0.0);
  const st::copy_scan c1 = st::copy_and_scan(rows, n, a.data(), lda, d1.data(), ld1, nullptr, 0, rs.data());
  BOOST_TEST((c1.max_abs == want_max && c1.bad_col == -1));
  BOOST_TEST(std::memcmp(rs.data(), want_rs.data(), rs.size() * sizeof(double)) == 0);
  // The first non-finite entry in column order: (30, 11) before (2, 12).
  a[std::size_t(2 + 12 * lda)] = std::numeric_limits<double>::quiet_NaN();
  a[std::size_t(30 + 11 * lda)] = -std::numeric_limits<double>::infinity();
  std::fill(rs.begin(), rs.end(), 0.0);
  const st::copy_scan bad = st::copy_and_scan(rows, n, a.data(), lda, d1.data(), ld1, nullptr, 0, rs.data());
  BOOST_TEST((bad.bad_row == 30 && bad.bad_col == 11));
  a[std::size_t(30 + 11 * lda)] = 1;
  a[std::size_t(2 + 12 * lda)] = 2;
  // k != 0: lu scaled by 2^-k, the row sums of |2^-k a| from the original.
  for (const int k : {600, -600, 1060}) {
    BOOST_TEST_CONTEXT("k " << k) {
      std::vector<double> lu(std::size_t(ld1 * n)), want(std::size_t(ld1 * n));
      for (i64 j = 0; j < n; ++j)
        for (i64 i = 0; i < rows; ++i) lu[std::size_t(i + j * ld1)] = want[std::size_t(i + j * ld1)] = a[std::size_t(i + j * lda)];
      const double norm = st::scale_copy(rows, n, a.data(), lda, lu.data(), ld1, k);
      st::scale_block(rows, n, want.data(), ld1, k);
      std::vector<double> sums(std::size_t(rows), 0.0);
      st::add_row_sums(rows, n, a.data(), lda, k, sums.data());
      BOOST_TEST(std::memcmp(lu.data(), want.data(), lu.size() * sizeof(double)) == 0);
      BOOST_TEST(norm == *std::max_element(sums.begin(), sums.end()));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// --------------------------------------------------------------- in core

BOOST_AUTO_TEST_SUITE(in_core, *ut::precondition(has_device()))

// LAPACK's solution, and the refined backward error <= 2u; the report names
// the engine (and its device), and on the fake device every dense call of
// the factorization had device operands. Distributed: local pivoting only
// (partial pivoting is refused, naming the argument).
BOOST_AUTO_TEST_CASE(matches_dgesv_and_refines_to_2u) {
  struct cfg {
    i64 n, S, Sp;
    exala::pivoting p;
  };
  const auto L = exala::pivoting::local, P = exala::pivoting::partial;
  for (cfg c : {cfg{1, 1, 1, L}, cfg{1, 1, 1, P}, cfg{7, 3, 2, L}, cfg{7, 7, 7, L}, cfg{7, 7, 7, P},
                cfg{100, 32, 7, L}, cfg{257, 64, 24, L}, cfg{300, 96, 40, P}, cfg{300, 128, 32, L},
                cfg{300, 128, 32, P}, cfg{600, 128, 48, L}, cfg{600, 100, 30, P},
                cfg{1031, 128, 32, L}, cfg{1031, 128, 32, P}}) {
    BOOST_TEST_CONTEXT("n " << c.n << " S " << c.S << " S' " << c.Sp << " pivot "
                            << exala::to_string(c.p)) {
      const i64 nrhs = 2;
      auto a = random_matrix(c.n, c.n, unsigned(c.n));
      auto b = random_matrix(c.n, nrhs, unsigned(c.n) + 7);
      auto o = opts(c.S, c.Sp);
      o.pivot = c.p;
      if (distributed && c.p == P) {
        BOOST_CHECK_EXCEPTION(make_lu(c.n, a.data(), c.n, o), exala::invalid_argument,
                              [](const exala::invalid_argument& e) { return e.argument() == "pivot"; });
        continue;
      }
      const device_use use;
      const auto lu = make_lu(c.n, a.data(), c.n, o);
      use.check(owns_a_stripe(lu));
      BOOST_TEST(lu.report().engine == test_engine());
      BOOST_TEST(lu.report().device.empty() == !on_device);
      std::vector<double> x = b;
      lu.solve(nrhs, x.data(), c.n);
      const auto ref = dgesv(c.n, a, b, nrhs);
      // Random uniform matrices of these sizes have cond_inf < 1e6: both
      // solutions are within ~cond * n * u * growth of the truth; in fact
      // much closer (below 2e-12 on the CPU engine), so 1e-8 keeps a wide
      // margin and still catches a wrong pivot or a lost update.
      BOOST_TEST(max_rel_diff(x, ref) < 1e-8);
      std::vector<double> xr(b.size());
      const auto rr = lu.solve_refined(nrhs, b.data(), c.n, xr.data(), c.n, 10);
      BOOST_TEST(rr.backward_error_after <= 2 * u);
      BOOST_TEST(rr.backward_error_after <= rr.backward_error_before);
      BOOST_TEST(max_rel_diff(xr, ref) < 1e-8);
#ifdef EXALA_TEST_HAVE_MPFR
      // Up to n = 600: the MPFR residual's cost grows as n^2 at 4400 bits.
      for (i64 k = 0; k < nrhs && c.n <= 600 && on_first_rank(); ++k)
        BOOST_TEST(mpfr_backward_error(c.n, a, b.data() + k * c.n, xr.data() + k * c.n) <= 2 * u);
#endif
    }
  }
}

// In core on a device: one pivot group holding every stripe, or groups of
// 1, 2 or 3 stripes with the later stripes streamed through the target
// slots: the same bits (each stripe gets the same engine calls). Pivot slots
// are the device driver's (the CPU engine has no groups in core).
BOOST_AUTO_TEST_CASE(bits_do_not_depend_on_pivot_slots,
                     *ut::precondition(only_if{on_device, "pivot slots: device engines only"})) {
  const i64 n = 700;
  const auto a = random_matrix(n, n, 11);
  const auto b = random_matrix(n, 1, 12);
  auto o = opts(96, 40);
  std::vector<double> x0 = b;
  make_lu(n, a.data(), n, o).solve(1, x0.data(), n);
  for (i64 meta : {1, 2, 3}) {
    BOOST_TEST_CONTEXT("meta " << meta) {
      o.order = exala::stripe_order::meta_zigzag;
      o.meta = meta;
      const device_use use;
      const auto lu = make_lu(n, a.data(), n, o);
      use.check(owns_a_stripe(lu));
      BOOST_TEST(lu.report().meta == meta);
      std::vector<double> x = b;
      lu.solve(1, x.data(), n);
      BOOST_TEST(same_bits(x, x0));
    }
  }
}

BOOST_AUTO_TEST_CASE(bits_do_not_depend_on_threads) {
  const i64 n = 333;
  auto a = random_matrix(n, n, 5);
  auto b = random_matrix(n, 1, 6);
  std::vector<double> first;
  for (int threads : {1, 2, 3, 4}) {
    auto o = opts(80, 24);
    o.threads = threads;
    const auto lu = make_lu(n, a.data(), n, o);
    std::vector<double> x(static_cast<std::size_t>(n));
    lu.solve_refined(1, b.data(), n, x.data(), n, 5);
    if (first.empty()) first = x;
    BOOST_TEST(same_bits(x, first), "threads " << threads);
  }
}

BOOST_AUTO_TEST_CASE(singular_and_bad_input) {
  const i64 n = 40;
  auto a = random_matrix(n, n, 9);
  for (i64 i = 0; i < n; ++i) a[std::size_t(i + 17 * n)] = 0.0;  // column 17 is zero
  for (auto p : {exala::pivoting::local, exala::pivoting::partial}) {
    if (distributed && p == exala::pivoting::partial) continue;  // refused: matches_dgesv_...
    auto o = opts(16, 8);
    o.pivot = p;
    try {
      make_lu(n, a.data(), n, o);
      BOOST_FAIL("no exception");
    } catch (const exala::singular_pivot& e) {
      BOOST_TEST(e.column() == 17);
    }
  }
  auto good = random_matrix(n, n, 10);
  auto bad = [&](exala::stripe_lu_options o, const char* arg) {
    try {
      make_lu(n, good.data(), n, o);
      BOOST_FAIL("no exception for " << arg);
    } catch (const exala::invalid_argument& e) {
      BOOST_TEST(e.argument() == arg);
    } catch (const exala::not_compiled_in&) {
      BOOST_TEST(std::string(arg) == "engine");
    }
  };
  auto o = opts(16, 8);
  o.stripe = -1;
  bad(o, "stripe");
  o = opts(16, 32);
  bad(o, "substripe");
  o = opts(16, 8);
  o.meta = 3;  // with the zigzag order
  bad(o, "meta");
  o = opts(16, 8);
  o.threads = -2;
  bad(o, "threads");
  if (!on_device) {  // the device builds have an engine "cuda"
    o = opts(16, 8);
    o.engine = "cuda";
    bad(o, "engine");
  }
  o = opts(16, 8);
  o.pivot_threshold = std::nan("");
  bad(o, "pivot_threshold");
  // (The distributed LU takes rows from a callback: no lda to check.)
  if (!distributed)
    BOOST_CHECK_THROW(make_lu(n, good.data(), n - 1, engine_opts()), exala::invalid_argument);
  BOOST_CHECK_THROW(make_lu(-1, good.data(), 1, engine_opts()), exala::invalid_argument);
  good[5] = std::numeric_limits<double>::infinity();  // row 5: stripe 0
#ifdef EXALA_TEST_MPI
  // Stripe 0's owner (rank 0) names the argument; the others report its failure.
  if (exala_mpi_test::rank() != 0) {
    BOOST_CHECK_THROW(make_lu(n, good.data(), n, engine_opts()), exala::mpi::remote_error);
    return;
  }
#endif
  BOOST_CHECK_THROW(make_lu(n, good.data(), n, engine_opts()), exala::invalid_argument);
}

// A zero column in a later stripe, with no pivot threshold: the singular
// pivot names the column.
BOOST_AUTO_TEST_CASE(singular_pivot_is_named) {
  const i64 n = 200;
  auto a = random_matrix(n, n, 3);
  for (i64 i = 0; i < n; ++i) a[std::size_t(i + 150 * n)] = 0;  // column 150 is zero
  auto o = opts(64, 16);
  o.pivot_threshold = 0;
  BOOST_CHECK_EXCEPTION(make_lu(n, a.data(), n, o), exala::singular_pivot,
                        [](const exala::singular_pivot& e) { return e.column() == 150; });
}

// The progress callback's exception reaches the caller and ends the run: at
// the first report, at a middle step and at the last one, in core and out of
// core. (Distributed, where one rank may cancel alone: the suite
// `distributed`.)
BOOST_AUTO_TEST_CASE(throwing_progress_callback_ends_the_run, *ut::precondition(one_process)) {
  const i64 n = 40, S = 8;
  const auto a = random_matrix(n, n, 41);
  temp_dir d("cancel");
  write_system(d.str(), n, a, random_matrix(n, 1, 42), 1, S);
  for (const i64 step : {0, 2, 5}) {
    auto o = opts(S, 4);
    o.progress_interval_s = 0;
    i64 calls_after = 0;
    o.on_progress = [step, &calls_after](const exala::stripe_lu_progress& p) {
      if (p.phase != "factor" || p.step < step) return;
      if (p.step > step) ++calls_after;
      throw std::runtime_error("cancelled at " + std::to_string(p.step));
    };
    const std::string want = "cancelled at " + std::to_string(step);
    BOOST_CHECK_EXCEPTION(make_lu(n, a.data(), n, o), std::runtime_error,
                          [&](const std::runtime_error& e) { return e.what() == want; });
    o.cache_bytes = 3ull * S * n * 8;
    o.resume = false;
    BOOST_CHECK_EXCEPTION(exala::stripe_lu({d.str()}, o), std::runtime_error,
                          [&](const std::runtime_error& e) { return e.what() == want; });
    BOOST_TEST(calls_after == 0, "step " << step);  // not called again once it threw
  }
}

// An empty system (n = 0) factors, solves, refines and measures nothing, with
// no argument error (the residual once called gemv with lda = 0).
// exala::stripe_lu::in_place: A factored where it is (lda > n, the padding
// NaN, so that a read of it would show), with the bits of the copying
// constructor; refinement and backward errors from the caller's copy of A,
// which is checked; what it refuses, naming the argument.
BOOST_AUTO_TEST_CASE(in_place_matches_the_copy, *ut::precondition(one_process)) {
  auto arg_of = [](const std::function<void()>& f) -> std::string {
    try {
      f();
      return "ok";
    } catch (const exala::invalid_argument& e) {
      return "arg:" + e.argument();
    } catch (const std::exception& e) {
      return std::string("other:") + e.what();
    }
  };
  struct cfg {
    i64 n, S, Sp;
    exala::pivoting p;
    int scale;
  };
  const auto L = exala::pivoting::local, P = exala::pivoting::partial;
  for (cfg c : {cfg{300, 64, 16, L, 0}, cfg{300, 64, 16, P, 0}, cfg{203, 48, 16, L, 1015},
                cfg{203, 48, 16, L, -1000}, cfg{5, 16, 8, L, 0}, cfg{0, 16, 8, L, 0}}) {
    BOOST_TEST_CONTEXT("n " << c.n << " S " << c.S << " pivot " << exala::to_string(c.p) << " scale 2^"
                            << c.scale) {
      const i64 n = c.n, lda = n + 5, nrhs = 2, ld = std::max<i64>(1, n);
      std::vector<double> a(std::size_t(lda * std::max<i64>(1, n)), std::nan(""));
      const auto r = random_matrix(n, n, unsigned(n) + 3);
      for (i64 j = 0; j < n; ++j)
        for (i64 i = 0; i < n; ++i) a[std::size_t(i + j * lda)] = std::ldexp(r[std::size_t(i + j * n)], c.scale);
      auto b = random_matrix(n, nrhs, unsigned(n) + 4);
      if (n == 0) b.assign(2, 1.0);
      auto o = opts(c.S, c.Sp);
      o.pivot = c.p;
      const exala::stripe_lu ref(n, a.data(), lda, o);
      auto w = a;
      const exala::stripe_lu lu = exala::stripe_lu::in_place(n, w.data(), lda, o);
      // The padding is untouched; the matrix part holds the factors.
      for (i64 j = 0; j < n; ++j)
        for (i64 i = n; i < lda; ++i) BOOST_TEST(std::isnan(w[std::size_t(i + j * lda)]));
      auto x = b, y = b;
      ref.solve(nrhs, x.data(), ld);
      lu.solve(nrhs, y.data(), ld);
      BOOST_TEST(same_bits(x, y));
      std::vector<double> xr(b.size()), yr(b.size());
      const auto rr = ref.solve_refined(nrhs, b.data(), ld, xr.data(), ld, 10);
      const auto ry = lu.solve_refined(nrhs, b.data(), ld, yr.data(), ld, a.data(), lda, 10);
      BOOST_TEST(same_bits(xr, yr));
      BOOST_TEST(rr.steps == ry.steps);
      BOOST_TEST(same_bits({rr.backward_error_after}, {ry.backward_error_after}));
      BOOST_TEST(same_bits({ref.backward_error(nrhs, b.data(), ld, x.data(), ld)},
                           {lu.backward_error(nrhs, b.data(), ld, y.data(), ld, a.data(), lda)}));
      BOOST_TEST(lu.report().in_core);
      BOOST_TEST(lu.report().matrix_scale == ref.report().matrix_scale);
      BOOST_TEST(same_bits({lu.report().min_pivot_ratio}, {ref.report().min_pivot_ratio}));
      if (n < 5) continue;
      // The residual's copy of A: required, refused where A is kept, checked.
      BOOST_TEST(arg_of([&] { lu.solve_refined(nrhs, b.data(), ld, yr.data(), ld, 10); }) == "arg:solve_refined");
      BOOST_TEST(arg_of([&] { lu.backward_error(nrhs, b.data(), ld, y.data(), ld); }) == "arg:backward_error");
      BOOST_TEST(arg_of([&] { ref.solve_refined(nrhs, b.data(), ld, xr.data(), ld, a.data(), lda, 10); }) ==
                 "arg:a0");
      BOOST_TEST(arg_of([&] { lu.solve_refined(nrhs, b.data(), ld, yr.data(), ld, nullptr, lda, 10); }) ==
                 "arg:a0");
      BOOST_TEST(arg_of([&] { lu.solve_refined(nrhs, b.data(), ld, yr.data(), ld, a.data(), n - 1, 10); }) ==
                 "arg:lda0");
      auto off = a;
      off[std::size_t(n - 1 + 2 * lda)] = std::nextafter(off[std::size_t(n - 1 + 2 * lda)], 1.0);
      BOOST_TEST(arg_of([&] { lu.backward_error(nrhs, b.data(), ld, y.data(), ld, off.data(), lda); }) ==
                 "arg:a0");
    }
  }
  // Refused before anything is written: lda < n, a NaN (named), a null a.
  auto a = random_matrix(20, 20, 9);
  BOOST_TEST(arg_of([&] { exala::stripe_lu::in_place(20, a.data(), 19, opts(8, 4)); }) == "arg:lda");
  BOOST_TEST(arg_of([&] { exala::stripe_lu::in_place(20, nullptr, 20, opts(8, 4)); }) == "arg:a");
  BOOST_TEST(arg_of([&] { exala::stripe_lu::in_place(-1, a.data(), 20, opts(8, 4)); }) == "arg:n");
  auto bad = a;
  bad[std::size_t(3 + 11 * 20)] = INFINITY;
  const auto before = bad;
  try {
    exala::stripe_lu::in_place(20, bad.data(), 20, opts(8, 4));
    BOOST_FAIL("no exception for an infinite entry");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == "a");
    BOOST_TEST(std::string(e.what()).find("(3, 11)") != std::string::npos, e.what());
  }
  BOOST_TEST(std::memcmp(bad.data(), before.data(), bad.size() * sizeof(double)) == 0);
}

BOOST_AUTO_TEST_CASE(empty_system) {
  const double none = 0;
  double b = 1, x = 7;
  const auto lu = make_lu(0, &none, 1, engine_opts());
  BOOST_TEST(lu.n() == 0);
  lu.solve(1, &b, 1);
  const auto rr = lu.solve_refined(1, &b, 1, &x, 1, 5);
  BOOST_TEST(rr.steps == 0);
  BOOST_TEST(lu.backward_error(1, &b, 1, &x, 1) == 0.0);
  // Options for larger systems: n = 0, and n = 5 below S' = 8 (one stripe of
  // 5 rows, its substripe clamped to 5, the bits of S' = 5); S' > S is still
  // refused.
  BOOST_TEST(make_lu(0, &none, 1, opts(16, 8)).n() == 0);
  const auto a = random_matrix(5, 5, 3);
  const auto bb = random_matrix(5, 1, 4);
  const auto lu5 = make_lu(5, a.data(), 5, opts(16, 8));
  BOOST_TEST(lu5.report().stripe == 5);
  BOOST_TEST(lu5.report().substripe == 5);
  auto x8 = bb, x5 = bb;
  lu5.solve(1, x8.data(), 5);
  make_lu(5, a.data(), 5, opts(5, 5)).solve(1, x5.data(), 5);
  BOOST_TEST(std::memcmp(x8.data(), x5.data(), sizeof(double) * 5) == 0);
  BOOST_CHECK_THROW(make_lu(5, a.data(), 5, opts(16, 32)), exala::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

// ----------------------------------------------------------- out of core

BOOST_AUTO_TEST_SUITE(out_of_core, *ut::precondition(has_device()) * ut::precondition(one_process))

// Every configuration gives the in-core bits of its engine: caches that
// evict (down to the minimum) or hold everything, every order, meta counts,
// thread and I/O-thread counts, and a resumed finished run. Two systems: 9
// stripes, and 10 bigger ones.
BOOST_AUTO_TEST_CASE(bits_equal_in_core_for_every_cache_order_and_meta) {
  struct cfg {
    exala::stripe_order order;
    i64 meta;
    std::uint64_t cache;  // stripes; 0: unlimited
    int threads, io;
  };
  struct sys {
    i64 n, S, Sp;
    unsigned seed;
    std::vector<cfg> cfgs;
  };
  const auto basic = exala::stripe_order::basic, zigzag = exala::stripe_order::zigzag,
             meta_zigzag = exala::stripe_order::meta_zigzag;
  const exala::stripe_lu_options def;
  for (const sys& s : {sys{203, 24, 10, 42,
                           {cfg{basic, 0, 0, 2, 2}, cfg{basic, 0, 3, 1, 0}, cfg{zigzag, 0, 3, 2, 2},
                            cfg{zigzag, 0, 5, 3, 1}, cfg{meta_zigzag, 2, 4, 2, 2},
                            cfg{meta_zigzag, 3, 6, 1, 3}, cfg{meta_zigzag, 9, 0, 2, 2}}},
                       sys{611, 64, 24, 7,
                           {cfg{basic, 0, 0, def.threads, def.io_threads},
                            cfg{zigzag, 0, 3, def.threads, def.io_threads},
                            cfg{meta_zigzag, 2, 4, def.threads, def.io_threads},
                            cfg{meta_zigzag, 4, 0, def.threads, def.io_threads}}}}) {
    temp_dir d("cfg");
    const i64 n = s.n, S = s.S, Sp = s.Sp;
    exala::generate_dense_system({d.str()}, n, 2, s.seed, 50, 0.0);
    std::vector<double> a, b;
    i64 nn = 0, nrhs = 0;
    read_system(d.str(), a, b, nn, nrhs);
    BOOST_REQUIRE_EQUAL(nn, n);
    exala::stripe_lu ref(n, a.data(), n, opts(S, Sp));
    std::vector<double> xref(b.size());
    ref.solve_refined(nrhs, b.data(), n, xref.data(), n, 10);
    std::vector<double> x0 = b;
    ref.solve(nrhs, x0.data(), n);

    const std::uint64_t stripe_bytes = std::uint64_t(S) * n * 8;
    for (const cfg& c : s.cfgs) {
      BOOST_TEST_CONTEXT("n " << n << " order " << exala::to_string(c.order) << " meta " << c.meta
                              << " cache " << c.cache << " stripes, threads " << c.threads << " io "
                              << c.io) {
        auto o = opts(S, Sp);
        o.order = c.order;
        o.meta = c.meta;
        o.cache_bytes = c.cache * stripe_bytes;
        o.threads = c.threads;
        o.io_threads = c.io;
        o.resume = false;
        const device_use use;
        exala::stripe_lu lu({d.str()}, o);
        use.check();
        BOOST_TEST(lu.report().engine == test_engine());
        std::vector<double> x = b;
        lu.solve(nrhs, x.data(), n);
        BOOST_TEST(same_bits(x, x0));
        std::vector<double> xr;
        const auto rr = lu.solve_stored(xr, 10);
        BOOST_TEST(same_bits(xr, xref));
        BOOST_TEST(rr.backward_error_after <= 2 * u);
        if (c.cache != 0) {
          const auto& rep = lu.report();
          BOOST_TEST(rep.peak_cache_bytes <= o.cache_bytes);
          BOOST_TEST(rep.cache_misses > 0);
          BOOST_TEST(rep.bytes_written > 0);
        }
        o.resume = true;
        exala::stripe_lu again({d.str()}, o);  // resumes the finished run: no factoring
        BOOST_TEST(again.report().resumed);
        std::vector<double> y = b;
        again.solve(nrhs, y.data(), n);
        BOOST_TEST(same_bits(y, x0));
      }
    }
  }
}

// A run that dies on a full disk at various points resumes to the same bits.
BOOST_AUTO_TEST_CASE(full_disk_then_resume_gives_the_same_bits) {
  temp_dir d("resume");
  const i64 n = 150, S = 16, Sp = 8;
  exala::generate_dense_system({d.str()}, n, 1, 7, 16, 0.0);
  auto o = opts(S, Sp);
  o.order = exala::stripe_order::meta_zigzag;
  o.meta = 2;
  o.cache_bytes = 4 * std::uint64_t(S) * n * 8;
  o.resume = false;
  const auto xref = solve_workdir(d.str(), o, nullptr, nullptr, 5);
  o.resume = true;
  int failures = 0;
  for (std::int64_t budget : {20000, 150000, 400000, 900000}) {
    BOOST_TEST_CONTEXT("fault after " << budget << " bytes") {
      // Fresh start, then a failure, then (possibly several) resumes.
      {
        auto o0 = o;
        o0.resume = false;
        st::inject_write_fault(budget);
        try {
          solve_workdir(d.str(), o0, nullptr, nullptr, 5);
        } catch (const exala::storage_error& e) {
          ++failures;
          BOOST_TEST(std::string(e.what()).find("file") != std::string::npos);
        }
        st::inject_write_fault(-1);
      }
      exala::stripe_lu_report rep;
      auto x = solve_workdir(d.str(), o, nullptr, &rep, 5);
      BOOST_TEST(rep.resumed);
      BOOST_TEST(same_bits(x, xref));
    }
  }
  BOOST_TEST(failures >= 3);
}

// Many I/O threads on a small cache (the CLI's `--io-threads 64 --cache 512K`
// at n = 600): every stripe a compute thread releases is at once a candidate
// for eviction by one of 64 prefetching threads. The sweep once read the
// released stripe's height through its buffer (freed by an I/O thread:
// heap-use-after-free under ASan, a data race under TSan); this case is in
// the default run so that the sanitizer builds exercise that protocol. The
// bits must still be those of the in-core run with the same sizes.
BOOST_AUTO_TEST_CASE(many_io_threads_small_cache) {
  struct cfg {
    i64 n;
    exala::stripe_order order;
    i64 meta;
    std::uint64_t cache;
  };
  for (cfg c : {cfg{600, exala::stripe_order::zigzag, 0, 512 * 1024},  // the CLI's case
                cfg{240, exala::stripe_order::meta_zigzag, 2, 4 * 16 * 240 * 8}}) {  // the minimum
    BOOST_TEST_CONTEXT("n " << c.n << " order " << exala::to_string(c.order) << " cache " << c.cache) {
      temp_dir d("io64");
      exala::generate_dense_system({d.str()}, c.n, 1, 64, 16, 0.0);
      auto o = engine_opts();
      o.order = c.order;
      o.meta = c.meta;
      o.cache_bytes = c.cache;
      o.io_threads = 64;
      o.threads = 1;
      o.stripe = c.meta == 0 ? 0 : 16;  // 0: chosen from the cache (16 here)
      o.checkpoint_interval_s = 0;      // write-behind after every group too
      o.resume = false;
      exala::stripe_lu_report rep;
      exala::refine_report rr;
      const auto x = solve_workdir(d.str(), o, &rr, &rep, 2);
      BOOST_TEST(rep.stripe == 16);
      BOOST_TEST(rep.peak_cache_bytes <= c.cache);
      BOOST_TEST(rr.backward_error_after <= 2 * u);
      // The in-core run with the same (S, S') gives the same bits.
      std::vector<double> a, b;
      i64 nn = 0, nrhs = 0;
      read_system(d.str(), a, b, nn, nrhs);
      exala::stripe_lu ref(c.n, a.data(), c.n, opts(rep.stripe, rep.substripe));
      std::vector<double> xr(b.size());
      ref.solve_refined(1, b.data(), c.n, xr.data(), c.n, 2);
      BOOST_TEST(same_bits(xr, x));
    }
  }
}

BOOST_AUTO_TEST_CASE(corrupted_stripe_file_is_named) {
  temp_dir d("corrupt");
  const i64 n = 90, S = 16;
  exala::generate_dense_system({d.str()}, n, 1, 3, 16, 0.0);
  auto o = opts(S, 8);
  solve_workdir(d.str(), o);
  // Flip one byte in the middle of a factored stripe.
  fs::path victim;
  for (auto& e : fs::directory_iterator(d.path))
    if (e.path().filename().string().rfind("lu_", 0) == 0 && victim.empty()) victim = e.path();
  BOOST_REQUIRE(!victim.empty());
  {
    std::fstream fsx(victim, std::ios::in | std::ios::out | std::ios::binary);
    fsx.seekg(0, std::ios::end);
    const auto size = std::streamoff(fsx.tellg());
    fsx.seekp(size / 2);
    char c = 0;
    fsx.seekg(size / 2);
    fsx.read(&c, 1);
    c = char(c ^ 0x10);
    fsx.seekp(size / 2);
    fsx.write(&c, 1);
  }
  try {
    solve_workdir(d.str(), o);
    BOOST_FAIL("no exception");
  } catch (const exala::storage_error& e) {
    BOOST_TEST(std::string(e.what()).find(victim.filename().string()) != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(bad_parameters) {
  temp_dir d("bad");
  const i64 n = 64;
  exala::generate_dense_system({d.str()}, n, 1, 3, 16, 0.0);
  auto o = opts(16, 8);
  o.cache_bytes = 16 * 64 * 8;  // one stripe
  BOOST_CHECK_THROW(solve_workdir(d.str(), o), exala::invalid_argument);
  o = opts(16, 8);
  o.pivot = exala::pivoting::partial;
  o.cache_bytes = 2 * 16 * 64 * 8;  // < the matrix (32 KiB)
  BOOST_CHECK_THROW(solve_workdir(d.str(), o), exala::invalid_argument);
  // A partial run with other parameters is not silently mixed in.
  o = opts(16, 8);
  solve_workdir(d.str(), o);
  auto o2 = opts(32, 8);
  BOOST_CHECK_THROW(solve_workdir(d.str(), o2), exala::storage_error);
  o2.resume = false;
  BOOST_CHECK_NO_THROW(solve_workdir(d.str(), o2));
  // A new stripe height with S' left to the library does not inherit the
  // journal's S' (32 > 8 would be refused as an argument): the journal
  // mismatch is what gets named.
  auto o3 = opts(8, 0);
  BOOST_CHECK_THROW(solve_workdir(d.str(), o3), exala::storage_error);
  temp_dir empty("empty");
  BOOST_CHECK_THROW(exala::stripe_lu({empty.str()}, opts(16, 8)), exala::storage_error);
  BOOST_CHECK_THROW(exala::stripe_lu(std::vector<std::string>{}, opts(16, 8)), exala::invalid_argument);
}

// Partial pivoting from a work directory runs in core, with the in-core bits.
BOOST_AUTO_TEST_CASE(partial_pivoting_from_a_workdir) {
  temp_dir d("partial");
  const i64 n = 120;
  exala::generate_dense_system({d.str()}, n, 1, 11, 32, 0.0);
  std::vector<double> a, b;
  i64 nn, nrhs;
  read_system(d.str(), a, b, nn, nrhs);
  auto o = opts(32, 16);
  o.pivot = exala::pivoting::partial;
  exala::stripe_lu ref(n, a.data(), n, o);
  std::vector<double> xr(b.size());
  ref.solve_refined(1, b.data(), n, xr.data(), n, 10);
  BOOST_TEST(same_bits(solve_workdir(d.str(), o, nullptr, nullptr, 10), xr));
}

// An ill-conditioned system: refinement brings the backward error to <= 2u
// and the forward error to about cond * u.
BOOST_AUTO_TEST_CASE(ill_conditioned_refinement) {
  temp_dir d("cond");
  const i64 n = 160;
  exala::generate_dense_system({d.str()}, n, 1, 21, 40, 1e10);
  auto o = opts(40, 16);
  o.cache_bytes = 4 * 40 * n * 8;
  exala::refine_report rr;
  auto x = solve_workdir(d.str(), o, &rr, nullptr, 10);
  BOOST_TEST(rr.backward_error_after <= 2 * u);
  BOOST_TEST(rr.backward_error_before >= rr.backward_error_after);
  exala::stripe_system_reader rd({d.str()});
  std::vector<double> xt(static_cast<std::size_t>(n));
  BOOST_REQUIRE(rd.read_xtrue(xt.data(), n));
  BOOST_CHECK_THROW(rd.read_rows(n - 2, 3, xt.data(), 3), exala::invalid_argument);
  BOOST_CHECK_THROW(rd.read_rows(0, 4, xt.data(), 3), exala::invalid_argument);
  BOOST_CHECK_THROW(rd.read_xtrue(xt.data(), n - 1), exala::invalid_argument);
  // b = round(A x_true), so the exact solution is within ~cond * u of x_true.
  BOOST_TEST(max_rel_diff(x, xt) < 1e10 * u * 100);
}

// stripe_system_reader::read_block (exala export reads A by column panels):
// every panel, row range and ld gives the bits of read_rows, across stripe
// files and from two disks; bad arguments name themselves; a damaged chunk
// inside the panel is found.
BOOST_AUTO_TEST_CASE(reader_read_block, *ut::precondition(engine_independent)) {
  temp_dir d1("blk1"), d2("blk2");
  const i64 n = 53;
  exala::generate_dense_system({d1.str(), d2.str()}, n, 2, 17, 8, 0);
  const exala::stripe_system_reader rd({d1.str(), d2.str()});
  std::vector<double> a(std::size_t(n * n));
  rd.read_rows(0, n, a.data(), n);
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  for (const auto& [r0, rows, c0, cols] : std::vector<std::array<i64, 4>>{
           {0, n, 0, n}, {0, n, 0, 1}, {0, n, n - 1, 1}, {5, 20, 7, 13}, {8, 8, 40, 13},
           {51, 2, 0, n}, {0, 1, 30, 23}, {3, 0, 0, n}, {0, n, 9, 0}}) {
    const i64 ld = rows + 3;
    std::vector<double> blk(std::size_t(ld * std::max<i64>(cols, 1)), -7.0);
    rd.read_block(r0, rows, c0, cols, blk.data(), ld);
    for (i64 j = 0; j < cols; ++j)
      for (i64 i = 0; i < ld; ++i) {
        const double got = blk[std::size_t(i + j * ld)];
        if (i < rows)
          BOOST_TEST(bits(got) == bits(a[std::size_t(r0 + i + (c0 + j) * n)]));
        else
          BOOST_TEST(got == -7.0);  // beyond `rows`: untouched
      }
  }
  std::vector<double> blk(std::size_t(n * n));
  BOOST_CHECK_THROW(rd.read_block(-1, 2, 0, 1, blk.data(), n), exala::invalid_argument);
  BOOST_CHECK_THROW(rd.read_block(50, 4, 0, 1, blk.data(), n), exala::invalid_argument);
  BOOST_CHECK_THROW(rd.read_block(0, 2, n, 1, blk.data(), n), exala::invalid_argument);
  BOOST_CHECK_THROW(rd.read_block(0, 2, 50, 4, blk.data(), n), exala::invalid_argument);
  BOOST_CHECK_THROW(rd.read_block(0, 4, 0, 1, blk.data(), 3), exala::invalid_argument);
  BOOST_CHECK_THROW(rd.read_block(0, 4, 0, 1, nullptr, 4), exala::invalid_argument);
  // A flipped byte in the middle of stripe 3 (rows 24..31, in d2): a panel
  // that covers the byte fails naming the file; the other stripes read.
  const std::string f3 = d2.str() + "/orig_3.bin";
  {
    std::fstream f(f3, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto mid = static_cast<std::streamoff>(f.tellg()) / 2;
    char c = 0;
    f.seekg(mid);
    f.read(&c, 1);
    c = static_cast<char>(~c);
    f.seekp(mid);
    f.write(&c, 1);
  }
  BOOST_CHECK_THROW(rd.read_block(0, n, 0, n, blk.data(), n), exala::storage_error);
  BOOST_CHECK_NO_THROW(rd.read_block(0, 24, 0, n, blk.data(), n));
}

// store_stripe_solution / read_solution (exala solve --workdir stores each
// accepted solution, exala export solution reads it): none at first; every
// bit back (-0, subnormals); replaced whole; kept by a new factorization,
// removed by a new system; one copied in from another set is refused.
BOOST_AUTO_TEST_CASE(stored_solution, *ut::precondition(engine_independent)) {
  temp_dir d1("sol1"), d2("sol2"), other("sol_other");
  const i64 n = 21, nrhs = 2;
  exala::generate_dense_system({d1.str(), d2.str()}, n, nrhs, 3, 8, 0);
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  std::vector<double> x(std::size_t(n * nrhs)), back(x.size(), 1.0);
  {
    const exala::stripe_system_reader rd({d1.str(), d2.str()});
    BOOST_TEST(!rd.read_solution(back.data(), n));
  }
  for (i64 k = 0; k < n * nrhs; ++k) x[std::size_t(k)] = std::ldexp(double(k) - 20.0, -1060 + int(k) * 50);
  x[0] = -0.0;
  x[1] = 0x1p-1074;
  x[2] = std::nextafter(0x1p-1022, 0.0);
  const i64 ldx = n + 2;  // ld > n: the gaps are not stored
  std::vector<double> xs(std::size_t(ldx * nrhs), 99.0);
  for (i64 j = 0; j < nrhs; ++j)
    for (i64 i = 0; i < n; ++i) xs[std::size_t(i + j * ldx)] = x[std::size_t(i + j * n)];
  exala::store_stripe_solution({d1.str(), d2.str()}, xs.data(), ldx);
  BOOST_TEST(std::filesystem::exists(d1.str() + "/solution.bin"));
  BOOST_TEST(!std::filesystem::exists(d2.str() + "/solution.bin"));
  {
    const exala::stripe_system_reader rd({d1.str(), d2.str()});
    BOOST_REQUIRE(rd.read_solution(back.data(), n));
    for (std::size_t k = 0; k < x.size(); ++k) BOOST_TEST(bits(back[k]) == bits(x[k]));
    BOOST_CHECK_THROW(rd.read_solution(back.data(), n - 1), exala::invalid_argument);
  }
  BOOST_CHECK_THROW(exala::store_stripe_solution({d1.str(), d2.str()}, xs.data(), n - 1),
                    exala::invalid_argument);
  BOOST_CHECK_THROW(exala::store_stripe_solution({}, xs.data(), n), exala::invalid_argument);
  // A factorization from the start (resume = false clears the old one): the
  // stored solution stays; a second store replaces it.
  auto o = opts(8, 4);
  o.resume = false;
  {
    const exala::stripe_lu lu({d1.str(), d2.str()}, o);
    std::vector<double> xsol;
    lu.solve_stored(xsol, 0);
    BOOST_TEST(xsol.size() == x.size());
  }
  {
    const exala::stripe_system_reader rd({d1.str(), d2.str()});
    BOOST_REQUIRE(rd.read_solution(back.data(), n));
    BOOST_TEST(bits(back[1]) == bits(0x1p-1074));
  }
  x[1] = 0.5;
  exala::store_stripe_solution({d1.str(), d2.str()}, x.data(), n);
  {
    const exala::stripe_system_reader rd({d1.str(), d2.str()});
    BOOST_REQUIRE(rd.read_solution(back.data(), n));
    BOOST_TEST(back[1] == 0.5);
  }
  // Another set's solution.bin copied in: refused, naming the file.
  exala::generate_dense_system({other.str()}, n, nrhs, 3, 8, 0);
  std::filesystem::copy_file(d1.str() + "/solution.bin", other.str() + "/solution.bin");
  {
    const exala::stripe_system_reader rd({other.str()});
    BOOST_CHECK_EXCEPTION(rd.read_solution(back.data(), n), exala::storage_error,
                          [](const exala::storage_error& e) {
                            return std::string(e.what()).find("belongs to another system") !=
                                   std::string::npos;
                          });
  }
  // A new system in the set: its files replace the old ones, the solution goes.
  exala::generate_dense_system({d1.str(), d2.str()}, n, nrhs, 4, 8, 0, true);
  BOOST_TEST(!std::filesystem::exists(d1.str() + "/solution.bin"));
  const exala::stripe_system_reader rd({d1.str(), d2.str()});
  BOOST_TEST(!rd.read_solution(back.data(), n));
}

BOOST_AUTO_TEST_SUITE_END()

// ------------------------------------------------- the ends of the range

BOOST_AUTO_TEST_SUITE(range, *ut::precondition(has_device()))

// Issue 15, row 1: A = [1 0; 1 4], b = (1e308, -1e308), x = (1e308, -5e307),
// perfectly conditioned. The forward substitution once computed b2 - b1 =
// -inf: `nan -inf` with "backward error 0 (converged)", in core and out of
// core. Now b is scaled by 2^-1023 around the triangular solves.
BOOST_AUTO_TEST_CASE(two_by_two_near_overflow) {
  const i64 n = 2;
  const std::vector<double> a{1, 1, 0, 4};  // column-major
  const std::vector<double> b{1e308, -1e308};
  const std::vector<double> want{1e308, -0.5 * 1e308};  // exact: x2 = (b2 - b1) / 4
  temp_dir d("two");
  write_system(d.str(), n, a, b, 1, 1);
  auto check = [&](const auto& lu, const std::string& what) {
    BOOST_TEST_CONTEXT(what) {
      BOOST_TEST(lu.report().matrix_scale == 0);
      std::vector<double> x = b;
      lu.solve(1, x.data(), n);
      BOOST_TEST(same_bits(x, want));
      std::vector<double> xr(2);
      const auto rr = lu.solve_refined(1, b.data(), n, xr.data(), n, 5);
      BOOST_TEST(same_bits(xr, want));
      BOOST_TEST(rr.converged);
      BOOST_TEST(rr.backward_error_after == 0.0);
      BOOST_TEST(lu.backward_error(1, b.data(), n, want.data(), n) == 0.0);
      // A wrong x: ||A|| ||x|| = 5e308 overflows, which made the backward
      // error 0. r = (0, -4e307): eta = 4e307 / (5 * 1e308 + 1e308).
      const std::vector<double> wrong{1e308, -4e307};
      const double eta = lu.backward_error(1, b.data(), n, wrong.data(), n);
      BOOST_TEST(std::fabs(eta - 4e307 / 1e308 / 6) <= 1e-15 * eta, eta);
    }
  };
  for (auto p : {exala::pivoting::local, exala::pivoting::partial}) {
    if (distributed && p == exala::pivoting::partial) continue;  // local pivoting only
    auto o = opts(1, 1);
    o.pivot = p;
    check(make_lu(n, a.data(), n, o), "in core, " + std::string(exala::to_string(p)));
  }
  if (distributed) return;  // out of core on one process (distributed: suite distributed)
  auto o = opts(1, 1);
  o.cache_bytes = 3 * 16;
  check(exala::stripe_lu({d.str()}, o), "out of core");
  check(exala::stripe_lu({d.str()}, engine_opts()), "out of core, default sizes");
}

// A random system scaled exactly by 2^s (A and b: the same x): the finite
// solution with the bits of the unscaled system, in core and out of core
// (once the factorization gave all NaN with status 0 for 2^1015). With 2^1022
// the stored ||A||_inf overflows (inf in the manifest) and is recomputed.
BOOST_AUTO_TEST_CASE(scaled_random_systems_keep_their_bits) {
  const i64 n = 60, S = 16, Sp = 8, nrhs = 2;
  const auto a0 = random_matrix(n, n, 60);
  const auto b0 = random_matrix(n, nrhs, 61);
  const auto lu0 = make_lu(n, a0.data(), n, opts(S, Sp));
  BOOST_TEST(lu0.report().matrix_scale == 0);
  std::vector<double> x0 = b0, xr0(b0.size());
  lu0.solve(nrhs, x0.data(), n);
  const auto rr0 = lu0.solve_refined(nrhs, b0.data(), n, xr0.data(), n, 10);
  BOOST_TEST(rr0.backward_error_after <= 2 * u);
  for (int s : {1015, 1022, -1000}) {
    BOOST_TEST_CONTEXT("A and b scaled by 2^" << s) {
      BOOST_TEST_REQUIRE(scales_exactly(a0, s));
      BOOST_TEST_REQUIRE(scales_exactly(b0, s));
      const auto as = scaled(a0, s), bs = scaled(b0, s);
      double amax = 0;
      for (double v : as) amax = std::max(amax, std::fabs(v));
      temp_dir d("scaled");
      write_system(d.str(), n, as, bs, nrhs, 20);
      // 2^1022: the stored ||A||_inf overflowed (the factorization recomputes it).
      BOOST_TEST(std::isinf(exala::stripe_system_reader({d.str()}).norm_inf()) == (s == 1022));
      auto o = opts(S, Sp);
      o.cache_bytes = 3 * std::uint64_t(S) * n * 8;  // out of core: evictions
      o.io_threads = 2;
      // In core through the front; out of core on one process.
      auto check_lu = [&](const auto& lu, bool in_core) {
        BOOST_TEST_CONTEXT((in_core ? "in core" : "out of core")) {
          BOOST_TEST(lu.report().matrix_scale == std::ilogb(amax));
          BOOST_TEST(lu.report().min_pivot_ratio == lu0.report().min_pivot_ratio);
          std::vector<double> x = bs;
          lu.solve(nrhs, x.data(), n);
          BOOST_TEST(same_bits(x, x0));  // A x = b scaled on both sides: the same x
          std::vector<double> xr(bs.size());
          const auto rr = lu.solve_refined(nrhs, bs.data(), n, xr.data(), n, 10);
          BOOST_TEST(all_finite(xr));
          if (s > 0) {
            // The residuals are normal doubles too: the refinement takes the
            // same steps to the same bits.
            BOOST_TEST(same_bits(xr, xr0));
            BOOST_TEST(rr.steps == rr0.steps);
            BOOST_TEST(rr.converged);
            if (in_core) BOOST_TEST(rr.backward_error_after == rr0.backward_error_after);
          }
          BOOST_TEST(rr.backward_error_after <= 2 * u);
          BOOST_TEST(rr.backward_error_after > 0.0);
          BOOST_TEST(rr.backward_error_before < 1e-12);
#ifdef EXALA_TEST_HAVE_MPFR
          for (i64 c = 0; c < nrhs; ++c)
            BOOST_TEST(mpfr_backward_error_wide(n, as, bs.data() + c * n, xr.data() + c * n) <= 2 * u);
#endif
          // A wrong x (one entry doubled): a backward error that is neither
          // 0 nor NaN although ||A|| ||x|| overflows (s > 0) or the
          // residual is subnormal (s < 0).
          auto wrong = xr;
          wrong[7] *= 2;
          const double eta = lu.backward_error(1, bs.data(), n, wrong.data(), n);
          BOOST_TEST(std::isfinite(eta));
          BOOST_TEST(eta > 1e-4);
#ifdef EXALA_TEST_HAVE_MPFR
          const double want = mpfr_backward_error_wide(n, as, bs.data(), wrong.data());
          BOOST_TEST(std::fabs(eta - want) <= 1e-3 * want, eta << " vs " << want);
#endif
        }
      };
      check_lu(make_lu(n, as.data(), n, opts(S, Sp)), true);
      if (!distributed) check_lu(exala::stripe_lu({d.str()}, o), false);
    }
  }
  // b alone scaled: x = 2^s x0 (bits) wherever 2^s x0 is exact.
  for (int s : {1000, -1000}) {
    BOOST_TEST_CONTEXT("b scaled by 2^" << s) {
      std::vector<double> x = scaled(b0, s);
      lu0.solve(nrhs, x.data(), n);
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::ldexp(std::ldexp(x0[i], s), -s) == x0[i])
          BOOST_TEST(x[i] == std::ldexp(x0[i], s));
        else  // rounded once into the subnormals
          BOOST_TEST(std::fabs(x[i] - std::ldexp(x0[i], s)) <= std::numeric_limits<double>::denorm_min());
      }
    }
  }
}

// A solution beyond the double range is an error naming the column and the
// row (never inf or NaN with success); one in range near its ends is given.
BOOST_AUTO_TEST_CASE(unrepresentable_solution_is_an_error) {
  const i64 n = 3;
  const double t = std::ldexp(1.0, -1000);
  const std::vector<double> a{t, 0, 0, 0, t, 0, 0, 0, t};  // 2^-1000 I: scaled to I
  temp_dir d("over");
  const std::vector<double> b{1, 2, 3, 4, 1e300, 5};  // column 1, row 1: 2^1000 1e300
  write_system(d.str(), n, a, b, 2, 2);
  // In core through the front; out of core on one process.
  auto check = [&](const auto& lu, bool in_core) {
    BOOST_TEST(lu.report().matrix_scale == -1000);
    std::vector<double> x = b;
    try {
      lu.solve(2, x.data(), n);
      BOOST_FAIL("no exception");
    } catch (const exala::solution_overflow& e) {
      BOOST_TEST(e.column() == 1);
      BOOST_TEST(e.row() == 1);
      BOOST_TEST(std::string(e.what()).find("exceeds the double range") != std::string::npos, e.what());
    }
    std::vector<double> xr(b.size());
    BOOST_CHECK_THROW(lu.solve_refined(2, b.data(), n, xr.data(), n, 3), exala::solution_overflow);
    std::vector<double> xs;
    if (!in_core) BOOST_CHECK_THROW(lu.solve_stored(xs, 3), exala::solution_overflow);
    // Near the top of the range: exact.
    std::vector<double> y{std::ldexp(1.0, 23), -std::ldexp(1.5, 20), 1};
    lu.solve(1, y.data(), n);
    BOOST_TEST(y[0] == std::ldexp(1.0, 1023));
    BOOST_TEST(y[1] == -std::ldexp(1.5, 1020));
    BOOST_TEST(y[2] == std::ldexp(1.0, 1000));
    // NaN in b: NaN out, as IEEE arithmetic (not an error).
    std::vector<double> z{std::nan(""), 1, 1};
    lu.solve(1, z.data(), n);
    BOOST_TEST(std::isnan(z[0]));
  };
  check(make_lu(n, a.data(), n, opts(2, 1)), true);
  if (!distributed) check(exala::stripe_lu({d.str()}, opts(2, 1)), false);
}

// A pivot error of a scaled matrix reports the pivot and the threshold of A
// itself: A = 2^1015 [1 0; 0 2^-60] has |u_22| = 2^955 <= 2 u 2^1015.
BOOST_AUTO_TEST_CASE(pivot_errors_in_the_units_of_a) {
  const double big = std::ldexp(1.0, 1015);
  const std::vector<double> a{big, 0, 0, std::ldexp(big, -60)};
  for (auto p : {exala::pivoting::local, exala::pivoting::partial}) {
    if (distributed && p == exala::pivoting::partial) continue;  // local pivoting only
    auto o = opts(2, 1);
    o.pivot = p;
    try {
      make_lu(2, a.data(), 2, o);
      BOOST_FAIL("no exception");
    } catch (const exala::singular_pivot& e) {
      BOOST_TEST(e.column() == 1);
      BOOST_TEST(e.value() == std::ldexp(1.0, 955));
      BOOST_TEST(std::string(e.what()).find("numerically singular") != std::string::npos, e.what());
      // The default threshold n u max |a_ij| = 2^963 = 7.79625e+289.
      BOOST_TEST(std::string(e.what()).find("threshold 7.79625e+289") != std::string::npos, e.what());
    }
  }
}

// The backward error from its parts, against the same ratio in long double
// (15-bit exponent: no overflow or underflow at these magnitudes).
BOOST_AUTO_TEST_CASE(backward_error_is_scaled, *ut::precondition(engine_independent)) {
  auto eta_of = [](double rn, double norm, int norm_exp, double xn, double bn) {
    const double r[1] = {rn}, x[1] = {xn}, b[1] = {bn};
    return st::backward_error(1, 1, b, 1, x, 1, r, norm, norm_exp);
  };
  auto wide = [](double rn, double norm, int norm_exp, double xn, double bn) {
    const long double den = std::ldexp((long double)norm, norm_exp) * (long double)xn + (long double)bn;
    return double((long double)rn / den);
  };
  const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::min();
  struct cas {
    double rn, norm;
    int e;
    double xn, bn;
  };
  for (cas c : {cas{1e300, 1e300, 0, 1e300, 1e300}, cas{1e-300, 1e-300, 0, 1e-300, 0},
                cas{1e300, 1.5, 1000, 1e300, 0}, cas{1e-310, 1, 0, 1e-300, 1e-300},
                cas{3e-320, 0.75, -1070, 1, 0}, cas{big, big, 0, big, big},
                cas{1e-10, 2, 1020, 1e10, 1e300}}) {
    BOOST_TEST_CONTEXT(c.rn << " / (" << c.norm << " 2^" << c.e << " " << c.xn << " + " << c.bn << ")") {
      const double got = eta_of(c.rn, c.norm, c.e, c.xn, c.bn), want = wide(c.rn, c.norm, c.e, c.xn, c.bn);
      BOOST_TEST(std::isfinite(got));
      BOOST_TEST(got > 0.0);
      if (want >= tiny) BOOST_TEST(std::fabs(got - want) <= 4 * u * want, got << " vs " << want);
    }
  }
  // Ordinary values: the formula as written (the bits refinement always used).
  BOOST_TEST(eta_of(1e-17, 3.5, 0, 2.25, 0.75) == 1e-17 / (3.5 * 2.25 + 0.75));
  // Far below the smallest subnormal: the smallest subnormal, never 0.
  BOOST_TEST(eta_of(std::numeric_limits<double>::denorm_min(), big, 0, big, 0) ==
             std::numeric_limits<double>::denorm_min());
  BOOST_TEST(eta_of(0, big, 0, big, big) == 0.0);  // an exact x
  BOOST_TEST(std::isinf(eta_of(1, 0, 0, 0, 0)));  // a zero denominator
  BOOST_TEST(std::isinf(eta_of(1, 1, 0, std::numeric_limits<double>::infinity(), 1)));
  BOOST_TEST(std::isnan(eta_of(std::nan(""), 1, 0, 1, 1)));
  // A NaN anywhere in r counts (std::max once skipped it: a NaN residual gave 0).
  const double r[2] = {0.0, std::nan("")}, x[2] = {1, 1}, b[2] = {1, 1};
  BOOST_TEST(std::isnan(st::backward_error(2, 1, b, 2, x, 2, r, 1.0)));
}

// refine_report.converged is true only for a backward error at the level of
// a correctly rounded x: a correction that changes no bit once counted as
// convergence whatever the error (a wrong factorization, here "solves" that
// return b and then zero corrections for A = 2 I: backward error 1/3).
BOOST_AUTO_TEST_CASE(refinement_reports_convergence_honestly, *ut::precondition(engine_independent)) {
  const i64 n = 2;
  const std::vector<double> b{1.0, -3.0};
  int calls = 0;
  st::refine_ops ops;
  ops.solve = [&](i64 k, double* y, i64 ldy) {
    if (calls++ > 0)  // the corrections
      for (i64 c = 0; c < k; ++c)
        for (i64 i = 0; i < n; ++i) y[i + c * ldy] = 0.0;
  };
  ops.residual = [&](const double* x, i64, double* r) {
    for (i64 i = 0; i < n; ++i) r[i] = b[std::size_t(i)] - 2.0 * x[i];
  };
  ops.scale.norm = 2.0;
  std::vector<double> x(2);
  const auto rr = st::refine_loop(n, 1, b.data(), n, x.data(), n, 5, ops, exala::stripe_lu_options{}, nullptr);
  BOOST_TEST(calls == 2);
  BOOST_TEST(rr.backward_error_after == 1.0 / 3.0);
  BOOST_TEST(!rr.converged);
}

BOOST_AUTO_TEST_SUITE_END()

// Longer: a bigger system, more configurations and more failure points.
BOOST_AUTO_TEST_CASE(long_sweep_bits_and_resume,
                     *ut::label("long") * ut::precondition(has_device()) * ut::precondition(one_process)) {
  temp_dir d("long");
  const i64 n = 611, S = 50, Sp = 16;
  exala::generate_dense_system({d.str()}, n, 3, 99, 64, 0.0);
  std::vector<double> a, b;
  i64 nn = 0, nrhs = 0;
  read_system(d.str(), a, b, nn, nrhs);
  exala::stripe_lu ref(n, a.data(), n, opts(S, Sp));
  std::vector<double> xref(b.size());
  ref.solve_refined(nrhs, b.data(), n, xref.data(), n, 10);
  const std::uint64_t sb = std::uint64_t(S) * n * 8;
  for (auto order : {exala::stripe_order::basic, exala::stripe_order::zigzag,
                     exala::stripe_order::meta_zigzag})
    for (std::uint64_t cache : {3 * sb, 6 * sb, 11 * sb}) {
      auto o = opts(S, Sp);
      o.order = order;
      o.meta = order == exala::stripe_order::meta_zigzag ? i64(cache / sb - 2) : 0;
      o.cache_bytes = cache;
      o.resume = false;
      BOOST_TEST(same_bits(solve_workdir(d.str(), o, nullptr, nullptr, 10), xref),
                 exala::to_string(order) << " cache " << cache);
      o.resume = true;
      for (std::int64_t budget : {1000000, 3000000, 7000000}) {
        st::inject_write_fault(budget);
        try {
          auto o0 = o;
          o0.resume = false;
          solve_workdir(d.str(), o0, nullptr, nullptr, 10);
        } catch (const exala::storage_error&) {
        }
        st::inject_write_fault(-1);
        BOOST_TEST(same_bits(solve_workdir(d.str(), o, nullptr, nullptr, 10), xref),
                   exala::to_string(order) << " cache " << cache << " fault " << budget);
      }
    }
}

// ------------------------------------------------- distributed vs one process
//
// The distributed LU (exala::mpi::stripe_lu) against the one-process
// exala::stripe_lu on the same engine, bit for bit, on every rank, and the
// ranks' agreement on every error. Two groups:
//
// Engine cases (suite distributed/on_engine, label `engine`): solves one
// column per call and all together, refined solutions and their reports,
// the backward error, the stored system's refined solution; in memory (pivot
// groups of 1, 3, the default and every stripe at once, a graded
// ill-conditioned matrix) and out of core (small caches that evict,
// meta-zigzag groups, S chosen from the cache, a finished run found again, a
// run cut by a write fault and resumed); systems scaled near the ends of the
// double range. A zero pivot on rank 1's stripe gives the single process's
// singular_pivot on every rank. The fake device runs the device driver path
// of the distributed LU (slots, groups, uploads of the broadcast pivots,
// sweeps, resume) in CI at small sizes; the CUDA build runs -np 1 and 2
// (ranks may share one GPU), n up to 2000, where `every_rank_has_a_device`
// says why the cases fail on a machine without one (no hang, no crash).
//
// CPU-only cases (test_mpi_stripe_lu only; the device builds skip them,
// saying why): the factors' effect (solves of several right-hand sides, one
// column per call and together), the unrefined and the refined solutions
// with their refine reports, the backward error; in memory and out of core
// (against the single process in core and out of core with the same S, S');
// sizes 0, 1, < S, not a multiple of S, fewer stripes than ranks;
// meta-zigzag groups; a cache small enough to evict; generated well- and
// ill-conditioned systems. Errors: a zero pivot on any stripe gives
// singular_pivot (same message as one process) on every rank; a bad or
// mismatched argument on one rank gives the named error there and
// remote_error elsewhere; a failed sweep or a write fault on one rank
// mid-factorization makes every rank throw, and the rerun resumes with the
// bits of an uninterrupted run; "engine cuda not compiled in" where no CUDA
// engine is registered.
#ifdef EXALA_TEST_MPI
namespace t = exala_mpi_test;

BOOST_AUTO_TEST_SUITE(distributed)

namespace {

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

// The pivot stripes factored ahead (stripe_lu_report::lookahead): in memory
// one on the CPU engine; out of core (cache_bytes of rp's run), with more
// than one rank on the CPU engine, up to meta members of a group, as many as
// the cache holds beside the group's own pivots and all of the rank's
// stripes, the fewest over the ranks; none on a device engine.
i64 expected_lookahead(const exala::stripe_lu_report& rp, std::uint64_t cache_bytes) {
  if (on_device) return 0;
  if (rp.in_core) return 1;
  const int P = t::size();
  if (P == 1) return 0;
  if (cache_bytes == 0) return rp.meta;
  const std::uint64_t row_bytes = std::uint64_t(rp.n) * 8u, stripe_bytes = std::uint64_t(rp.stripe) * row_bytes;
  const i64 N = (rp.n + rp.stripe - 1) / rp.stripe;
  i64 fewest = rp.meta;
  for (int r = 0; r < P; ++r) {
    std::uint64_t own = std::uint64_t(rp.meta) * stripe_bytes;
    for (i64 I = r; I < N; I += P) own += std::uint64_t(std::min(rp.stripe, rp.n - I * rp.stripe)) * row_bytes;
    fewest = std::min<i64>(fewest, cache_bytes <= own ? 0 : i64((cache_bytes - own) / stripe_bytes));
  }
  return fewest;
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
      BOOST_TEST(rp.lookahead == expected_lookahead(rp, 0));
      BOOST_TEST(same_bits(rp.min_pivot_ratio, want_rep.min_pivot_ratio));
    }
  });
  // In place: the caller's stripes factored where they are, A's rows given
  // again for the residual; the same bits and report.
  run(what + ": in place", [&] {
    exala::mpi::local_stripes a = t::local_copy(A, n, opt);
    const device_use use;
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, std::move(a), opt);
    use.check(what + ": in place", t::rank() * want_rep.stripe < n);
    check_same(solve_all(t::given_rows{lu, rows_of(A, n)}, n, B, 2), want, what + ": in place");
    const auto& rp = lu.report();
    BOOST_TEST_CONTEXT(what << ": in place, report on rank " << t::rank()) {
      BOOST_TEST(a.count() == 0);
      BOOST_TEST(rp.in_core);
      BOOST_TEST(rp.stripe == want_rep.stripe);
      BOOST_TEST(rp.matrix_scale == want_rep.matrix_scale);
      BOOST_TEST(rp.lookahead == expected_lookahead(rp, 0));
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
      BOOST_TEST(rp.lookahead == expected_lookahead(rp, opt.cache_bytes));
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
// Returns the run's lookahead.
i64 check_out_of_core(const ooc_case& c) {
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
    BOOST_TEST(rp.lookahead == expected_lookahead(rp, c.opt.cache_bytes));
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
  return rp.lookahead;
}

}  // namespace

// Ranks that call different routines of the distributed LU (or another
// collective of the layer) fail at their first agreement, on every rank and
// with the routine named, instead of pairing unrelated collectives (a hang
// or an MPI abort before): issue 15, "one agreement step before every
// collective".
// The in-place constructor (exala::mpi::local_stripes): the layout it hands
// out, what it refuses (each error on every rank, naming the argument), and
// the rows it is given again for the residual.
BOOST_AUTO_TEST_CASE(in_place_layout_and_bad_input, *ut::precondition(cpu_only)) {
  const int P = t::size(), me = t::rank();
  const i64 n = 30, S = 8, N = 4;
  const auto A = test_matrix(n, 23);
  const auto opt = base_options(S, 4);
  // The layout: stripe J = me + k P, rows [J S, J S + rows), zero-filled.
  {
    exala::mpi::local_stripes a(MPI_COMM_WORLD, n, opt);
    BOOST_TEST(a.n() == n);
    BOOST_TEST(a.stripe_height() == S);
    BOOST_TEST(a.count() == (N - me + P - 1) / P);
    for (i64 k = 0; k < a.count(); ++k) {
      BOOST_TEST(a.index(k) == me + k * P);
      BOOST_TEST(a.first_row(k) == (me + k * P) * S);
      BOOST_TEST(a.rows(k) == std::min(S, n - a.first_row(k)));
      BOOST_TEST(std::all_of(a.data(k), a.data(k) + a.rows(k) * n, [](double v) { return v == 0.0; }));
    }
    BOOST_CHECK_THROW(a.data(a.count()), std::out_of_range);
    BOOST_CHECK_THROW(a.rows(-1), std::out_of_range);
    // The default height is the in-memory constructor's.
    exala::mpi::local_stripes d(MPI_COMM_WORLD, 5000, {});
    BOOST_TEST(d.stripe_height() == exala::default_stripe_height(5000));
    // n = 0: no stripes; the solver factors nothing and leaves b alone.
    exala::mpi::local_stripes z(MPI_COMM_WORLD, 0, base_options(0, 0));
    BOOST_TEST(z.count() == 0);
    exala::mpi::stripe_lu lu(MPI_COMM_WORLD, std::move(z), base_options(0, 0));
    BOOST_TEST(lu.n() == 0);
    std::vector<double> b{1.0, 2.0};
    lu.solve(2, b.data(), 1);
    BOOST_TEST((b[0] == 1.0 && b[1] == 2.0));
  }
  BOOST_TEST(outcome([&] { exala::mpi::local_stripes a(MPI_COMM_WORLD, -1, opt); }) == "arg:n");
  BOOST_TEST(outcome([&] { exala::mpi::local_stripes a(MPI_COMM_NULL, n, opt); }) == "arg:comm");
  auto partial = opt;
  partial.pivot = exala::pivoting::partial;
  BOOST_TEST(outcome([&] { exala::mpi::local_stripes a(MPI_COMM_WORLD, n, partial); }) == "arg:pivot");
  BOOST_TEST(outcome([&] {
               exala::mpi::local_stripes a(MPI_COMM_WORLD, n, opt);
               a.fill({});
             }) == (me < N ? "arg:rows" : "ok"));

  // Refused on every rank: stripes of another height, storage made for
  // another communicator, storage already consumed.
  {
    auto other = opt;
    other.stripe = 2 * S;
    auto a = t::local_copy(A, n, opt);
    BOOST_TEST(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, std::move(a), other); }) == "arg:a");
    BOOST_TEST(a.count() == 0);  // consumed by the failed call
    BOOST_TEST(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, std::move(a), opt); }) == "arg:a");
  }
  if (P > 1) {
    exala::mpi::local_stripes a(MPI_COMM_SELF, n, opt);
    BOOST_TEST(outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, std::move(a), opt); }) == "arg:a");
  }
  // A NaN in stripe 0 (rank 0's): named there, the others hear of it.
  {
    auto B = A;
    B[std::size_t(3 + 7 * n)] = NAN;
    auto a = t::local_copy(B, n, opt);
    const std::string got = outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, std::move(a), opt); });
    BOOST_TEST(got == (me == 0 ? "arg:a" : "remote:0"), got);
  }

  // The residual's rows: required in place, refused for an object keeping
  // A, checked against the stripes that were factored.
  exala::mpi::stripe_lu lu(MPI_COMM_WORLD, t::local_copy(A, n, opt), opt);
  exala::mpi::stripe_lu kept(MPI_COMM_WORLD, n, rows_of(A, n), opt);
  const auto b = test_rhs(n, 1, 5);
  std::vector<double> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  BOOST_TEST(outcome([&] { lu.solve_refined(1, b.data(), n, x.data(), n, 10); }) == "arg:solve_refined");
  BOOST_TEST(outcome([&] { lu.backward_error(1, b.data(), n, b.data(), n); }) == "arg:backward_error");
  BOOST_TEST(outcome([&] { kept.solve_refined(1, b.data(), n, x.data(), n, rows_of(A, n), 10); }) == "arg:a");
  BOOST_TEST(outcome([&] { kept.backward_error(1, b.data(), n, b.data(), n, rows_of(A, n)); }) == "arg:a");
  BOOST_TEST(outcome([&] { lu.solve_refined(1, b.data(), n, x.data(), n, {}, 10); }) ==
             (me < N ? "arg:a" : "remote:0"));
  // One entry of stripe N - 1 (rank (N - 1) % P's) differs by one ulp.
  {
    auto C = A;
    double& v = C[std::size_t((N - 1) * S + 1 + 2 * n)];
    v = std::nextafter(v, 1.0);
    const int owner = int((N - 1) % P);
    const std::string got = outcome([&] { lu.solve_refined(1, b.data(), n, x.data(), n, rows_of(C, n), 10); });
    BOOST_TEST(got == (me == owner ? "arg:a" : "remote:" + std::to_string(owner)), got);
  }
  // With the right rows: the bits of the object that kept A.
  const auto r1 = lu.solve_refined(1, b.data(), n, x.data(), n, rows_of(A, n), 10);
  const auto r2 = kept.solve_refined(1, b.data(), n, y.data(), n, 10);
  BOOST_TEST(same_bits(x, y));
  BOOST_TEST(r1.steps == r2.steps);
  BOOST_TEST(same_bits(r1.backward_error_after, r2.backward_error_after));
  BOOST_TEST(same_bits(lu.backward_error(1, b.data(), n, x.data(), n, rows_of(A, n)),
                       kept.backward_error(1, b.data(), n, y.data(), n)));
}

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
  // Meta-zigzag groups of 3, S = 16, S' = 8, a cache of `stripes` stripes of
  // n columns, a checkpoint after every group.
  auto meta3 = [](i64 n, std::uint64_t stripes) {
    auto o = base_options(16, 8);
    o.order = exala::stripe_order::meta_zigzag;
    o.meta = 3;
    o.cache_bytes = stripes * 16 * std::uint64_t(n) * 8;
    o.checkpoint_interval_s = 0;
    return o;
  };
  // A cache of 5 stripes: evictions.
  check_out_of_core(ooc_case{130, 1, 25, 0, meta3(130, 5), "n = 130, meta 3, small cache"});
  // A cache of 20 stripes: with more ranks, each group's three members are
  // factored during the previous group's sweep (lookahead 3).
  BOOST_TEST(check_out_of_core(ooc_case{200, 1, 25, 0, meta3(200, 20), "n = 200, meta 3, lookahead 3"}) ==
             (t::size() > 1 ? 3 : 0));
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
    BOOST_TEST(lu.report().lookahead == expected_lookahead(lu.report(), opt.cache_bytes));
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
  auto w = z;
  w.cache_bytes = 8ull * 16 * 128 * 8;  // lookahead 2 with more ranks
  check_interrupted(w, 128, 32, "meta 2, lookahead 2");
}

// ------------------------------------------------------------------ long

// A progress callback that throws on one rank (a user cancelling the run
// there) ends the call on every rank, as a failed step does: that rank
// throws the callback's exception, the others remote_error naming it. No
// rank is left waiting, and the ranks stay in step for the next call.
// Thrown in the factorization (in memory at the first report, at a middle
// step and at the last one; out of core at a group boundary) and in the
// refinement; on the build's engine (the device builds: the device loops).
BOOST_AUTO_TEST_CASE(throwing_progress_callback_fails_every_rank) {
  const i64 n = 40, S = 8;  // 5 stripes
  const auto A = test_matrix(n, 15);
  const auto B = test_rhs(n, 1, 16);
  const int P = t::size(), me = t::rank();
  // Options whose callback throws on rank `bad` once `phase` reaches `step`.
  auto cancelling = [&](int bad, const std::string& phase, i64 step) {
    auto o = engine_options(S, 4);
    o.progress_interval_s = 0;
    if (me == bad)
      o.on_progress = [phase, step](const exala::stripe_lu_progress& p) {
        if (p.phase == phase && p.step >= step)
          throw std::runtime_error("cancelled in " + p.phase + " at step " + std::to_string(p.step));
      };
    return o;
  };
  auto want = [&](int bad, const std::string& phase, i64 step) {
    return me == bad ? "other:cancelled in " + phase + " at step " + std::to_string(step)
                     : "remote:" + std::to_string(bad);
  };
  for (int bad = 0; bad < P; ++bad) {
    for (const i64 step : {0, 2, 5}) {
      const auto o = cancelling(bad, "factor", step);
      const std::string got = outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), o); });
      BOOST_TEST(got == want(bad, "factor", step),
                 "in memory, step " << step << ", bad rank " << bad << ", rank " << me << ": " << got);
      check_still_in_step(n, A, engine_options(S, 4), "factor step " + std::to_string(step));
    }
    {
      const auto o = cancelling(bad, "refine", 1);
      std::string got;
      {
        exala::mpi::stripe_lu lu(MPI_COMM_WORLD, n, rows_of(A, n), o);
        std::vector<double> x(static_cast<std::size_t>(n));
        got = outcome([&] { lu.solve_refined(1, B.data(), n, x.data(), n, 5); });
      }
      BOOST_TEST(got == want(bad, "refine", 1), "refine, bad rank " << bad << ", rank " << me << ": " << got);
      check_still_in_step(n, A, engine_options(S, 4), "refine");
    }
    for (const i64 step : {0, 2, 5}) {  // groups of one stripe: 5 groups
      temp_dir tmp("progress");
      BOOST_TEST_REQUIRE(generate(tmp.sub("sys"), n, 1, 5, S, 0));
      const std::vector<std::string> sys{tmp.sub("sys")};
      auto o = cancelling(bad, "factor", step);
      o.cache_bytes = 3ull * S * n * 8;
      o.checkpoint_interval_s = 0;
      const std::string got =
          outcome([&] { exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("w"), o); });
      BOOST_TEST(got == want(bad, "factor", step),
                 "out of core, step " << step << ", bad rank " << bad << ", rank " << me << ": " << got);
      // The interrupted run resumes to the bits of one process.
      auto ok = engine_options(S, 4);
      ok.cache_bytes = o.cache_bytes;
      ok.checkpoint_interval_s = 0;
      std::vector<double> A2(std::size_t(n * n));
      exala::stripe_system_reader(sys).read_rows(0, n, A2.data(), n);
      exala::stripe_lu ref(n, A2.data(), n, ok);
      exala::mpi::stripe_lu lu(MPI_COMM_WORLD, sys, tmp.rank_dir("w"), ok);
      std::vector<double> x = B, y = B;
      ref.solve(1, x.data(), n);
      lu.solve(1, y.data(), n);
      BOOST_TEST(same_bits(x, y), "out of core resumed after the cancel, rank " << me);
    }
  }
}

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

BOOST_AUTO_TEST_SUITE_END()  // distributed
#endif  // EXALA_TEST_MPI
