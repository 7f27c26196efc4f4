// tests/test_blas2.cpp - gemv and trsv: every entry against the MPFR oracle
// in all rounding directions, every layout / transpose / triangle / diagonal
// variant with leading dimensions and strides, bit equality across backends,
// thread counts, kernel sets and block sizes, BLAS conventions and bad input.
// backend::opencl is in the matrix (tests/backend_matrix.hpp) when exala::gpu
// is built and a device is present (PoCL in CI); without a device it is
// reported as SKIPPED. The device-resident routines are checked in
// test_opencl_level23.cpp.
#define BOOST_TEST_MODULE exala_blas2
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "backend_matrix.hpp"
#include "exala/blas2.hpp"
#include "mpfr_oracle.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala;
using namespace exala_test;

namespace {

constexpr rounding all_modes[] = {rounding::to_nearest_even, rounding::toward_zero,
                                  rounding::upward, rounding::downward};
constexpr layout layouts[] = {layout::row_major, layout::col_major};
constexpr transpose transposes[] = {transpose::none, transpose::trans};

// Element (i, j) of op(A), read the way the test (not the library) indexes it.
double op_at(layout lay, transpose t, const std::vector<double>& a, std::int64_t lda,
             std::int64_t i, std::int64_t j) {
  const std::int64_t r = t == transpose::none ? i : j, c = t == transpose::none ? j : i;
  return lay == layout::row_major ? a[r * lda + c] : a[c * lda + r];
}
std::int64_t idx(std::int64_t i, std::int64_t n, std::int64_t inc) {
  return inc >= 0 ? i * inc : (n - 1 - i) * -inc;
}

// Random data of a kind: 0 uniform, 1 wide exponent range, 2 wide with
// cancellation-prone signs and zeros, 3 near under/overflow.
double draw(rng_t& r, int kind) {
  switch (kind) {
    case 0: return uniform(r);
    case 1: return std::ldexp(uniform(r), static_cast<int>(r() % 400) - 200);
    case 2: {
      const int c = static_cast<int>(r() % 10);
      if (c == 0) return 0.0;
      if (c == 1) return -0.0;
      return std::ldexp(static_cast<double>(static_cast<int>(r() % 7) - 3), static_cast<int>(r() % 8));
    }
    default: {
      const int e = (r() & 1) ? static_cast<int>(r() % 60) + 960 : -static_cast<int>(r() % 60) - 1010;
      return std::ldexp(uniform(r), e);
    }
  }
}

std::vector<double> random_vec(rng_t& r, std::size_t n, int kind) {
  std::vector<double> v(n);
  for (auto& x : v) x = draw(r, kind);
  return v;
}


// f() must throw invalid_argument naming arg (and saying `says`, if given).
template <class F>
void expect_invalid(const std::string& arg, F&& f, const char* says = nullptr) {
  try {
    f();
    BOOST_ERROR("no exception for " << arg);
  } catch (const invalid_argument& e) {
    BOOST_TEST(e.argument() == arg, "argument " << e.argument() << " (" << e.what() << ")");
    if (says != nullptr) BOOST_TEST(std::string(e.what()).find(says) != std::string::npos, e.what());
  }
}

}  // namespace

// ------------------------------------------------------------------- gemv

#ifdef EXALA_TEST_HAVE_MPFR
BOOST_AUTO_TEST_CASE(gemv_every_entry_vs_mpfr) {
  restore_kernel_set guard;
  rng_t r(101);
  const double alphas[] = {1.0, -1.0, 0.75, 0x1p-600, 3.0e200, 0x1.8p-1070};
  const double betas[] = {0.0, 1.0, -2.5, 0x1p700};
  const std::int64_t incs[] = {1, -1, 2, -3};
  int bad = 0, cases = 0;
  for (int it = 0; it < 240 && bad < 10; ++it) {
    const layout lay = layouts[it % 2];
    const transpose tr = transposes[(it / 2) % 2];
    const int kind = (it / 4) % 4;
    const std::int64_t m = 1 + static_cast<std::int64_t>(r() % 23), n = static_cast<std::int64_t>(r() % 40);
    const std::int64_t lda = (lay == layout::row_major ? std::max<std::int64_t>(n, 1) : m) + (it % 3);
    const std::int64_t rows = tr == transpose::none ? m : n, cols = tr == transpose::none ? n : m;
    const std::int64_t incx = incs[r() % 4], incy = incs[r() % 4];
    const auto a = random_vec(r, static_cast<std::size_t>(lda * (lay == layout::row_major ? m : n) + 1), kind);
    const auto x = random_vec(r, static_cast<std::size_t>(std::max<std::int64_t>(cols, 1) * 3), kind);
    const auto y0 = random_vec(r, static_cast<std::size_t>(std::max<std::int64_t>(rows, 1) * 3), kind);
    const double alpha = alphas[r() % 6], beta = betas[r() % 4];
    for (rounding mode : all_modes) {
      for (const config& c : all_configs()) {
        auto y = y0;
        gemv(lay, tr, m, n, alpha, a.data(), lda, x.data(), incx, beta, y.data(), incy,
             exec{c.b, c.threads, mode});
        for (std::int64_t i = 0; i < rows && bad < 10; ++i) {
          mpfr_exact_sum s(mode);
          for (std::int64_t j = 0; j < cols; ++j)
            s.add_product(op_at(lay, tr, a, lda, i, j), x[idx(j, cols, incx)]);
          const double yi = y0[idx(i, rows, incy)];
          const double want = beta == 0.0 ? mpfr_round_axpby(s.value(), alpha, 0.0, 0.0, mode)
                                          : mpfr_round_axpby(s.value(), alpha, beta, yi, mode);
          ++cases;
          if (!same_bits(y[idx(i, rows, incy)], want)) {
            ++bad;
            BOOST_ERROR("gemv it " << it << " " << describe(c, active_kernel_set()) << " row " << i
                                   << " got " << hex(y[idx(i, rows, incy)]) << " want " << hex(want));
          }
        }
      }
    }
  }
  BOOST_TEST_MESSAGE("gemv entries checked against MPFR: " << cases);
}
#endif

// Bigger problems: every configuration and kernel set against reference.
BOOST_AUTO_TEST_CASE(gemv_backends_bit_identical) {
  restore_kernel_set guard;
  rng_t r(103);
  for (int kind = 0; kind < 4; ++kind) {
    for (layout lay : layouts)
      for (transpose tr : transposes) {
        const std::int64_t m = 157, n = 301;
        const std::int64_t lda = (lay == layout::row_major ? n : m) + 5;
        const auto a = random_vec(r, static_cast<std::size_t>(lda * (lay == layout::row_major ? m : n)), kind);
        const std::int64_t rows = tr == transpose::none ? m : n, cols = tr == transpose::none ? n : m;
        const auto x = random_vec(r, static_cast<std::size_t>(cols), kind);
        const auto y0 = random_vec(r, static_cast<std::size_t>(rows), kind);
        auto want = y0;
        gemv(lay, tr, m, n, 0.3, a.data(), lda, x.data(), 1, -1.5, want.data(), 1,
             exec{backend::reference});
        for (kernel_set k : kernel_sets()) {
          force_kernel_set(k);
          for (const config& c : non_reference_configs()) {
            if (!runs_with_kernel_set(c, k)) continue;  // opencl: once
            auto y = y0;
            gemv(lay, tr, m, n, 0.3, a.data(), lda, x.data(), 1, -1.5, y.data(), 1,
                 exec{c.b, c.threads});
            int diff = 0;
            for (std::int64_t i = 0; i < rows; ++i) diff += !same_bits(y[i], want[i]);
            BOOST_TEST(diff == 0, "kind " << kind << " " << describe(c, k) << ": " << diff
                                          << " entries differ from reference");
          }
        }
      }
  }
}

BOOST_AUTO_TEST_CASE(gemv_blas_conventions_and_specials) {
  const double nan_a[4] = {qnan, qnan, qnan, qnan};
  const double x[2] = {1.0, 2.0};
  double y[2] = {3.0, -0.0};
  // alpha == 0: A and x are not read (NaN there does not propagate).
  gemv(layout::row_major, transpose::none, 2, 2, 0.0, nan_a, 2, x, 1, 2.0, y, 1);
  BOOST_TEST(same_bits(y[0], 6.0));
  BOOST_TEST(same_bits(y[1], -0.0));
  // beta == 0: y is not read.
  const double a[4] = {1.0, 2.0, 3.0, 4.0};
  double yn[2] = {qnan, inf};
  gemv(layout::row_major, transpose::none, 2, 2, 1.0, a, 2, x, 1, 0.0, yn, 1);
  BOOST_TEST(same_bits(yn[0], 5.0));
  BOOST_TEST(same_bits(yn[1], 11.0));
  // An empty sum (n == 0) still scales y.
  double ye[2] = {1.5, -2.0};
  gemv(layout::row_major, transpose::none, 2, 0, 1.0, a, 1, x, 1, 2.0, ye, 1);
  BOOST_TEST(same_bits(ye[0], 3.0));
  BOOST_TEST(same_bits(ye[1], -4.0));
  // Specials: inf * 0 in A x is NaN, inf wins otherwise, +inf - inf is NaN.
  const double s[4] = {inf, 0.0, 1.0, -inf};
  const double xs[2] = {0.0, 1.0}, xt[2] = {1.0, 1.0};
  double y2[2] = {0.0, 0.0};
  gemv(layout::row_major, transpose::none, 2, 2, 1.0, s, 2, xs, 1, 0.0, y2, 1);
  BOOST_TEST(std::isnan(y2[0]));
  BOOST_TEST(same_bits(y2[1], -inf));
  gemv(layout::col_major, transpose::trans, 2, 2, 1.0, s, 2, xt, 1, 0.0, y2, 1);
  BOOST_TEST(same_bits(y2[0], inf));  // column 0: inf + 0
  BOOST_TEST(same_bits(y2[1], -inf));
  // A dot product that overflows on the way but not in the end is exact.
  const double big[2] = {0x1p1000, -0x1p1000};
  const double xb2[2] = {0x1p100, 0x1p100};
  double y3[1] = {1.0};
  gemv(layout::row_major, transpose::none, 1, 2, 1.0, big, 2, xb2, 1, 1.0, y3, 1);
  BOOST_TEST(same_bits(y3[0], 1.0));
}

BOOST_AUTO_TEST_CASE(gemv_bad_arguments) {
  const double a[4] = {1, 2, 3, 4};
  double x[2] = {1, 1}, y[2] = {0, 0};
  auto expect = [](const std::string& arg, auto&& f) { expect_invalid(arg, f); };
  expect("m", [&] { gemv(layout::row_major, transpose::none, -1, 2, 1, a, 2, x, 1, 0, y, 1); });
  expect("n", [&] { gemv(layout::row_major, transpose::none, 2, -2, 1, a, 2, x, 1, 0, y, 1); });
  expect("lda", [&] { gemv(layout::row_major, transpose::none, 2, 2, 1, a, 1, x, 1, 0, y, 1); });
  expect("lda", [&] { gemv(layout::col_major, transpose::none, 2, 1, 1, a, 1, x, 1, 0, y, 1); });
  expect("incy", [&] { gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, 1, 0, y, 0); });
  expect("a", [&] { gemv(layout::row_major, transpose::none, 2, 2, 1, nullptr, 2, x, 1, 0, y, 1); });
  expect("x", [&] { gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, nullptr, 1, 0, y, 1); });
  expect("y", [&] { gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, 1, 0, nullptr, 1); });
  expect("threads", [&] {
    gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, 1, 0, y, 1, exec{backend::omp, -1});
  });
  expect("block", [&] {
    exec e;
    e.block = -4;
    gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, 1, 0, y, 1, e);
  });
  // incx == 0 is fine for a read vector (x[0] repeated).
  gemv(layout::row_major, transpose::none, 2, 2, 1, a, 2, x, 0, 0, y, 1);
  BOOST_TEST(same_bits(y[0], 3.0));
}

// Issue 15, row 10: a leading dimension or an increment whose address would
// pass 2^60 - 1 elements, or a matrix with more entries, is refused naming
// it before anything is read or written, on every backend and also on the
// paths that read neither A nor x (alpha == 0); one element takes any
// increment.
BOOST_AUTO_TEST_CASE(gemv_trsv_address_overflow) {
  const double a[4] = {2, 1, 0, 4};
  double x[2] = {1, 1}, y[2] = {9, 9};
  const std::int64_t p62 = std::int64_t{1} << 62, p32 = std::int64_t{1} << 32;
  auto expect = [](const std::string& arg, auto&& f) { expect_invalid(arg, f, "2^60"); };
  const auto L = uplo::lower;
  const auto N = transpose::none, T = transpose::trans;
  const auto D = diag::non_unit;
  for (const config& c : all_configs()) {
    const exec ex{c.b, c.threads};
    BOOST_TEST_CONTEXT(describe(c, active_kernel_set())) {
      for (const layout lay : layouts) {
        expect("lda", [&] { gemv(lay, N, 2, 2, 1, a, p62, x, 1, 0, y, 1, ex); });
        expect("lda", [&] { gemv(lay, T, 2, 2, 1, a, INT64_MAX, x, 1, 0, y, 1, ex); });
        expect("incx", [&] { gemv(lay, N, 2, 2, 1, a, 2, x, INT64_MIN, 0, y, 1, ex); });
        expect("incy", [&] { gemv(lay, N, 2, 2, 1, a, 2, x, 1, 0, y, p62, ex); });
        expect("incy", [&] { gemv(lay, N, 2, 2, 0, a, 2, x, 1, 2, y, INT64_MIN, ex); });  // alpha == 0
        expect("a", [&] { gemv(lay, N, p32, p32, 1, a, p32, x, 1, 0, y, 1, ex); });
        expect("lda", [&] { trsv(lay, L, N, D, 2, a, p62, x, 1, ex); });
        expect("incx", [&] { trsv(lay, L, T, D, 2, a, 2, x, INT64_MIN, ex); });
        expect("incx", [&] { trsv(lay, L, N, diag::unit, 2, a, 2, x, -p62, ex); });
        expect("a", [&] { trsv(lay, L, N, D, p32, a, p32, x, 1, ex); });
      }
      BOOST_TEST((x[0] == 1 && x[1] == 1 && y[0] == 9 && y[1] == 9));
      double y1 = 5, x1 = 6;
      gemv(layout::col_major, N, 1, 1, 1, a, 1, x, INT64_MIN, 0, &y1, INT64_MIN, ex);
      BOOST_TEST(same_bits(y1, 2.0));
      trsv(layout::row_major, L, N, D, 1, a, 1, &x1, INT64_MIN, ex);
      BOOST_TEST(same_bits(x1, 3.0));
    }
  }
}

// ------------------------------------------------------------------- trsv

namespace {

struct tri_case {
  layout lay;
  uplo ul;
  transpose tr;
  diag dg;
};

std::vector<tri_case> all_variants() {
  std::vector<tri_case> v;
  for (layout lay : layouts)
    for (uplo ul : {uplo::lower, uplo::upper})
      for (transpose tr : transposes)
        for (diag dg : {diag::non_unit, diag::unit}) v.push_back({lay, ul, tr, dg});
  return v;
}

std::string name(const tri_case& t) {
  return std::string(t.lay == layout::row_major ? "row" : "col") + (t.ul == uplo::lower ? " L" : " U") +
         (t.tr == transpose::none ? " N" : " T") + (t.dg == diag::unit ? " unit" : " nonunit");
}

// A triangular matrix (only the `ul` triangle is meaningful; the other one is
// filled with NaN, which must never be read) with a dominant diagonal or not.
std::vector<double> random_tri(rng_t& r, const tri_case& t, std::int64_t n, std::int64_t lda, int kind) {
  std::vector<double> a(static_cast<std::size_t>(lda * n), qnan);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const bool stored_lower = i >= j;  // (i, j) in the storage's row/col sense
      if ((t.ul == uplo::lower) != stored_lower && i != j) continue;
      double v = draw(r, kind);
      if (i == j) {
        if (t.dg == diag::unit) v = qnan;  // never read either
        else if (v == 0.0) v = 1.5;
      }
      if (t.lay == layout::row_major) a[i * lda + j] = v;
      else a[j * lda + i] = v;
    }
  return a;
}

// (i, j) of op(A) as the test reads it.
double tri_at(const tri_case& t, const std::vector<double>& a, std::int64_t lda, std::int64_t i,
              std::int64_t j) {
  return op_at(t.lay, t.tr, a, lda, i, j);
}

bool forward(const tri_case& t) { return (t.ul == uplo::lower) == (t.tr == transpose::none); }

}  // namespace

#ifdef EXALA_TEST_HAVE_MPFR
// The contract itself: each computed x_i equals round((b_i - sum_j op(A)_ij
// x_j) / op(A)_ii) of the exact numerator formed with the computed x_j.
BOOST_AUTO_TEST_CASE(trsv_every_entry_vs_mpfr) {
  restore_kernel_set guard;
  rng_t r(107);
  const std::int64_t incs[] = {1, -1, 2, -2};
  int bad = 0, cases = 0;
  for (int it = 0; it < 160 && bad < 10; ++it) {
    for (const tri_case& t : all_variants()) {
      const int kind = it % 4;
      const std::int64_t n = 1 + static_cast<std::int64_t>(r() % 30);
      const std::int64_t lda = n + static_cast<std::int64_t>(r() % 3);
      const std::int64_t incx = incs[r() % 4];
      const auto a = random_tri(r, t, n, lda, kind);
      const auto b = random_vec(r, static_cast<std::size_t>(n * std::abs(incx)), kind);
      const rounding mode = all_modes[(it / 4) % 4];
      const config c = all_configs()[static_cast<std::size_t>(it) % all_configs().size()];
      exec ex{c.b, c.threads, mode};
      ex.block = static_cast<long long>(r() % 5);
      auto x = b;
      trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), lda, x.data(), incx, ex);
      for (std::int64_t s = 0; s < n && bad < 10; ++s) {
        const std::int64_t i = forward(t) ? s : n - 1 - s;
        mpfr_exact_sum num(mode);
        num.add(b[idx(i, n, incx)]);
        const std::int64_t j0 = forward(t) ? 0 : i + 1, j1 = forward(t) ? i : n;
        for (std::int64_t j = j0; j < j1; ++j) num.add_product(-tri_at(t, a, lda, i, j), x[idx(j, n, incx)]);
        const double want = t.dg == diag::unit ? num.round()
                                               : mpfr_round_div(num.value(), tri_at(t, a, lda, i, i), mode);
        ++cases;
        if (!same_bits(x[idx(i, n, incx)], want)) {
          ++bad;
          BOOST_ERROR("trsv " << name(t) << " it " << it << " n " << n << " row " << i << " got "
                              << hex(x[idx(i, n, incx)]) << " want " << hex(want));
        }
      }
    }
  }
  BOOST_TEST_MESSAGE("trsv entries checked against MPFR: " << cases);
}
#endif

BOOST_AUTO_TEST_CASE(trsv_backends_threads_blocks_bit_identical) {
  restore_kernel_set guard;
  rng_t r(109);
  const std::int64_t n = 301, lda = 307;
  for (const tri_case& t : all_variants()) {
    const int kind = static_cast<int>(r() % 4);
    const auto a = random_tri(r, t, n, lda, kind == 3 ? 1 : kind);
    const auto b = random_vec(r, static_cast<std::size_t>(n), kind == 3 ? 1 : kind);
    auto want = b;
    trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), lda, want.data(), 1, exec{backend::reference});
    for (kernel_set k : kernel_sets()) {
      force_kernel_set(k);
      for (const config& c : non_reference_configs())
        for (long long blk : {0LL, 1LL, 7LL, 64LL, 301LL, 1000LL}) {
          // opencl ignores the host kernel set and exec.block: run it once.
          if (!runs_with_kernel_set(c, k) || (c.b == backend::opencl && blk != 0)) continue;
          exec ex{c.b, c.threads};
          ex.block = blk;
          auto x = b;
          trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), lda, x.data(), 1, ex);
          int diff = 0;
          for (std::int64_t i = 0; i < n; ++i) diff += !same_bits(x[i], want[i]);
          BOOST_TEST(diff == 0, name(t) << " " << describe(c, k) << " block " << blk << ": " << diff
                                        << " entries differ from reference");
        }
    }
  }
}

// Theorem 3.1 of the seed: a solution that is exactly representable is
// recovered exactly, however ill-conditioned the matrix (here: integer
// entries and a strongly non-normal T, b = T x formed exactly).
BOOST_AUTO_TEST_CASE(trsv_recovers_representable_solutions_exactly) {
  rng_t r(113);
  for (const tri_case& t : all_variants()) {
    const std::int64_t n = 60;
    std::vector<double> a(static_cast<std::size_t>(n * n), qnan), xs(static_cast<std::size_t>(n));
    for (auto& v : xs) v = static_cast<double>(static_cast<int>(r() % 2001) - 1000) * 0x1p-20;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        if ((t.ul == uplo::lower) != (i >= j) && i != j) continue;
        const double v = i == j ? (t.dg == diag::unit ? qnan : ((r() & 1) ? 1.0 : -1.0) * 0x1p-3)
                                : static_cast<double>(static_cast<int>(r() % 4001) - 2000);
        if (t.lay == layout::row_major) a[i * n + j] = v;
        else a[j * n + i] = v;
      }
    // b = op(A) x in exact integer-scaled arithmetic: every product and sum
    // here is an integer multiple of 2^-23 below 2^53 * 2^-23.
    std::vector<double> b(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      double s = t.dg == diag::unit ? xs[i] : tri_at(t, a, n, i, i) * xs[i];
      const std::int64_t j0 = forward(t) ? 0 : i + 1, j1 = forward(t) ? i : n;
      for (std::int64_t j = j0; j < j1; ++j) s += tri_at(t, a, n, i, j) * xs[j];
      b[i] = s;
    }
    for (const config& c : all_configs()) {
      auto x = b;
      trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), n, x.data(), 1, exec{c.b, c.threads});
      int diff = 0;
      for (std::int64_t i = 0; i < n; ++i) diff += !same_bits(x[i], xs[i]);
      BOOST_TEST(diff == 0, name(t) << " " << exala::to_string(c.b) << ": " << diff << " entries not exact");
    }
  }
}

// The same op(A) stored three ways gives the same bits.
BOOST_AUTO_TEST_CASE(trsv_same_operator_two_storages) {
  rng_t r(127);
  const std::int64_t n = 97;
  std::vector<double> lo(static_cast<std::size_t>(n * n), 0.0), up(lo.size(), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j <= i; ++j) {
      const double v = i == j ? 1.0 + std::fabs(uniform(r)) : draw(r, 1);
      lo[i * n + j] = v;
      up[j * n + i] = v;
    }
  const auto b = random_vec(r, static_cast<std::size_t>(n), 1);
  // up holds lo^T row-major, i.e. lo column-major: three storages of one operator.
  auto x1 = b, x2 = b, x3 = b;
  trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, n, lo.data(), n, x1.data(), 1);
  trsv(layout::row_major, uplo::upper, transpose::trans, diag::non_unit, n, up.data(), n, x2.data(), 1);
  trsv(layout::col_major, uplo::lower, transpose::none, diag::non_unit, n, up.data(), n, x3.data(), 1);
  int d12 = 0, d13 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    d12 += !same_bits(x1[i], x2[i]);
    d13 += !same_bits(x1[i], x3[i]);
  }
  BOOST_TEST(d12 == 0);
  BOOST_TEST(d13 == 0);
}

BOOST_AUTO_TEST_CASE(trsv_singular_and_special_diagonals) {
  std::vector<double> a = {2.0, 0.0, 1.0, 0.0};  // row-major lower: a11 == 0
  std::vector<double> x = {1.0, 1.0};
  const auto before = x;
  try {
    trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, a.data(), 2, x.data(), 1);
    BOOST_ERROR("no exception for a zero diagonal");
  } catch (const singular_matrix& e) {
    BOOST_TEST(e.row() == 1);
    BOOST_TEST(std::string(e.what()).find("row 1") != std::string::npos, e.what());
  }
  BOOST_TEST(same_bits(x[0], before[0]));  // x untouched on error
  BOOST_TEST(same_bits(x[1], before[1]));
  // -0 on the diagonal is an exact zero too.
  a[3] = -0.0;
  BOOST_CHECK_THROW(trsv(layout::col_major, uplo::upper, transpose::none, diag::non_unit, 2, a.data(), 2,
                         x.data(), 1),
                    singular_matrix);
  // A unit diagonal is not read: the zero does not matter.
  trsv(layout::row_major, uplo::lower, transpose::none, diag::unit, 2, a.data(), 2, x.data(), 1);
  BOOST_TEST(same_bits(x[0], 1.0));
  BOOST_TEST(same_bits(x[1], 0.0));  // 1 - 1*1
  // NaN and inf on the diagonal follow IEEE (no error).
  std::vector<double> s = {qnan, 0.0, 1.0, inf};
  std::vector<double> y = {1.0, 2.0};
  trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, s.data(), 2, y.data(), 1);
  BOOST_TEST(std::isnan(y[0]));
  BOOST_TEST(std::isnan(y[1]));
  std::vector<double> s2 = {inf, 0.0, 1.0, 4.0};
  std::vector<double> y2 = {1.0, 2.0};
  trsv(layout::row_major, uplo::lower, transpose::none, diag::non_unit, 2, s2.data(), 2, y2.data(), 1);
  BOOST_TEST(same_bits(y2[0], 0.0));
  BOOST_TEST(same_bits(y2[1], 0.5));
}

BOOST_AUTO_TEST_CASE(trsv_bad_arguments) {
  const double a[4] = {1, 0, 1, 1};
  double x[2] = {1, 1};
  auto expect = [](const std::string& arg, auto&& f) { expect_invalid(arg, f); };
  const auto L = uplo::lower;
  const auto N = transpose::none;
  const auto D = diag::non_unit;
  expect("n", [&] { trsv(layout::row_major, L, N, D, -1, a, 2, x, 1); });
  expect("lda", [&] { trsv(layout::row_major, L, N, D, 2, a, 1, x, 1); });
  expect("incx", [&] { trsv(layout::row_major, L, N, D, 2, a, 2, x, 0); });
  expect("a", [&] { trsv(layout::row_major, L, N, D, 2, nullptr, 2, x, 1); });
  expect("x", [&] { trsv(layout::row_major, L, N, D, 2, a, 2, nullptr, 1); });
  expect("threads", [&] { trsv(layout::row_major, L, N, D, 2, a, 2, x, 1, exec{backend::omp, 5000}); });
  trsv(layout::row_major, L, N, D, 0, nullptr, 1, nullptr, 1);  // n == 0: nothing to do
}

BOOST_AUTO_TEST_CASE(long_trsv_large_backends, *utf::label("long")) {
  restore_kernel_set guard;
  rng_t r(131);
  const std::int64_t n = 1200;
  for (const tri_case& t : all_variants()) {
    const auto a = random_tri(r, t, n, n, 1);
    const auto b = random_vec(r, static_cast<std::size_t>(n), 1);
    auto want = b;
    trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), n, want.data(), 1, exec{backend::reference});
    for (const config& c : non_reference_configs()) {
      auto x = b;
      trsv(t.lay, t.ul, t.tr, t.dg, n, a.data(), n, x.data(), 1, exec{c.b, c.threads});
      int diff = 0;
      for (std::int64_t i = 0; i < n; ++i) diff += !same_bits(x[i], want[i]);
      BOOST_TEST(diff == 0, name(t) << " " << exala::to_string(c.b));
    }
  }
}
