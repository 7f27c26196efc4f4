// tests/test_blas12_cuda.cpp - exala::cuda::dot and exala::cuda::gemv on
// device pointers (label `cuda`: the GPU machine; a missing device is an
// error): bit for bit against exala::dot / exala::gemv on the reference
// backend, over sizes around the chunk and chain boundaries, strides of both
// signs, every gemv layout/transpose (both device decompositions: groups of
// contiguous chains per output, and a warp per output), alpha/beta (beta ==
// 0: y starts as NaN), every rounding direction, and data that the bound
// decides (uniform: nothing on the host) or cannot (cancellation, inf/NaN:
// the host's exact finish). test_dot2_engines runs the same decompositions
// on the host in CI.
#define BOOST_TEST_MODULE exala_blas12_cuda
#include <boost/test/unit_test.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/cuda.hpp"
#include "exala/detail/dot2_hd.hpp"
#include "cuda_test_common.hpp"
#include "test_common.hpp"

using namespace exala_test;
namespace d2 = exala::detail::dot2;
using exala::layout;
using exala::rounding;
using exala::transpose;

namespace {

enum class data { uniform, cancel, specials };

std::vector<double> make(std::size_t n, data d, rng_t& r) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = uniform(r) - 0.25;
    v[i] = d == data::specials && i % 41 == 7 ? (i % 2 ? INFINITY : NAN) : u;
  }
  if (d == data::cancel)  // x_(2i+1) = -x_(2i) (y equal there): S far below the terms
    for (std::size_t i = 0; i + 1 < n; i += 2) v[i + 1] = -v[i];
  return v;
}

exala::exec reference(rounding md) { return exala::exec{exala::backend::reference, 0, md}; }

}  // namespace

BOOST_AUTO_TEST_CASE(device_present) {
  BOOST_REQUIRE_MESSAGE(exala::cuda::device_count() > 0, "the cuda suites need a CUDA device");
}

BOOST_AUTO_TEST_CASE(dot_sizes_strides_data_modes) {
  rng_t r(61);
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{255}, std::int64_t{257}, d2::dot_chunk, d2::dot_chunk + 1,
                         5 * d2::dot_chunk + 3})
    for (std::int64_t inc : {1, -1, 2})
      for (data d : {data::uniform, data::cancel, data::specials})
        for (rounding md : {rounding::to_nearest_even, rounding::toward_zero, rounding::upward, rounding::downward}) {
          const std::size_t len = static_cast<std::size_t>((n - 1) * std::abs(inc) + 1);
          const std::vector<double> x = make(len, d, r);
          std::vector<double> y = make(len, data::uniform, r);
          if (d == data::cancel)
            for (std::size_t i = 0; i + 1 < len; i += 2) y[i + 1] = y[i];
          const device_vec dx(x), dy(y);
          const double got = exala::cuda::dot(n, dx.p, inc, dy.p, inc, md);
          const double want = exala::dot(n, x.data(), inc, y.data(), inc, reference(md));
          BOOST_TEST(same_bits(got, want), "n=" << n << " inc=" << inc << " data=" << int(d) << ": got " << hex(got)
                                                << ", reference " << hex(want));
          if (d == data::uniform && n > 1) BOOST_TEST(exala::cuda::last_blas12_stats().host_outputs == 0);
        }
}

BOOST_AUTO_TEST_CASE(sum_asum_nrm2) {
  rng_t r(63);
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, 3 * d2::dot_chunk + 1})
    for (std::int64_t inc : {1, -2})
      for (data d : {data::uniform, data::cancel, data::specials})
        for (rounding md : {rounding::to_nearest_even, rounding::downward}) {
          const std::vector<double> x = make(static_cast<std::size_t>((n - 1) * std::abs(inc) + 1), d, r);
          const device_vec dx(x);
          BOOST_TEST(same_bits(exala::cuda::sum(n, dx.p, inc, md), exala::sum(n, x.data(), inc, reference(md))));
          BOOST_TEST(same_bits(exala::cuda::asum(n, dx.p, inc, md), exala::asum(n, x.data(), inc, reference(md))));
          BOOST_TEST(same_bits(exala::cuda::nrm2(n, dx.p, inc, md), exala::nrm2(n, x.data(), inc, reference(md))));
        }
}

BOOST_AUTO_TEST_CASE(trsv_every_variant_across_blocks) {
  rng_t r(71);
  int idx = 0;
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{127}, std::int64_t{129}, std::int64_t{700}})
    for (layout lay : {layout::col_major, layout::row_major})
      for (exala::uplo ul : {exala::uplo::lower, exala::uplo::upper})
        for (transpose tr : {transpose::none, transpose::trans})
          for (exala::diag dg : {exala::diag::non_unit, exala::diag::unit}) {
            const bool ints = idx++ % 2 == 1;  // small integers: exact solutions, the host's exact rows
            const std::int64_t lda = n + 3, incx = idx % 3 == 0 ? -1 : 2;
            std::vector<double> a(static_cast<std::size_t>(lda * n));
            for (double& v : a) v = ints ? static_cast<double>(static_cast<int>(r() % 3) - 1) : uniform(r) - 0.5;
            for (std::int64_t i = 0; i < n; ++i) a[i * lda + i] = ints ? 1.0 : 2.0 + uniform(r);
            std::vector<double> x(static_cast<std::size_t>((n - 1) * std::abs(incx) + 1));
            for (double& v : x) v = ints ? static_cast<double>(static_cast<int>(r() % 5) - 2) : uniform(r);
            for (rounding md : {rounding::to_nearest_even, rounding::toward_zero}) {
              std::vector<double> want = x;
              exala::trsv(lay, ul, tr, dg, n, a.data(), lda, want.data(), incx, reference(md));
              const device_vec da(a), dx(x);
              exala::cuda::trsv(lay, ul, tr, dg, n, da.p, lda, dx.p, incx, md);
              const std::vector<double> got = dx.get();
              int bad = 0;
              for (std::size_t i = 0; i < got.size(); ++i) bad += !same_bits(got[i], want[i]);
              BOOST_TEST(bad == 0, "n=" << n << " lay=" << int(lay) << " ul=" << int(ul) << " tr=" << int(tr)
                                        << " dg=" << int(dg) << " ints=" << ints);
              if (!ints && n > 1) BOOST_TEST(exala::cuda::last_blas12_stats().host_outputs == 0);
            }
          }
  std::vector<double> a = {1, 0, 0, 0}, x = {1, 1};
  const device_vec da(a), dx(x);
  BOOST_CHECK_THROW(exala::cuda::trsv(layout::col_major, exala::uplo::lower, transpose::none, exala::diag::non_unit,
                                      2, da.p, 2, dx.p, 1),
                    exala::singular_matrix);
}

BOOST_AUTO_TEST_CASE(gemv_both_decompositions) {
  rng_t r(67);
  const std::int64_t shapes[][2] = {{1, 1}, {7, 300}, {300, 7}, {1000, 130}, {40000, 12}, {129, 4097}};
  for (auto sh : shapes)
    for (layout lay : {layout::col_major, layout::row_major})
      for (transpose tr : {transpose::none, transpose::trans})
        for (data d : {data::uniform, data::specials})
          for (double beta : {0.0, 1.0, -0.75}) {
            const std::int64_t m = sh[0], n = sh[1];
            const std::int64_t lda = (lay == layout::col_major ? m : n) + 1;
            const std::int64_t xl = tr == transpose::none ? n : m, yl = tr == transpose::none ? m : n;
            const std::int64_t incx = beta == 1.0 ? -1 : 1, incy = beta == 0.0 ? 1 : -2;
            const std::vector<double> a = make(static_cast<std::size_t>(lda * (lay == layout::col_major ? n : m)), d, r);
            const std::vector<double> x = make(static_cast<std::size_t>((xl - 1) * std::abs(incx) + 1), data::uniform, r);
            std::vector<double> y = make(static_cast<std::size_t>((yl - 1) * std::abs(incy) + 1), data::uniform, r);
            if (beta == 0.0)
              for (double& v : y) v = NAN;
            for (rounding md : {rounding::to_nearest_even, rounding::upward}) {
              std::vector<double> want = y;
              exala::gemv(lay, tr, m, n, 1.5, a.data(), lda, x.data(), incx, beta, want.data(), incy, reference(md));
              const device_vec da(a), dx(x), dy(y);
              exala::cuda::gemv(lay, tr, m, n, 1.5, da.p, lda, dx.p, incx, beta, dy.p, incy, md);
              const std::vector<double> got = dy.get();
              int bad = 0;
              for (std::size_t i = 0; i < got.size(); ++i) bad += !same_bits(got[i], want[i]);
              BOOST_TEST(bad == 0, "m=" << m << " n=" << n << " lay=" << int(lay) << " tr=" << int(tr)
                                        << " data=" << int(d) << " beta=" << beta);
              if (d == data::uniform) BOOST_TEST(exala::cuda::last_blas12_stats().host_outputs == 0);
            }
          }
}
