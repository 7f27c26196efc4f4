// tests/test_dot2_engines.cpp - the CUDA dot and gemv decompositions
// (chains per CUDA thread, pairwise block/warp trees, the Dot2 bound of
// exala/detail/dot2_hd.hpp, the chunk combination, the exact fallback), run
// by their host engines (exala/detail/dot2_engines.hpp) against the
// reference backend bit for bit: sizes around the chunk and chain
// boundaries, strides of both signs, every layout/transpose of gemv,
// alpha/beta (beta == 0 must not read y), every rounding direction, and data
// the bound decides (uniform) or cannot (exact cancellation, ties, inf/NaN:
// the fallback), with the statistics saying which path ran.
#define BOOST_TEST_MODULE exala_dot2_engines
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/detail/dot2_engines.hpp"
#include "test_common.hpp"

using namespace exala_test;
namespace d2 = exala::detail::dot2;
using exala::layout;
using exala::rounding;
using exala::transpose;

namespace {

const rounding modes[] = {rounding::to_nearest_even, rounding::toward_zero, rounding::upward, rounding::downward};
const exala::exec ref{exala::backend::reference};

enum class data { uniform, cancel, ints, specials };

std::vector<double> make(std::size_t n, data d, rng_t& r) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (d) {
      case data::uniform: v[i] = uniform(r) - 0.25; break;
      case data::cancel: v[i] = std::ldexp(uniform(r) + 0.5, static_cast<int>(r() % 120) - 60); break;
      case data::ints: v[i] = static_cast<double>(static_cast<int>(r() % 9) - 4); break;
      case data::specials: v[i] = i % 37 == 3 ? (i % 2 ? INFINITY : NAN) : uniform(r); break;
    }
  }
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(dot_across_chunks_strides_and_data) {
  rng_t r(51);
  const std::int64_t sizes[] = {1, 255, 256, 257, d2::dot_chunk - 1, d2::dot_chunk, d2::dot_chunk + 1,
                                3 * d2::dot_chunk + 7};
  for (std::int64_t n : sizes)
    for (std::int64_t inc : {1, -1, 3, -2})
      for (data d : {data::uniform, data::cancel, data::ints, data::specials}) {
        const std::size_t len = static_cast<std::size_t>((n - 1) * std::abs(inc) + 1);
        std::vector<double> x = make(len, d, r), y = make(len, d == data::cancel ? data::uniform : d, r);
        if (d == data::cancel)  // pairs that cancel exactly, and one tiny term: S far below the terms
          for (std::int64_t i = 0; i + 1 < n; i += 2) {
            x[static_cast<std::size_t>((i + 1) * std::abs(inc))] = -x[static_cast<std::size_t>(i * std::abs(inc))];
            y[static_cast<std::size_t>((i + 1) * std::abs(inc))] = y[static_cast<std::size_t>(i * std::abs(inc))];
          }
        for (rounding md : modes) {
          d2::run_stats st;
          const double got = d2::reduce_host(d2::reduction::dot, n, x.data(), inc, y.data(), -inc, md, &st);
          exala::exec e = ref;
          e.mode = md;
          const double want = exala::dot(n, x.data(), inc, y.data(), -inc, e);
          BOOST_TEST(same_bits(got, want), "n=" << n << " inc=" << inc << " data=" << int(d) << ": got " << hex(got)
                                                << ", reference " << hex(want));
          if (d == data::uniform && n > 1) BOOST_TEST(st.exact == 0, "n=" << n << " decided from the bound");
          if (d == data::specials && n > 40) BOOST_TEST(st.exact == 1);
        }
      }
}

BOOST_AUTO_TEST_CASE(dot_cancellation_takes_the_exact_path) {
  rng_t r(53);
  const std::int64_t n = 2 * d2::dot_chunk + 10;
  std::vector<double> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; i += 2) {
    x[i] = uniform(r) * 1e10;
    x[i + 1] = -x[i];
    y[i] = y[i + 1] = uniform(r);
  }
  x[5] = 0x1p-60;  // the exact result: 2^-60 y[5] - x[4] y[4] ... tiny against the terms
  d2::run_stats st;
  const double got = d2::reduce_host(d2::reduction::dot, n, x.data(), 1, y.data(), 1, rounding::to_nearest_even, &st);
  BOOST_TEST(same_bits(got, exala::dot(n, x.data(), 1, y.data(), 1, ref)));
  BOOST_TEST(st.exact == 1);
}

BOOST_AUTO_TEST_CASE(sum_asum_nrm2_across_chunks_and_data) {
  rng_t r(55);
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{300}, d2::dot_chunk + 1, 2 * d2::dot_chunk + 3})
    for (std::int64_t inc : {1, -3})
      for (data d : {data::uniform, data::cancel, data::ints, data::specials}) {
        std::vector<double> x = make(static_cast<std::size_t>((n - 1) * std::abs(inc) + 1), d, r);
        if (d == data::cancel)  // exact cancellation for sum (asum and nrm2 keep their size)
          for (std::size_t i = 0; i + 1 < x.size(); i += 2) x[i + 1] = -x[i];
        if (d == data::ints && n > 2) {  // huge and tiny entries: nrm2's squares overflow / underflow
          x[0] = 0x1p600;
          x[x.size() - 1] = 0x1p-600;
        }
        for (rounding md : modes) {
          exala::exec e = ref;
          e.mode = md;
          const d2::reduction kinds[] = {d2::reduction::sum, d2::reduction::asum, d2::reduction::nrm2};
          const double want[] = {exala::sum(n, x.data(), inc, e), exala::asum(n, x.data(), inc, e),
                                 exala::nrm2(n, x.data(), inc, e)};
          for (int k = 0; k < 3; ++k) {
            d2::run_stats st;
            const double got = d2::reduce_host(kinds[k], n, x.data(), inc, nullptr, 0, md, &st);
            BOOST_TEST(same_bits(got, want[k]), "kind " << k << " n=" << n << " inc=" << inc << " data=" << int(d)
                                                        << ": got " << hex(got) << ", reference " << hex(want[k]));
            if (d == data::uniform && n > 1) BOOST_TEST(st.exact == 0);
          }
        }
      }
}

BOOST_AUTO_TEST_CASE(gemv_every_form) {
  rng_t r(57);
  const std::int64_t shapes[][2] = {{1, 1}, {3, 70}, {70, 3}, {33, 257}, {300, 40}, {5000, 9}};
  for (auto sh : shapes)
    for (layout lay : {layout::col_major, layout::row_major})
      for (transpose tr : {transpose::none, transpose::trans})
        for (data d : {data::uniform, data::ints, data::specials})
          for (double beta : {0.0, 1.0, -0.5}) {
            const std::int64_t m = sh[0], n = sh[1];
            const std::int64_t lda = (lay == layout::col_major ? m : n) + 2;
            const std::int64_t xl = tr == transpose::none ? n : m, yl = tr == transpose::none ? m : n;
            const std::int64_t incx = d == data::ints ? -2 : 1, incy = beta == 1.0 ? 3 : -1;
            const std::vector<double> a = make(static_cast<std::size_t>(lda * (lay == layout::col_major ? n : m)), d, r);
            const std::vector<double> x = make(static_cast<std::size_t>((xl - 1) * std::abs(incx) + 1), data::uniform, r);
            std::vector<double> y0 = make(static_cast<std::size_t>((yl - 1) * std::abs(incy) + 1), data::uniform, r);
            if (beta == 0.0)
              for (double& v : y0) v = NAN;  // not read
            const double alpha = d == data::ints ? 0.5 : -1.25;
            for (rounding md : {rounding::to_nearest_even, rounding::downward}) {
              std::vector<double> got = y0, want = y0;
              d2::run_stats st;
              d2::gemv_host(lay, tr, m, n, alpha, a.data(), lda, x.data(), incx, beta, got.data(), incy, md, &st);
              exala::exec e = ref;
              e.mode = md;
              exala::gemv(lay, tr, m, n, alpha, a.data(), lda, x.data(), incx, beta, want.data(), incy, e);
              int bad = 0;
              for (std::size_t i = 0; i < got.size(); ++i) bad += !same_bits(got[i], want[i]);
              BOOST_TEST(bad == 0, "m=" << m << " n=" << n << " lay=" << int(lay) << " tr=" << int(tr) << " data="
                                        << int(d) << " beta=" << beta);
              if (d == data::uniform) BOOST_TEST(st.exact == 0);
              if (d == data::specials && std::min(m, n) > 40) BOOST_TEST(st.exact > 0);
            }
          }
}

BOOST_AUTO_TEST_CASE(trsv_every_variant) {
  rng_t r(59);
  int idx = 0;
  for (std::int64_t n : {1, 5, 130, 300})
    for (layout lay : {layout::col_major, layout::row_major})
      for (exala::uplo ul : {exala::uplo::lower, exala::uplo::upper})
        for (transpose tr : {transpose::none, transpose::trans})
          for (exala::diag dg : {exala::diag::non_unit, exala::diag::unit}) {
            const int kind = idx++ % 3;  // 0 random, 1 small integers (exact solutions, ties), 2 inf in b
            const std::int64_t lda = n + 1, incx = idx % 2 ? 1 : -2;
            std::vector<double> a(static_cast<std::size_t>(lda * n));
            for (double& v : a) v = kind == 1 ? static_cast<double>(static_cast<int>(r() % 5) - 2) : uniform(r) - 0.5;
            for (std::int64_t i = 0; i < n; ++i) a[i * lda + i] = kind == 1 ? 1.0 : 2.0 + uniform(r);
            std::vector<double> x(static_cast<std::size_t>((n - 1) * std::abs(incx) + 1));
            for (double& v : x) v = kind == 1 ? static_cast<double>(static_cast<int>(r() % 7) - 3) : uniform(r);
            if (kind == 2 && n > 3) x[2 * std::abs(incx)] = INFINITY;
            for (rounding md : {rounding::to_nearest_even, rounding::upward}) {
              std::vector<double> got = x, want = x;
              d2::run_stats st;
              d2::trsv_host(lay, ul, tr, dg, n, a.data(), lda, got.data(), incx, md, &st);
              exala::exec e = ref;
              e.mode = md;
              exala::trsv(lay, ul, tr, dg, n, a.data(), lda, want.data(), incx, e);
              int bad = 0;
              for (std::size_t i = 0; i < got.size(); ++i) bad += !same_bits(got[i], want[i]);
              BOOST_TEST(bad == 0, "n=" << n << " lay=" << int(lay) << " ul=" << int(ul) << " tr=" << int(tr)
                                        << " dg=" << int(dg) << " kind=" << kind);
              if (kind == 0 && n > 1) BOOST_TEST(st.exact == 0, "random data decided from the bound: " << st.exact << " of " << n);
            }
          }
  // A zero diagonal: singular_matrix naming the row, as exala::trsv.
  std::vector<double> a = {1, 0, 0, 0}, x = {1, 1};
  BOOST_CHECK_THROW(d2::trsv_host(layout::col_major, exala::uplo::lower, transpose::none, exala::diag::non_unit, 2,
                                  a.data(), 2, x.data(), 1, rounding::to_nearest_even),
                    exala::singular_matrix);
}

BOOST_AUTO_TEST_CASE(gemv_without_products_follows_the_conventions) {
  std::vector<double> a = {NAN, NAN, NAN, NAN}, x = {1, 2}, y = {3, -0.0};
  std::vector<double> want = y;
  d2::gemv_host(layout::col_major, transpose::none, 2, 2, 0.0, a.data(), 2, x.data(), 1, -2.0, y.data(), 1,
                rounding::to_nearest_even);
  exala::gemv(layout::col_major, transpose::none, 2, 2, 0.0, a.data(), 2, x.data(), 1, -2.0, want.data(), 1, ref);
  BOOST_TEST(same_bits(y[0], want[0]));
  BOOST_TEST(same_bits(y[1], want[1]));
}
