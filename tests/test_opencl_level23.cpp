// tests/test_opencl_level23.cpp - the OpenCL gemv / trsv / gemm / trsm
// (exala/opencl_level23.hpp): device-resident routines and backend::opencl
// on host pointers, bit for bit against the reference backend (itself checked
// against MPFR in test_blas2 / test_blas3), on every layout / transpose /
// triangle / diagonal, strides (negative too), alpha / beta special cases,
// inf / NaN, subnormals, products beyond the double range, cancellation to
// zero (zero signs), ties, all four rounding directions, sizes off the
// work-group and block sizes; argument errors naming the argument, singular
// diagonals, and both rounding paths (device-proven and host fallback) taken.
// With no usable OpenCL device every case says so and is skipped.
#define BOOST_TEST_MODULE exala_opencl_level23
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "exala/blas3.hpp"
#include "exala/opencl_level23.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala;
using namespace exala_test;
using i64 = std::int64_t;

namespace {

bool device_present() {
  static const bool present = [] {
    try {
      const auto d = exala::opencl::current_device();
      BOOST_TEST_MESSAGE("OpenCL device " << d.platform << " / " << d.name);
      return true;
    } catch (const exala::error& e) {
      std::cerr << "SKIPPED: no usable OpenCL device (" << e.what() << "): the opencl level-2/3 cases are not run\n";
      return false;
    }
  }();
  return present;
}

// Skips the calling test case (visibly) without a device.
#define REQUIRE_DEVICE()                                                              \
  do {                                                                                \
    if (!device_present()) {                                                          \
      BOOST_WARN_MESSAGE(false, "SKIPPED: no usable OpenCL device for this test case"); \
      return;                                                                         \
    }                                                                                 \
  } while (0)

constexpr rounding modes[] = {rounding::to_nearest_even, rounding::toward_zero, rounding::upward,
                              rounding::downward};
constexpr layout layouts[] = {layout::row_major, layout::col_major};
constexpr transpose transposes[] = {transpose::none, transpose::trans};

// Data kinds: 0 uniform, 1 wide (2^-200..2^200), 2 full double range,
// 3 subnormal-heavy, 4 small integers (exact sums, ties, directed-mode
// fallbacks), 5 signed zeros and sparse, 6 inf / NaN sprinkled, 7 products
// near overflow, 8 products below the subnormal range.
constexpr int num_kinds = 9;
double draw(rng_t& r, int kind) {
  switch (kind) {
    case 0: return uniform(r);
    case 1: return std::ldexp(uniform(r), static_cast<int>(r() % 401) - 200);
    case 2: return random_any_finite(r);
    case 3: return (r() & 1) ? random_exp(r, -1074, -1023) : random_exp(r, -40, 40);
    case 4: return static_cast<double>(static_cast<int>(r() % 9) - 4) * 0.5;
    case 5: {
      const int c = static_cast<int>(r() % 4);
      return c == 0 ? 0.0 : c == 1 ? -0.0 : c == 2 ? uniform(r) : -0.0;
    }
    case 6: {
      const int c = static_cast<int>(r() % 12);
      return c == 0 ? inf : c == 1 ? -inf : c == 2 ? qnan : c == 3 ? 0.0 : uniform(r);
    }
    case 7: return random_exp(r, 500, 540);
    default: return (r() & 1) ? random_exp(r, -600, -560) : random_exp(r, -1074, -1000);
  }
}
std::vector<double> random_vec(rng_t& r, std::size_t n, int kind) {
  std::vector<double> v(n);
  for (auto& x : v) x = draw(r, kind);
  return v;
}

int count_diff(const std::vector<double>& a, const std::vector<double>& b) {
  int d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += !same_bits(a[i], b[i]);
  return d;
}

const exec ref_exec(rounding m) { return exec{backend::reference, 0, m}; }
const exec ocl_exec(rounding m) { return exec{backend::opencl, 0, m}; }

}  // namespace

// ------------------------------------------------------------------ gemv

BOOST_AUTO_TEST_CASE(gemv_variants_kinds_strides_modes) {
  REQUIRE_DEVICE();
  rng_t r(7001);
  const double alphas[] = {1.0, -1.0, 0.75, 0x1p-600, 3.0e200, 0x1.8p-1070, inf, qnan};
  const double betas[] = {0.0, 1.0, -2.5, 0x1p700, -0.0, inf};
  const i64 incs[] = {1, -1, 2, -3};
  int problems = 0;
  for (int it = 0; it < 72; ++it) {
    const layout lay = layouts[it % 2];
    const transpose tr = transposes[(it / 2) % 2];
    const int kind = (it / 4) % num_kinds;
    const i64 m = 1 + static_cast<i64>(r() % 45), n = static_cast<i64>(r() % 300);
    const i64 lda = (lay == layout::row_major ? std::max<i64>(n, 1) : m) + static_cast<i64>(it % 3);
    const i64 rows = tr == transpose::none ? m : n, cols = tr == transpose::none ? n : m;
    const i64 incx = incs[r() % 4], incy = incs[r() % 4];
    const auto a = random_vec(r, static_cast<std::size_t>(lda * (lay == layout::row_major ? m : n) + 1), kind);
    const auto x = random_vec(r, static_cast<std::size_t>(std::max<i64>(cols, 1) * 3), kind);
    const auto y0 = random_vec(r, static_cast<std::size_t>(std::max<i64>(rows, 1) * 3), kind == 6 ? 0 : kind);
    const double alpha = it % 5 == 0 ? alphas[r() % 8] : alphas[r() % 6];
    const double beta = betas[r() % (it % 7 == 0 ? 6 : 4)];
    for (rounding md : modes) {
      auto want = y0, got = y0;
      gemv(lay, tr, m, n, alpha, a.data(), lda, x.data(), incx, beta, want.data(), incy, ref_exec(md));
      gemv(lay, tr, m, n, alpha, a.data(), lda, x.data(), incx, beta, got.data(), incy, ocl_exec(md));
      const int d = count_diff(want, got);
      BOOST_TEST(d == 0, "gemv it " << it << " kind " << kind << " m " << m << " n " << n << " mode "
                                    << static_cast<int>(md) << ": " << d << " entries differ");
      ++problems;
    }
  }
  BOOST_TEST_MESSAGE("gemv problems: " << problems);
}

// Ties and far sticky bits, row sums cancelling exactly to zero (with every
// zero-sign pattern), and the one rounding of alpha S + beta y where S alone
// overflows or underflows.
BOOST_AUTO_TEST_CASE(gemv_ties_cancellation_and_range) {
  REQUIRE_DEVICE();
  rng_t r(7002);
  const i64 m = 40, n = 4;
  std::vector<double> a(static_cast<std::size_t>(m * n)), x = {1.0, 1.0, 1.0, 1.0};
  for (i64 i = 0; i < m; ++i) {
    const double v = random_exp(r, -1000, 1000);
    const double h = std::ldexp(1.0, std::ilogb(v) - 53);  // half an ulp: a tie
    double* row = a.data() + i * n;
    switch (i % 5) {
      case 0: row[0] = v, row[1] = h, row[2] = 0.0, row[3] = 0.0; break;                 // tie
      case 1: row[0] = v, row[1] = h, row[2] = std::ldexp(h, -70), row[3] = 0.0; break;   // tie + sticky
      case 2: row[0] = v, row[1] = -v, row[2] = (i & 1) ? -0.0 : 0.0, row[3] = -0.0; break;  // exact zero
      case 3: row[0] = -0.0, row[1] = -0.0, row[2] = -0.0, row[3] = -0.0; break;          // all -0
      default: row[0] = 0x1p1000, row[1] = 0x1p1000, row[2] = -0x1p1000, row[3] = v; break;  // overflow on the way
    }
  }
  for (rounding md : modes)
    for (double alpha : {1.0, -1.0, 0x1p-1074, 0x1p-30})
      for (double beta : {0.0, 1.0, -1.0}) {
        std::vector<double> y0(static_cast<std::size_t>(m));
        for (auto& v : y0) v = (r() % 3 == 0) ? -0.0 : std::ldexp(uniform(r), -1070);
        auto want = y0, got = y0;
        gemv(layout::row_major, transpose::none, m, n, alpha, a.data(), n, x.data(), 1, beta, want.data(), 1,
             ref_exec(md));
        gemv(layout::row_major, transpose::none, m, n, alpha, a.data(), n, x.data(), 1, beta, got.data(), 1,
             ocl_exec(md));
        BOOST_TEST(count_diff(want, got) == 0, "mode " << static_cast<int>(md) << " alpha " << alpha << " beta " << beta);
      }
}

// Long rows (many work-items per row: the group merge of the expansions) and
// long columns, sizes off the work-group size, on the device-resident API.
BOOST_AUTO_TEST_CASE(gemv_device_resident_long_rows) {
  REQUIRE_DEVICE();
  rng_t r(7003);
  for (int kind : {0, 1, 4}) {
    for (layout lay : layouts)
      for (transpose tr : transposes) {
        const i64 m = 37, n = 3001;
        const i64 lda = (lay == layout::row_major ? n : m) + 1;
        const auto a = random_vec(r, static_cast<std::size_t>(lda * (lay == layout::row_major ? m : n)), kind);
        const i64 rows = tr == transpose::none ? m : n, cols = tr == transpose::none ? n : m;
        const auto x = random_vec(r, static_cast<std::size_t>(cols), kind);
        const auto y0 = random_vec(r, static_cast<std::size_t>(rows), kind);
        for (rounding md : {rounding::to_nearest_even, rounding::downward}) {
          auto want = y0;
          gemv(lay, tr, m, n, 0.5, a.data(), lda, x.data(), 1, 2.0, want.data(), 1, ref_exec(md));
          const opencl::buffer ad(a), xd(x);
          opencl::buffer yd(y0);
          opencl::gemv(lay, tr, m, n, 0.5, ad, lda, xd, 1, 2.0, yd, 1, md);
          std::vector<double> got(y0.size());
          yd.read(got.data(), got.size());
          BOOST_TEST(count_diff(want, got) == 0, "kind " << kind << " lay " << static_cast<int>(lay) << " tr "
                                                         << static_cast<int>(tr) << " mode " << static_cast<int>(md));
        }
      }
  }
}

// Both rounding paths are exercised: uniform data is rounded on the device,
// exact integer sums in a directed mode go to the host fallback.
BOOST_AUTO_TEST_CASE(gemv_rounding_paths_taken) {
  REQUIRE_DEVICE();
  rng_t r(7004);
  const i64 m = 64, n = 100;
  const auto a = random_vec(r, static_cast<std::size_t>(m * n), 0), x = random_vec(r, static_cast<std::size_t>(n), 0);
  std::vector<double> y(static_cast<std::size_t>(m), 0.0);
  const auto before = opencl::detail::level23_counts();
  gemv(layout::row_major, transpose::none, m, n, 1.0, a.data(), n, x.data(), 1, 0.0, y.data(), 1,
       ocl_exec(rounding::to_nearest_even));
  const auto mid = opencl::detail::level23_counts();
  BOOST_TEST(mid.device_rounded - before.device_rounded >= m - 2);
  const auto ai = random_vec(r, static_cast<std::size_t>(m * n), 4), xi = random_vec(r, static_cast<std::size_t>(n), 4);
  auto want = y, got = y;
  gemv(layout::row_major, transpose::none, m, n, 1.0, ai.data(), n, xi.data(), 1, 0.0, want.data(), 1,
       ref_exec(rounding::upward));
  gemv(layout::row_major, transpose::none, m, n, 1.0, ai.data(), n, xi.data(), 1, 0.0, got.data(), 1,
       ocl_exec(rounding::upward));
  const auto after = opencl::detail::level23_counts();
  BOOST_TEST(after.host_rounded - mid.host_rounded >= m / 2);
  BOOST_TEST(count_diff(want, got) == 0);
}

BOOST_AUTO_TEST_CASE(gemv_device_conventions_and_errors) {
  REQUIRE_DEVICE();
  // alpha == 0: A and x not read (NaN there does not propagate).
  const opencl::buffer nan_a(std::vector<double>(4, qnan)), x(std::vector<double>{1.0, 2.0});
  opencl::buffer y(std::vector<double>{3.0, -0.0});
  opencl::gemv(layout::row_major, transpose::none, 2, 2, 0.0, nan_a, 2, x, 1, 2.0, y, 1);
  std::vector<double> h(2);
  y.read(h.data(), 2);
  BOOST_TEST(same_bits(h[0], 6.0));
  BOOST_TEST(same_bits(h[1], -0.0));
  // beta == 0: y not read.
  const opencl::buffer a(std::vector<double>{1.0, 2.0, 3.0, 4.0});
  opencl::buffer yn(std::vector<double>{qnan, inf});
  opencl::gemv(layout::row_major, transpose::none, 2, 2, 1.0, a, 2, x, 1, 0.0, yn, 1);
  yn.read(h.data(), 2);
  BOOST_TEST(same_bits(h[0], 5.0));
  BOOST_TEST(same_bits(h[1], 11.0));
  auto expect = [](const std::string& arg, const std::function<void()>& f) {
    try {
      f();
      BOOST_ERROR("no exception for " << arg);
    } catch (const invalid_argument& e) {
      BOOST_TEST(e.argument() == arg, "argument " << e.argument() << " (" << e.what() << ")");
    }
  };
  const opencl::buffer small(std::vector<double>{1.0});
  expect("m", [&] { opencl::gemv(layout::row_major, transpose::none, -1, 2, 1, a, 2, x, 1, 0, y, 1); });
  expect("lda", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, a, 1, x, 1, 0, y, 1); });
  expect("a", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, small, 2, x, 1, 0, y, 1); });
  expect("x", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, small, 1, 0, y, 1); });
  expect("x", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, -2, 0, y, 1); });
  expect("y", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, 1, 0, y, 2); });
  expect("incy", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, 1, 0, y, 0); });
  expect("m", [&] { opencl::gemm(layout::row_major, transpose::none, transpose::none, -1, 2, 2, 1, a, 2, a, 2, 0, y, 2); });
  expect("c", [&] { opencl::gemm(layout::row_major, transpose::none, transpose::none, 2, 2, 2, 1, a, 2, a, 2, 0, y, 2); });
  expect("ldb", [&] { opencl::gemm(layout::col_major, transpose::none, transpose::none, 2, 2, 2, 1, a, 2, a, 1, 0, y, 2); });
  opencl::buffer xv(std::vector<double>{1.0, 1.0});
  expect("n", [&] { opencl::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, -1, a, 2, xv, 1); });
  expect("incx", [&] { opencl::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, a, 2, xv, 0); });
  expect("a", [&] { opencl::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, small, 2, xv, 1); });
  expect("ldb", [&] {
    opencl::trsm(layout::col_major, side::left, uplo::lower, transpose::none, diag::non_unit, 2, 1, 1.0, a, 2, xv, 1);
  });
  // Issue 15, row 10: spans whose address arithmetic overflows (they wrapped
  // to a negative count, which passed the buffer-size check) are refused
  // naming the leading dimension or the increment.
  const i64 imax = std::numeric_limits<i64>::max(), imin = std::numeric_limits<i64>::min();
  expect("lda", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, a, imax, x, 1, 0, y, 1); });
  expect("incx", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, imin, 0, y, 1); });
  expect("incy", [&] { opencl::gemv(layout::row_major, transpose::none, 2, 2, 0, a, 2, x, 1, 2, y, imin); });
  expect("ldc", [&] {
    opencl::gemm(layout::col_major, transpose::none, transpose::none, 2, 2, 2, 1, a, 2, a, 2, 0, y, imax);
  });
  expect("lda", [&] {
    opencl::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, a, imax, xv, 1);
  });
  expect("incx", [&] { opencl::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, a, 2, xv, imin); });
  expect("ldb", [&] {
    opencl::trsm(layout::col_major, side::left, uplo::lower, transpose::none, diag::non_unit, 2, 2, 1.0, a, 2, xv, imax);
  });
  // one element: any increment (never used)
  opencl::buffer y1(std::vector<double>{7.0});
  opencl::gemv(layout::col_major, transpose::none, 1, 1, 1.0, a, 1, x, imin, 0.0, y1, imin);
  y1.read(h.data(), 1);
  BOOST_TEST(same_bits(h[0], 1.0));
}

// ------------------------------------------------------------------ trsv

namespace {

struct tri {
  layout lay;
  uplo ul;
  transpose tr;
  diag dg;
};
std::vector<tri> variants() {
  std::vector<tri> v;
  for (layout lay : layouts)
    for (uplo ul : {uplo::lower, uplo::upper})
      for (transpose tr : transposes)
        for (diag dg : {diag::non_unit, diag::unit}) v.push_back({lay, ul, tr, dg});
  return v;
}
// The `ul` triangle random (kind), the other one NaN (never read), the
// diagonal NaN for a unit diagonal, nonzero otherwise.
std::vector<double> random_tri(rng_t& r, const tri& t, i64 n, i64 lda, int kind) {
  std::vector<double> a(static_cast<std::size_t>(lda * n), qnan);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < n; ++j) {
      if ((t.ul == uplo::lower) != (i >= j) && i != j) continue;
      double v = draw(r, kind);
      if (kind == 0) v /= static_cast<double>(n);
      if (i == j) v = t.dg == diag::unit ? qnan : (v == 0.0 || std::isnan(v) ? 1.5 : v);
      if (i == j && t.dg == diag::non_unit && kind == 0) v = (r() & 1 ? 1.0 : -1.0) * (1.0 + 0.5 * uniform(r));
      (t.lay == layout::row_major ? a[i * lda + j] : a[j * lda + i]) = v;
    }
  return a;
}

}  // namespace

BOOST_AUTO_TEST_CASE(trsv_all_variants_sizes_strides_modes) {
  REQUIRE_DEVICE();
  rng_t r(7101);
  // Around the host-assisted trsm blocks (128) and the device trsv blocks
  // (256 on PoCL and most GPUs).
  const i64 sizes[] = {1, 2, 5, 127, 128, 129, 255, 256, 257, 300};
  const i64 incs[] = {1, -1, 2, -2};
  int idx = 0;
  for (const tri& t : variants())
    for (int rep = 0; rep < 3; ++rep, ++idx) {
      const i64 n = sizes[(idx * 3 + rep) % 10];
      const int kind = idx % 5 == 4 ? 5 : (idx % 5 == 3 ? 4 : (idx % 5 == 2 ? 1 : 0));
      const i64 lda = n + static_cast<i64>(r() % 3);
      const i64 inc = incs[r() % 4];
      const auto a = random_tri(r, t, n, lda, kind);
      const auto b = random_vec(r, static_cast<std::size_t>(n * std::abs(inc)), kind);
      const rounding md = modes[static_cast<std::size_t>(idx) % 4];
      auto want = b, got = b;
      trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), lda, want.data(), inc, ref_exec(md));
      trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), lda, got.data(), inc, ocl_exec(md));
      BOOST_TEST(count_diff(want, got) == 0, "trsv variant " << idx << " n " << n << " inc " << inc << " kind " << kind);
    }
}

// Specials, singular diagonals (the error names the row, x untouched) and
// the device-resident form.
BOOST_AUTO_TEST_CASE(trsv_specials_singular_device_resident) {
  REQUIRE_DEVICE();
  std::vector<double> s = {qnan, 0.0, 1.0, inf};
  std::vector<double> y = {1.0, 2.0};
  trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, s.data(), 2, y.data(), 1, ocl_exec({}));
  BOOST_TEST(std::isnan(y[0]));
  BOOST_TEST(std::isnan(y[1]));
  std::vector<double> s2 = {inf, 0.0, 1.0, 4.0}, y2 = {1.0, 2.0};
  trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, s2.data(), 2, y2.data(), 1, ocl_exec({}));
  BOOST_TEST(same_bits(y2[0], 0.0));
  BOOST_TEST(same_bits(y2[1], 0.5));
  // Device-resident: zeros at rows 1 and 2, the error names row 1.
  const opencl::buffer a(std::vector<double>{2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, -0.0});
  opencl::buffer x(std::vector<double>{1.0, 1.0, 1.0});
  try {
    opencl::trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 3, a, 3, x, 1);
    BOOST_ERROR("no exception for a zero diagonal");
  } catch (const singular_matrix& e) {
    BOOST_TEST(e.row() == 1);
  }
  std::vector<double> h(3);
  x.read(h.data(), 3);
  BOOST_TEST((h == std::vector<double>{1.0, 1.0, 1.0}));
  opencl::trsv(layout::row_major, uplo::lower, transpose::none, diag::unit, 3, a, 3, x, 1);
  x.read(h.data(), 3);
  BOOST_TEST(same_bits(h[0], 1.0));
  BOOST_TEST(same_bits(h[1], 0.0));
  BOOST_TEST(same_bits(h[2], 0.0));  // 1 - 1*1 - 1*0
}

// The device solves rows where it proves the rounding (uniform data, to
// nearest: no host row), and hands exact quotients in a directed mode
// (integer data) to the host, resuming after each: the same bits either way.
BOOST_AUTO_TEST_CASE(trsv_rounding_paths_taken) {
  REQUIRE_DEVICE();
  rng_t r(7102);
  const tri t{layout::col_major, uplo::lower, transpose::none, diag::non_unit};
  const i64 n = 300;
  const auto a = random_tri(r, t, n, n, 0);
  const auto b = random_vec(r, static_cast<std::size_t>(n), 0);
  const auto c0 = opencl::detail::level23_counts();
  auto want = b, got = b;
  trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), n, want.data(), 1, ref_exec(rounding::to_nearest_even));
  trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), n, got.data(), 1, ocl_exec(rounding::to_nearest_even));
  const auto c1 = opencl::detail::level23_counts();
  BOOST_TEST(count_diff(want, got) == 0);
  BOOST_TEST(c1.host_rounded == c0.host_rounded, "uniform data, nearest: every row rounded on the device");
  // Integers with a +-1 diagonal: every quotient exact, undecided in a
  // directed mode on the device (rows go to the host).
  std::vector<double> ai(static_cast<std::size_t>(n * n), qnan);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j <= i; ++j)
      ai[static_cast<std::size_t>(j * n + i)] = i == j ? ((r() & 1) ? 1.0 : -1.0) : static_cast<double>(static_cast<int>(r() % 3) - 1);
  std::vector<double> bi(static_cast<std::size_t>(n));
  for (auto& v : bi) v = static_cast<double>(static_cast<int>(r() % 5) - 2);
  for (i64 len : {i64{5}, i64{140}}) {
    auto w2 = bi, g2 = bi;
    trsv(t.lay, t.ul, t.tr, t.dg, len, ai.data(), n, w2.data(), 1, ref_exec(rounding::upward));
    trsv(t.lay, t.ul, t.tr, t.dg, len, ai.data(), n, g2.data(), 1, ocl_exec(rounding::upward));
    BOOST_TEST(count_diff(w2, g2) == 0, "len " << len);
  }
  const auto c2 = opencl::detail::level23_counts();
  BOOST_TEST(c2.host_rounded - c1.host_rounded >= 5, "exact quotients, upward: rows rounded on the host");
  // Sparse small integers: every quotient stays exact, so every row, in every
  // block (n > 256), goes to the host and the kernels resume after each, in
  // both solve directions.
  std::vector<double> as(static_cast<std::size_t>(n * n), 0.0);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < n; ++j)
      if (i != j && r() % 40 == 0) as[static_cast<std::size_t>(i * n + j)] = (r() & 1) ? 1.0 : -1.0;
  for (i64 i = 0; i < n; ++i) as[static_cast<std::size_t>(i * n + i)] = (r() & 1) ? 2.0 : -0.5;
  for (uplo ul : {uplo::lower, uplo::upper}) {
    auto w3 = bi, g3 = bi;
    trsv(layout::row_major, ul, transpose::none, diag::non_unit, n, as.data(), n, w3.data(), 1,
         ref_exec(rounding::downward));
    trsv(layout::row_major, ul, transpose::none, diag::non_unit, n, as.data(), n, g3.data(), 1,
         ocl_exec(rounding::downward));
    BOOST_TEST(count_diff(w3, g3) == 0, "sparse integers, " << (ul == uplo::lower ? "lower" : "upper"));
  }
  const auto c3 = opencl::detail::level23_counts();
  BOOST_TEST(c3.host_rounded - c2.host_rounded >= n, "every row of the sparse integer solves on the host");
}

// ------------------------------------------------------------------ gemm

BOOST_AUTO_TEST_CASE(gemm_variants_kinds_modes) {
  REQUIRE_DEVICE();
  rng_t r(7201);
  const double alphas[] = {1.0, -1.0, 0.5, 0x1p-600, 0x1p600, 0x1p-1074, inf, qnan, 0.0};
  const double betas[] = {0.0, 1.0, -1.0, 2.0, -0.0, 0x1p-1074, inf};
  int idx = 0;
  for (layout lay : layouts)
    for (transpose ta : transposes)
      for (transpose tb : transposes)
        for (int kind = 0; kind < num_kinds; ++kind, ++idx) {
          const i64 m = 1 + static_cast<i64>(r() % 37), n = 1 + static_cast<i64>(r() % 11);
          const i64 k = idx % 10 == 0 ? 0 : 1 + static_cast<i64>(r() % 70);
          const bool col = lay == layout::col_major;
          const i64 a_rows = ta == transpose::trans ? k : m, a_cols = ta == transpose::trans ? m : k;
          const i64 b_rows = tb == transpose::trans ? n : k, b_cols = tb == transpose::trans ? k : n;
          const i64 lda = std::max<i64>(1, col ? a_rows : a_cols) + idx % 2;
          const i64 ldb = std::max<i64>(1, col ? b_rows : b_cols) + idx % 3;
          const i64 ldc = (col ? m : n) + idx % 2;
          const auto a = random_vec(r, static_cast<std::size_t>(lda * std::max<i64>(1, col ? a_cols : a_rows)), kind);
          const auto b = random_vec(r, static_cast<std::size_t>(ldb * std::max<i64>(1, col ? b_cols : b_rows)), kind);
          const auto c0 = random_vec(r, static_cast<std::size_t>(ldc * (col ? n : m)), kind == 6 ? 0 : kind);
          const double alpha = alphas[r() % (idx % 4 == 0 ? 9 : 6)];
          const double beta = betas[r() % (idx % 5 == 0 ? 7 : 5)];
          const rounding md = modes[static_cast<std::size_t>(idx) % 4];
          auto want = c0, got = c0;
          gemm(lay, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc, ref_exec(md));
          gemm(lay, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, got.data(), ldc, ocl_exec(md));
          BOOST_TEST(count_diff(want, got) == 0, "gemm " << idx << " kind " << kind << " m " << m << " n " << n
                                                         << " k " << k);
        }
}

// ------------------------------------------------------------------ trsm

BOOST_AUTO_TEST_CASE(trsm_all_variants) {
  REQUIRE_DEVICE();
  rng_t r(7301);
  const double alphas[] = {1.0, -1.0, 0.5, 3.0, 0.0, -0.3};
  int idx = 0;
  for (layout lay : layouts)
    for (side sd : {side::left, side::right})
      for (const tri& t0 : variants()) {
        if (t0.lay != lay) continue;
        const i64 m = 1 + (idx * 7) % 13 + (idx % 9 == 0 ? 130 : 0), n = 1 + (idx * 5) % 11;
        const i64 na = sd == side::left ? m : n;
        const tri t{lay, t0.ul, t0.tr, t0.dg};
        const i64 lda = na + idx % 2;
        const auto a = random_tri(r, t, na, lda, idx % 3 == 2 ? 1 : 0);
        const bool col = lay == layout::col_major;
        const i64 ldb = (col ? m : n) + idx % 3;
        const auto b = random_vec(r, static_cast<std::size_t>(ldb * (col ? n : m)), idx % 3 == 2 ? 1 : 0);
        const double alpha = alphas[idx % 6];
        const rounding md = modes[static_cast<std::size_t>(idx) % 4];
        auto want = b, got = b;
        trsm(lay, sd, t.ul, t.tr, t.dg, m, n, alpha, a.data(), lda, want.data(), ldb, ref_exec(md));
        trsm(lay, sd, t.ul, t.tr, t.dg, m, n, alpha, a.data(), lda, got.data(), ldb, ocl_exec(md));
        BOOST_TEST(count_diff(want, got) == 0, "trsm " << idx << " m " << m << " n " << n);
        ++idx;
      }
}

// More outputs than one launch takes (65536): gemm's device-rounded and
// fallback entries in several chunks, and trsm panels (digits back) in
// several chunks.
BOOST_AUTO_TEST_CASE(gemm_trsm_several_output_chunks) {
  REQUIRE_DEVICE();
  rng_t r(7302);
  const i64 m = 300, n = 251, k = 3;
  std::vector<double> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)),
      c(static_cast<std::size_t>(m * n));
  for (auto& v : a) v = (r() % 3 == 0) ? draw(r, 4) : uniform(r);
  for (auto& v : b) v = draw(r, 4);
  for (auto& v : c) v = uniform(r);
  for (rounding md : {rounding::to_nearest_even, rounding::upward}) {
    auto want = c, got = c;
    gemm(layout::col_major, transpose::none, transpose::none, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0,
         want.data(), m, ref_exec(md));
    gemm(layout::col_major, transpose::none, transpose::none, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0,
         got.data(), m, ocl_exec(md));
    BOOST_TEST(count_diff(want, got) == 0, "mode " << static_cast<int>(md));
  }
  const tri t{layout::col_major, uplo::upper, transpose::none, diag::non_unit};
  const i64 na = 260, nrhs = 520;  // a full 128-row panel: 128 x 520 outputs
  const auto ta = random_tri(r, t, na, na, 0);
  const auto bb = random_vec(r, static_cast<std::size_t>(na * nrhs), 0);
  auto want = bb, got = bb;
  trsm(t.lay, side::left, t.ul, t.tr, t.dg, na, nrhs, 0.5, ta.data(), na, want.data(), na, ref_exec({}));
  trsm(t.lay, side::left, t.ul, t.tr, t.dg, na, nrhs, 0.5, ta.data(), na, got.data(), na, ocl_exec({}));
  BOOST_TEST(count_diff(want, got) == 0);
}

// ------------------------------------------------------------------ long

BOOST_AUTO_TEST_CASE(long_gemv_trsv_large, *utf::label("long")) {
  REQUIRE_DEVICE();
  rng_t r(7401);
  for (int kind : {0, 1, 2, 3}) {
    const i64 m = 700, n = 2100;
    for (layout lay : layouts)
      for (transpose tr : transposes) {
        const i64 lda = lay == layout::row_major ? n : m;
        const auto a = random_vec(r, static_cast<std::size_t>(m * n), kind);
        const i64 rows = tr == transpose::none ? m : n, cols = tr == transpose::none ? n : m;
        const auto x = random_vec(r, static_cast<std::size_t>(cols), kind);
        const auto y0 = random_vec(r, static_cast<std::size_t>(rows), kind);
        auto want = y0, got = y0;
        gemv(lay, tr, m, n, 1.0, a.data(), lda, x.data(), 1, 1.0, want.data(), 1, ref_exec({}));
        gemv(lay, tr, m, n, 1.0, a.data(), lda, x.data(), 1, 1.0, got.data(), 1, ocl_exec({}));
        BOOST_TEST(count_diff(want, got) == 0);
      }
  }
  for (const tri& t : variants()) {
    const i64 n = 1000;
    const auto a = random_tri(r, t, n, n, 0);
    const auto b = random_vec(r, static_cast<std::size_t>(n), 1);
    auto want = b, got = b;
    trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), n, want.data(), 1, ref_exec({}));
    trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), n, got.data(), 1, ocl_exec({}));
    BOOST_TEST(count_diff(want, got) == 0);
  }
}

// One row longer than the kernel's normalization chunk (2^24 products).
BOOST_AUTO_TEST_CASE(long_gemv_row_beyond_chunk, *utf::label("long")) {
  REQUIRE_DEVICE();
  rng_t r(7402);
  const i64 n = (i64{1} << 24) + 1001;
  std::vector<double> a(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n));
  for (auto& v : a) v = std::ldexp(uniform(r), static_cast<int>(r() % 120) - 60);
  for (auto& v : x) v = uniform(r);
  double want = 0.0, got = 0.0;
  gemv(layout::row_major, transpose::none, 1, n, 1.0, a.data(), n, x.data(), 1, 0.0, &want, 1, ref_exec({}));
  gemv(layout::row_major, transpose::none, 1, n, 1.0, a.data(), n, x.data(), 1, 0.0, &got, 1, ocl_exec({}));
  BOOST_TEST(same_bits(want, got));
}
