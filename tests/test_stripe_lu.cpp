// tests/test_stripe_lu.cpp - the stripe LU solver end to end: the host cache
// (budget, states, eviction with write-back, prefetch), in-core and
// out-of-core factorizations and solves, reproducibility, refinement,
// resume after a failure, corrupted files and bad parameters.
//
// Oracles:
//  * LAPACK dgesv_ (the solution agrees within a bound set by the condition
//    number estimated by dgecon_), and the exact residual computed in MPFR
//    (independent of exala::gemv) for the refined backward error <= 2u;
//  * bit equality between configurations that must give the same bits:
//    in core vs out of core, every cache size (down to the minimum), order,
//    meta-stripe count, thread count, I/O-thread count, and a run that failed
//    (injected full disk) and was resumed.
#define BOOST_TEST_MODULE exala_stripe_lu
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "stripe/cache.hpp"
#include "stripe/store.hpp"
#include "stripe_test_common.hpp"

BOOST_TEST_DONT_PRINT_LOG_VALUE(exala::detail::stripe::stripe_state)

namespace st = exala::detail::stripe;

namespace {

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

exala::stripe_lu_options opts(i64 S, i64 Sp) {
  exala::stripe_lu_options o;
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

}  // namespace

// ------------------------------------------------------------- the cache

BOOST_AUTO_TEST_SUITE(cache)

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
      b.data.reset(new double[std::size_t(len)]);
      auto it = disk.find(i);
      for (i64 j = 0; j < len; ++j) b.data[std::size_t(j)] = it == disk.end() ? double(i) : it->second[std::size_t(j)];
      b.version = b.disk_version = 0;
    };
    cb.flush = [this](i64 i, const st::cache_buffer& b) {
      ++flushes;
      disk[i].assign(b.data.get(), b.data.get() + len);
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
      BOOST_TEST(b.data[0] == double(i));
      b.data[0] = 100.0 + double(i);
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
    BOOST_TEST(b0.data[0] == 100.0);
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

// --------------------------------------------------------------- in core

BOOST_AUTO_TEST_SUITE(in_core)

BOOST_AUTO_TEST_CASE(matches_dgesv_and_refines_to_2u) {
  struct cfg {
    i64 n, S, Sp;
    exala::pivoting p;
  };
  for (cfg c : {cfg{1, 1, 1, exala::pivoting::local}, cfg{7, 3, 2, exala::pivoting::local},
                cfg{100, 32, 7, exala::pivoting::local}, cfg{257, 64, 24, exala::pivoting::local},
                cfg{300, 96, 40, exala::pivoting::partial}, cfg{600, 128, 48, exala::pivoting::local},
                cfg{600, 100, 30, exala::pivoting::partial}}) {
    BOOST_TEST_CONTEXT("n " << c.n << " S " << c.S << " S' " << c.Sp << " pivot "
                            << exala::to_string(c.p)) {
      const i64 nrhs = 2;
      auto a = random_matrix(c.n, c.n, unsigned(c.n));
      auto b = random_matrix(c.n, nrhs, unsigned(c.n) + 7);
      auto o = opts(c.S, c.Sp);
      o.pivot = c.p;
      exala::stripe_lu lu(c.n, a.data(), c.n, o);
      std::vector<double> x = b;
      lu.solve(nrhs, x.data(), c.n);
      const auto ref = dgesv(c.n, a, b, nrhs);
      // Random uniform matrices of these sizes have cond_inf < 1e6: both
      // solutions are within ~cond * n * u * growth of the truth.
      BOOST_TEST(max_rel_diff(x, ref) < 1e-6);
      std::vector<double> xr(b.size());
      const auto rr = lu.solve_refined(nrhs, b.data(), c.n, xr.data(), c.n, 10);
      BOOST_TEST(rr.backward_error_after <= 2 * u);
      BOOST_TEST(rr.backward_error_after <= rr.backward_error_before);
      BOOST_TEST(max_rel_diff(xr, ref) < 1e-6);
#ifdef EXALA_TEST_HAVE_MPFR
      for (i64 k = 0; k < nrhs; ++k)
        BOOST_TEST(mpfr_backward_error(c.n, a, b.data() + k * c.n, xr.data() + k * c.n) <= 2 * u);
#endif
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
    exala::stripe_lu lu(n, a.data(), n, o);
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
    auto o = opts(16, 8);
    o.pivot = p;
    try {
      exala::stripe_lu lu(n, a.data(), n, o);
      BOOST_FAIL("no exception");
    } catch (const exala::singular_pivot& e) {
      BOOST_TEST(e.column() == 17);
    }
  }
  auto good = random_matrix(n, n, 10);
  auto bad = [&](exala::stripe_lu_options o, const char* arg) {
    try {
      exala::stripe_lu lu(n, good.data(), n, o);
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
  o = opts(16, 8);
  o.engine = "cuda";
  bad(o, "engine");
  o = opts(16, 8);
  o.pivot_threshold = std::nan("");
  bad(o, "pivot_threshold");
  BOOST_CHECK_THROW(exala::stripe_lu(n, good.data(), n - 1, {}), exala::invalid_argument);
  BOOST_CHECK_THROW(exala::stripe_lu(-1, good.data(), 1, {}), exala::invalid_argument);
  good[5] = std::numeric_limits<double>::infinity();
  BOOST_CHECK_THROW(exala::stripe_lu(n, good.data(), n, {}), exala::invalid_argument);
}

// An empty system (n = 0) factors, solves, refines and measures nothing, with
// no argument error (the residual once called gemv with lda = 0).
BOOST_AUTO_TEST_CASE(empty_system) {
  const double none = 0;
  double b = 1, x = 7;
  exala::stripe_lu lu(0, &none, 1, {});
  BOOST_TEST(lu.n() == 0);
  lu.solve(1, &b, 1);
  const auto rr = lu.solve_refined(1, &b, 1, &x, 1, 5);
  BOOST_TEST(rr.steps == 0);
  BOOST_TEST(lu.backward_error(1, &b, 1, &x, 1) == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()

// ----------------------------------------------------------- out of core

BOOST_AUTO_TEST_SUITE(out_of_core)

// Every configuration gives the in-core bits.
BOOST_AUTO_TEST_CASE(bits_equal_in_core_for_every_cache_order_and_meta) {
  temp_dir d("cfg");
  const i64 n = 203, S = 24, Sp = 10;
  exala::generate_dense_system({d.str()}, n, 2, 42, 50, 0.0);
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
  struct cfg {
    exala::stripe_order order;
    i64 meta;
    std::uint64_t cache;
    int threads, io;
  };
  for (cfg c : {cfg{exala::stripe_order::basic, 0, 0, 2, 2},
                cfg{exala::stripe_order::basic, 0, 3 * stripe_bytes, 1, 0},
                cfg{exala::stripe_order::zigzag, 0, 3 * stripe_bytes, 2, 2},
                cfg{exala::stripe_order::zigzag, 0, 5 * stripe_bytes, 3, 1},
                cfg{exala::stripe_order::meta_zigzag, 2, 4 * stripe_bytes, 2, 2},
                cfg{exala::stripe_order::meta_zigzag, 3, 6 * stripe_bytes, 1, 3},
                cfg{exala::stripe_order::meta_zigzag, 9, 0, 2, 2}}) {
    BOOST_TEST_CONTEXT("order " << exala::to_string(c.order) << " meta " << c.meta << " cache "
                                << c.cache << " threads " << c.threads << " io " << c.io) {
      auto o = opts(S, Sp);
      o.order = c.order;
      o.meta = c.meta;
      o.cache_bytes = c.cache;
      o.threads = c.threads;
      o.io_threads = c.io;
      o.resume = false;
      exala::refine_report rr;
      exala::stripe_lu_report rep;
      auto x = solve_workdir(d.str(), o, &rr, &rep, 10);
      BOOST_TEST(same_bits(x, xref));
      BOOST_TEST(rr.backward_error_after <= 2 * u);
      if (c.cache != 0) {
        BOOST_TEST(rep.peak_cache_bytes <= c.cache);
        BOOST_TEST(rep.cache_misses > 0);
        BOOST_TEST(rep.bytes_written > 0);
      }
      o.resume = true;
      exala::stripe_lu lu({d.str()}, o);  // resumes the finished run: no factoring
      BOOST_TEST(lu.report().resumed);
      std::vector<double> y = b;
      lu.solve(nrhs, y.data(), n);
      BOOST_TEST(same_bits(y, x0));
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
  temp_dir d("io64");
  const i64 n = 600;
  exala::generate_dense_system({d.str()}, n, 1, 64, 16, 0.0);
  std::vector<double> a, b;
  i64 nn = 0, nrhs = 0;
  read_system(d.str(), a, b, nn, nrhs);
  std::vector<double> first;
  exala::stripe_lu_report rep0;
  struct cfg {
    exala::stripe_order order;
    i64 meta;
    std::uint64_t cache;
  };
  for (cfg c : {cfg{exala::stripe_order::zigzag, 0, 512 * 1024},
                cfg{exala::stripe_order::meta_zigzag, 2, 4 * 16 * 600 * 8}}) {  // the minimum
    BOOST_TEST_CONTEXT("order " << exala::to_string(c.order) << " cache " << c.cache) {
      exala::stripe_lu_options o;
      o.order = c.order;
      o.meta = c.meta;
      o.cache_bytes = c.cache;
      o.io_threads = 64;
      o.threads = 1;
      o.stripe = c.meta == 0 ? 0 : 16;  // 0: chosen from the cache (16 here)
      o.checkpoint_interval_s = 0;  // write-behind after every group too
      o.resume = false;
      exala::stripe_lu_report rep;
      exala::refine_report rr;
      auto x = solve_workdir(d.str(), o, &rr, &rep, 2);
      BOOST_TEST(rep.stripe == 16);
      BOOST_TEST(rep.peak_cache_bytes <= c.cache);
      BOOST_TEST(rr.backward_error_after <= 2 * u);
      if (first.empty()) first = x, rep0 = rep;
      BOOST_TEST(same_bits(x, first));
    }
  }
  // The in-core run with the same (S, S') gives the same bits.
  exala::stripe_lu ref(n, a.data(), n, opts(rep0.stripe, rep0.substripe));
  std::vector<double> xr(b.size());
  ref.solve_refined(1, b.data(), n, xr.data(), n, 2);
  BOOST_TEST(same_bits(xr, first));
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

BOOST_AUTO_TEST_SUITE_END()

// Longer: a bigger system, more configurations and more failure points.
BOOST_AUTO_TEST_CASE(long_sweep_bits_and_resume, *boost::unit_test::label("long")) {
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
