// tests/test_gemm_cuda.cpp - exala::cuda::gemm on device pointers (label
// `cuda`: the GPU machine; a missing device is an error). Every result is
// compared bit for bit with exala::gemm on the reference backend (the
// MPFR-checked oracle), over: both layouts and all transposes with padded
// leading dimensions, alpha/beta (beta == 0 must not read C: C starts as
// NaN), all rounding directions; and the engine's boundaries: a k-chunk
// fold (k > ozaki8::k_chunk), several C panels (EXALA_CUDA_GEMM_BYTES
// small), truncated wide rows (2^-200..2^200), inf/NaN lines and exact zero
// results (the host finish), with the statistics saying which path ran.
// test_blas3_cuda runs test_blas3's whole matrix with backend::cuda on host
// pointers.
#define BOOST_TEST_MODULE exala_gemm_cuda
#include <boost/test/unit_test.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "exala/blas3.hpp"
#include "exala/cuda.hpp"
#include "exala/detail/ozaki8.hpp"
#include "cuda_test_common.hpp"
#include "test_common.hpp"

using namespace exala_test;
using exala::layout;
using exala::rounding;
using exala::transpose;

namespace {

enum class data { uniform, wide, specials, zeros };

struct gemm_case {
  layout lay;
  transpose ta, tb;
  std::int64_t m, n, k;
  double alpha, beta;
  data kind;
  rounding mode;
};

// Runs one case on the device and on the reference; the number of entries
// that differ (reported).
int run_case(const gemm_case& g, rng_t& r, exala::cuda::gemm_stats* st = nullptr) {
  const bool col = g.lay == layout::col_major;
  const std::int64_t ar = g.ta == transpose::trans ? g.k : g.m, ac = g.ta == transpose::trans ? g.m : g.k;
  const std::int64_t br = g.tb == transpose::trans ? g.n : g.k, bc = g.tb == transpose::trans ? g.k : g.n;
  const std::int64_t lda = (col ? ar : ac) + 3, ldb = (col ? br : bc) + 1, ldc = (col ? g.m : g.n) + 2;
  auto value = [&](std::int64_t idx) {
    switch (g.kind) {
      case data::uniform: return uniform(r) - 0.25;
      case data::wide: return uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 401) - 200);
      case data::specials: return idx % 97 == 5 ? (idx % 2 ? INFINITY : NAN) : uniform(r);
      case data::zeros: return idx % 3 == 0 ? uniform(r) : 0.0;
    }
    return 0.0;
  };
  std::vector<double> a(static_cast<std::size_t>(lda * (col ? ac : ar))), b(static_cast<std::size_t>(ldb * (col ? bc : br)));
  std::vector<double> c(static_cast<std::size_t>(ldc * (col ? g.n : g.m)));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = value(static_cast<std::int64_t>(i));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = value(static_cast<std::int64_t>(i));
  for (double& v : c) v = g.beta == 0.0 ? NAN : uniform(r) - 0.5;
  std::vector<double> want = c;
  exala::gemm(g.lay, g.ta, g.tb, g.m, g.n, g.k, g.alpha, a.data(), lda, b.data(), ldb, g.beta, want.data(), ldc,
              exala::exec{exala::backend::reference, 0, g.mode});
  device_vec da(a), db(b), dc(c);
  exala::cuda::gemm(g.lay, g.ta, g.tb, g.m, g.n, g.k, g.alpha, da.p, lda, db.p, ldb, g.beta, dc.p, ldc, g.mode);
  if (st) *st = exala::cuda::last_gemm_stats();
  const std::vector<double> got = dc.get();
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same_bits(got[i], want[i])) {
      if (++bad <= 5)
        BOOST_TEST_MESSAGE("m=" << g.m << " n=" << g.n << " k=" << g.k << " element " << i << ": got "
                                << hex(got[i]) << ", reference " << hex(want[i]));
    }
  return bad;
}

}  // namespace

BOOST_AUTO_TEST_CASE(device_present) {
  BOOST_REQUIRE_MESSAGE(exala::cuda::device_count() > 0, "the cuda suites need a CUDA device");
}

BOOST_AUTO_TEST_CASE(layouts_transposes_scalars_modes) {
  rng_t r(31);
  for (layout lay : {layout::col_major, layout::row_major})
    for (transpose ta : {transpose::none, transpose::trans})
      for (transpose tb : {transpose::none, transpose::trans})
        for (rounding md : {rounding::to_nearest_even, rounding::toward_zero, rounding::upward, rounding::downward})
          for (double beta : {0.0, 1.0, -0.375}) {
            const gemm_case g{lay, ta, tb, 67, 45, 129, beta == 1.0 ? -1.0 : 0.625, beta, data::uniform, md};
            exala::cuda::gemm_stats st;
            BOOST_TEST(run_case(g, r, &st) == 0);
            BOOST_TEST(st.host_entries == 0);
          }
}

BOOST_AUTO_TEST_CASE(k_chunks_panels_and_wide_rows) {
  rng_t r(37);
  exala::cuda::gemm_stats st;
  const exala::detail::ozaki8::i64 kc = exala::detail::ozaki8::k_chunk;
  BOOST_TEST(run_case({layout::col_major, transpose::none, transpose::trans, 5, 7, kc + 9, 1.0, 0.0, data::uniform,
                       rounding::to_nearest_even}, r, &st) == 0);
  BOOST_TEST(st.chunks == 2);
  ::setenv("EXALA_CUDA_GEMM_BYTES", "16777216", 1);  // several panels (~13 MB each at 256 x 512)
  BOOST_TEST(run_case({layout::col_major, transpose::none, transpose::none, 700, 600, 300, 1.0, 1.0, data::uniform,
                       rounding::upward}, r, &st) == 0);
  BOOST_TEST(st.panels > 1);
  ::unsetenv("EXALA_CUDA_GEMM_BYTES");
  BOOST_TEST(run_case({layout::row_major, transpose::trans, transpose::none, 150, 130, 400, 1.0, 0.0, data::wide,
                       rounding::to_nearest_even}, r, &st) == 0);
  BOOST_TEST(st.truncated);
}

BOOST_AUTO_TEST_CASE(specials_and_exact_zeros_finish_on_the_host) {
  rng_t r(41);
  exala::cuda::gemm_stats st;
  BOOST_TEST(run_case({layout::col_major, transpose::none, transpose::none, 40, 30, 50, 1.0, 0.5, data::specials,
                       rounding::to_nearest_even}, r, &st) == 0);
  BOOST_TEST(st.host_entries > 0);
  BOOST_TEST(run_case({layout::col_major, transpose::trans, transpose::none, 40, 30, 3, 1.0, 0.0, data::zeros,
                       rounding::downward}, r, &st) == 0);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_named) {
  double x = 0;
  // A host pointer where device memory is expected: refused by name, and
  // the context stays usable.
  std::vector<double> h(16, 1.0);
  BOOST_CHECK_EXCEPTION(exala::cuda::gemm(layout::col_major, transpose::none, transpose::none, 4, 4, 4, 1.0,
                                          h.data(), 4, h.data(), 4, 0.0, h.data(), 4),
                        exala::invalid_argument,
                        [](const exala::invalid_argument& e) { return std::string(e.what()).find("host memory") != std::string::npos; });
  rng_t r(43);
  BOOST_TEST(run_case({layout::col_major, transpose::none, transpose::none, 9, 8, 7, 1.0, 0.0, data::uniform,
                       rounding::to_nearest_even}, r) == 0);
  BOOST_CHECK_EXCEPTION(exala::cuda::gemm(layout::col_major, transpose::none, transpose::none, 4, 4, 4, 1.0, &x, 2,
                                          &x, 4, 0.0, &x, 4),
                        exala::invalid_argument,
                        [](const exala::invalid_argument& e) { return std::string(e.what()).find("lda") != std::string::npos; });
}
