// tests/test_stripe_cuda.cpp - the stripe LU on the CUDA engine (cuBLAS /
// cuSOLVER), run on the GPU machine (ctest label `cuda`; CI has no GPU and
// skips the label). Without a device every case is skipped and says so.
//
// Oracles: LAPACK dgesv_ (agreement within a bound from the condition
// number), the MPFR exact residual for the refined backward error <= 2u, and
// bit equality between configurations that must give the same bits on this
// engine: in core with every pivot-slot count (one group, or groups with the
// later stripes streamed through), and out of core with small and unlimited
// caches, orders and meta counts, and a resumed finished run.
#define BOOST_TEST_MODULE exala_stripe_cuda
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "exala/cuda.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"

#ifdef EXALA_TEST_HAVE_MPFR
#include <mpfr.h>
#endif

extern "C" {
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
            const int* ldb, int* info);
}

namespace fs = std::filesystem;
using i64 = std::int64_t;

namespace {

constexpr double u = 0x1p-53;

struct has_device {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result r(exala::cuda::device_count() > 0);
    if (!r) r.message() << "no CUDA device: the CUDA engine is not tested here";
    return r;
  }
};

struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / ("exala_stripe_cuda_" + tag + "_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

std::vector<double> random_matrix(i64 rows, i64 cols, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  std::vector<double> a(std::size_t(rows * cols));
  for (double& v : a) v = d(g);
  return a;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

double max_rel_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    num = std::max(num, std::fabs(x[i] - y[i]));
    den = std::max(den, std::fabs(y[i]));
  }
  return den > 0 ? num / den : num;
}

std::vector<double> dgesv(i64 n, std::vector<double> a, std::vector<double> b, i64 nrhs) {
  int nn = int(n), nr = int(nrhs), info = 0;
  std::vector<int> piv(static_cast<std::size_t>(n));
  dgesv_(&nn, &nr, a.data(), &nn, piv.data(), b.data(), &nn, &info);
  BOOST_REQUIRE_EQUAL(info, 0);
  return b;
}

#ifdef EXALA_TEST_HAVE_MPFR
// ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) with the residual exact
// in MPFR and the rest rounded upward (never below the truth).
double mpfr_backward_error(i64 n, const std::vector<double>& a, const double* b, const double* x) {
  mpfr_t acc, t;
  mpfr_init2(acc, 4400);
  mpfr_init2(t, 4400);
  double rmax = 0, anorm = 0, xmax = 0, bmax = 0;
  for (i64 i = 0; i < n; ++i) {
    mpfr_set_d(acc, b[i], MPFR_RNDN);
    double rowsum = 0;
    for (i64 j = 0; j < n; ++j) {
      mpfr_set_d(t, a[std::size_t(i + j * n)], MPFR_RNDN);
      mpfr_mul_d(t, t, x[j], MPFR_RNDN);
      mpfr_sub(acc, acc, t, MPFR_RNDN);
      rowsum += std::fabs(a[std::size_t(i + j * n)]);
    }
    rmax = std::max(rmax, std::fabs(mpfr_get_d(acc, MPFR_RNDU)));
    anorm = std::max(anorm, rowsum * (1 + 2.0 * double(n) * u));
    bmax = std::max(bmax, std::fabs(b[i]));
  }
  for (i64 j = 0; j < n; ++j) xmax = std::max(xmax, std::fabs(x[j]));
  mpfr_clear(acc);
  mpfr_clear(t);
  return rmax / (anorm * xmax + bmax) * (1 + 4 * u);
}
#endif

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
        exala::stripe_lu lu(n, a.data(), n, o);
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
      exala::stripe_lu lu(n, a.data(), n, o);
      BOOST_TEST(lu.report().meta == meta);
      std::vector<double> x = b;
      lu.solve(1, x.data(), n);
      BOOST_TEST(same_bits(x, x0));
    }
  }
}

// Out of core on the CUDA engine: the in-core bits for small and unlimited
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
      exala::stripe_lu lu({d.str()}, o);
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
