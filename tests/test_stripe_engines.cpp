// tests/test_stripe_engines.cpp - the single-process stripe LU on a device
// engine, one source built twice (tests/CMakeLists.txt):
// - test_stripe_cuda: the CUDA engine (cuBLAS / cuSOLVER, exala::gpu_cuda),
//   run on the GPU machine (ctest label `cuda`; CI has no GPU and skips the
//   label). Without a device every case is skipped and says so.
// - test_stripe_fakedev (EXALA_TEST_FAKE_DEVICE; label unit, CI): the fake
//   device of fake_device_engine.hpp, registered as "cuda": the device driver
//   path (slots, pivot groups, streamed stripes, out of core, resume) with
//   the CPU engine's arithmetic, and every dense call on device memory.
// The MPI builds of the same idea: tests/mpi/test_mpi_stripe_engines.cpp.
//
// Oracles: LAPACK dgesv_ (agreement within a bound from the condition
// number), the MPFR exact residual for the refined backward error <= 2u, and
// bit equality between configurations that must give the same bits on this
// engine: in core with every pivot-slot count (one group, or groups with the
// later stripes streamed through), and out of core with small and unlimited
// caches, orders and meta counts, and a resumed finished run.
#define BOOST_TEST_MODULE exala_stripe_engines
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "stripe_test_common.hpp"
#ifdef EXALA_TEST_FAKE_DEVICE
#include "fake_device_engine.hpp"  // registers the fake "cuda" engine
#else
#include "exala/cuda.hpp"  // registers the "cuda" engine
#endif

namespace {

struct has_device {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
#ifdef EXALA_TEST_FAKE_DEVICE
    return true;
#else
    boost::test_tools::assertion_result r(exala::cuda::device_count() > 0);
    if (!r) r.message() << "no CUDA device: the CUDA engine is not tested here";
    return r;
#endif
  }
};

// The fake device's counters around a factorization: it uploaded stripes,
// and every dense call had device operands. (Nothing to check on CUDA.)
struct device_use {
#ifdef EXALA_TEST_FAKE_DEVICE
  long calls0 = fake_dense_calls, foreign0 = fake_foreign_calls, uploads0 = fake_uploads;
#endif
  void check() const {
#ifdef EXALA_TEST_FAKE_DEVICE
    BOOST_TEST(fake_uploads > uploads0);
    BOOST_TEST(fake_dense_calls > calls0);
    BOOST_TEST(fake_foreign_calls == foreign0);
#endif
  }
};

exala::stripe_lu_options cuda_opts(i64 S, i64 Sp) {
  exala::stripe_lu_options o;
  o.stripe = S;
  o.substripe = Sp;
  o.engine = "cuda";
  o.checkpoint_interval_s = 0;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(unknown_engine_names_the_argument) {
  exala::stripe_lu_options o;
  o.engine = "tpu";
  const auto a = random_matrix(4, 4, 1);
  BOOST_CHECK_EXCEPTION(exala::stripe_lu(4, a.data(), 4, o), exala::invalid_argument,
                        [](const exala::invalid_argument& e) {
                          return std::string(e.what()).find("engine") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(matches_dgesv_and_refines_to_2u, *boost::unit_test::precondition(has_device())) {
  for (i64 n : {1, 7, 300, 1031}) {
    BOOST_TEST_CONTEXT("n " << n) {
      const auto a = random_matrix(n, n, unsigned(n));
      const auto b = random_matrix(n, 2, unsigned(n + 5));
      for (auto piv : {exala::pivoting::local, exala::pivoting::partial}) {
        auto o = cuda_opts(std::min<i64>(128, n), std::min<i64>(32, n));
        o.pivot = piv;
        const device_use use;
        exala::stripe_lu lu(n, a.data(), n, o);
        use.check();
        BOOST_TEST(lu.report().engine == "cuda");
        BOOST_TEST(!lu.report().device.empty());
        std::vector<double> x = b;
        lu.solve(2, x.data(), n);
        BOOST_TEST(max_rel_diff(x, dgesv(n, a, b, 2)) < 1e-8);
        std::vector<double> xr(b.size());
        const auto rr = lu.solve_refined(2, b.data(), n, xr.data(), n, 10);
        BOOST_TEST(rr.backward_error_after <= 2 * u);
#ifdef EXALA_TEST_HAVE_MPFR
        if (n <= 300) BOOST_TEST(mpfr_backward_error(n, a, b.data(), xr.data()) <= 2 * u);
#endif
      }
    }
  }
}

// In core: one pivot group holding every stripe, or groups of 1, 2 or 3
// stripes with the later stripes streamed through the target slots: the same
// bits (each stripe gets the same engine calls).
BOOST_AUTO_TEST_CASE(bits_do_not_depend_on_pivot_slots, *boost::unit_test::precondition(has_device())) {
  const i64 n = 700;
  const auto a = random_matrix(n, n, 11);
  const auto b = random_matrix(n, 1, 12);
  auto o = cuda_opts(96, 40);
  std::vector<double> x0 = b;
  exala::stripe_lu(n, a.data(), n, o).solve(1, x0.data(), n);
  for (i64 meta : {1, 2, 3}) {
    BOOST_TEST_CONTEXT("meta " << meta) {
      o.order = exala::stripe_order::meta_zigzag;
      o.meta = meta;
      const device_use use;
      exala::stripe_lu lu(n, a.data(), n, o);
      use.check();
      BOOST_TEST(lu.report().meta == meta);
      std::vector<double> x = b;
      lu.solve(1, x.data(), n);
      BOOST_TEST(same_bits(x, x0));
    }
  }
}

// Out of core on the device engine: the in-core bits for small and unlimited
// caches, every order and several meta counts, and after resuming.
BOOST_AUTO_TEST_CASE(out_of_core_gives_the_in_core_bits, *boost::unit_test::precondition(has_device())) {
  temp_dir d("ooc");
  const i64 n = 611, S = 64, Sp = 24;
  exala::generate_dense_system({d.str()}, n, 2, 7, 50, 0.0);
  exala::stripe_system_reader r({d.str()});
  std::vector<double> a(std::size_t(n * n)), b(std::size_t(n * 2));
  r.read_rows(0, n, a.data(), n);
  r.read_rhs(b.data(), n);
  std::vector<double> x0 = b;
  exala::stripe_lu(n, a.data(), n, cuda_opts(S, Sp)).solve(2, x0.data(), n);
  const std::uint64_t stripe_bytes = std::uint64_t(S) * n * 8;
  struct cfg {
    exala::stripe_order order;
    i64 meta;
    std::uint64_t cache;
  };
  for (cfg c : {cfg{exala::stripe_order::basic, 0, 0}, cfg{exala::stripe_order::zigzag, 0, 3 * stripe_bytes},
                cfg{exala::stripe_order::meta_zigzag, 2, 4 * stripe_bytes},
                cfg{exala::stripe_order::meta_zigzag, 4, 0}}) {
    BOOST_TEST_CONTEXT("order " << exala::to_string(c.order) << " meta " << c.meta << " cache " << c.cache) {
      auto o = cuda_opts(S, Sp);
      o.order = c.order;
      o.meta = c.meta;
      o.cache_bytes = c.cache;
      o.resume = false;
      const device_use use;
      exala::stripe_lu lu({d.str()}, o);
      use.check();
      BOOST_TEST(lu.report().engine == "cuda");
      std::vector<double> x = b;
      lu.solve(2, x.data(), n);
      BOOST_TEST(same_bits(x, x0));
      o.resume = true;
      exala::stripe_lu again({d.str()}, o);
      BOOST_TEST(again.report().resumed);
      std::vector<double> y = b;
      again.solve(2, y.data(), n);
      BOOST_TEST(same_bits(y, x0));
    }
  }
}

BOOST_AUTO_TEST_CASE(singular_pivot_is_named, *boost::unit_test::precondition(has_device())) {
  const i64 n = 200;
  auto a = random_matrix(n, n, 3);
  for (i64 i = 0; i < n; ++i) a[std::size_t(i + 150 * n)] = 0;  // column 150 is zero
  auto o = cuda_opts(64, 16);
  o.pivot_threshold = 0;
  BOOST_CHECK_EXCEPTION(exala::stripe_lu(n, a.data(), n, o), exala::singular_pivot,
                        [](const exala::singular_pivot& e) { return e.column() == 150; });
}
