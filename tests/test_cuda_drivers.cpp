// tests/test_cuda_drivers.cpp - backend::cuda's host code as it is: the
// .cu files themselves (gemm_ozaki8.cu, blas12_cuda.cu) compiled for the
// host against tests/cuda_shim (the CUDA runtime and cuBLAS calls they
// make, on host memory, with cuBLAS's int8 requirements checked) and
// tests/cuda_emulation.hpp (their kernels on host threads). So the drivers
// (plans, panels, padding, copies, the host finish of undecided entries,
// trsv's halts and resumes, the pointer checks) run in CI, through the
// public exala::cuda API and through exala::gemm / exala::trsm with
// backend::cuda (where the build has it: without nvcc the backend reports
// not_compiled_in, and only the exala::cuda API parts run), bit for bit
// against the reference backend. What this
// cannot show is anything about a real GPU: timing, the real cuBLAS, the
// real runtime.
#define BOOST_TEST_MODULE exala_cuda_drivers
#include <boost/test/unit_test.hpp>

#include "cuda_runtime.h"  // the shim (tests/cuda_shim)

#include <cmath>
#include <cstdint>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/cuda.hpp"
#include "exala/detail/cuda_hooks.hpp"
#include "test_common.hpp"

// exala/cuda.hpp's other registrations live in engine_cuda.cpp (the stripe
// engine, not part of this test); the emulated machine has one device.
bool exala::cuda::register_stripe_engine() noexcept { return false; }
int exala::cuda::device_count() noexcept { return 1; }

using namespace exala_test;
using exala::layout;
using exala::rounding;
using exala::transpose;
using i64 = std::int64_t;

namespace {

struct dev {
  double* p = nullptr;
  std::size_t n;
  explicit dev(const std::vector<double>& h) : n(h.size()) {
    void* v = nullptr;
    BOOST_REQUIRE(cudaMalloc(&v, sizeof(double) * (n ? n : 1)) == cudaSuccess);
    p = static_cast<double*>(v);
    cudaMemcpy(p, h.data(), sizeof(double) * n, cudaMemcpyHostToDevice);
  }
  ~dev() { cudaFree(p); }
  std::vector<double> get() const { return std::vector<double>(p, p + n); }
};

exala::exec ref(rounding md) { return exala::exec{exala::backend::reference, 0, md}; }

int differ(const std::vector<double>& a, const std::vector<double>& b) {
  int bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) bad += !same_bits(a[i], b[i]);
  return bad;
}

}  // namespace

BOOST_AUTO_TEST_CASE(gemm_device_api_and_backend) {
  exala::detail::set_cuda_min_products(0);
  rng_t r(91);
  int idx = 0;
  for (layout lay : {layout::col_major, layout::row_major})
    for (transpose ta : {transpose::none, transpose::trans})
      for (int kind : {0, 1, 2}) {  // uniform, wide (truncated lines), NaN/inf (host finish)
        const transpose tb = idx++ % 2 ? transpose::trans : transpose::none;
        const i64 m = 21, n = 18, k = 37;
        const bool col = lay == layout::col_major;
        const i64 ar = ta == transpose::trans ? k : m, ac = ta == transpose::trans ? m : k;
        const i64 br = tb == transpose::trans ? n : k, bc = tb == transpose::trans ? k : n;
        const i64 lda = (col ? ar : ac) + 1, ldb = (col ? br : bc) + 2, ldc = (col ? m : n) + 1;
        std::vector<double> a(static_cast<std::size_t>(lda * (col ? ac : ar))), b(static_cast<std::size_t>(ldb * (col ? bc : br)));
        std::vector<double> c(static_cast<std::size_t>(ldc * (col ? n : m)));
        auto val = [&](std::size_t i) {
          if (kind == 1) return uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 401) - 200);
          if (kind == 2 && i % 23 == 4) return i % 2 ? double{INFINITY} : double{NAN};
          return uniform(r) - 0.3;
        };
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = val(i);
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = val(i);
        for (double& v : c) v = uniform(r);
        const rounding md = idx % 3 == 0 ? rounding::upward : rounding::to_nearest_even;
        const double alpha = -1.5, beta = idx % 2 ? 0.0 : 0.75;
        std::vector<double> want = c;
        exala::gemm(lay, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc, ref(md));
        {  // device pointers
          const dev da(a), db(b), dc(c);
          exala::cuda::gemm(lay, ta, tb, m, n, k, alpha, da.p, lda, db.p, ldb, beta, dc.p, ldc, md);
          BOOST_TEST(differ(dc.get(), want) == 0, "device API kind " << kind);
          if (kind == 0) BOOST_TEST(exala::cuda::last_gemm_stats().host_entries == 0);
          if (kind == 2) BOOST_TEST(exala::cuda::last_gemm_stats().host_entries > 0);
        }
        if (exala::is_compiled_in(exala::backend::cuda)) {  // host pointers through backend::cuda
          std::vector<double> got = c;
          exala::gemm(lay, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, got.data(), ldc,
                      exala::exec{exala::backend::cuda, 0, md});
          BOOST_TEST(differ(got, want) == 0, "backend::cuda kind " << kind);
        }
      }
  // A host pointer where device memory is expected: refused by name.
  std::vector<double> h(16, 1.0);
  BOOST_CHECK_THROW(exala::cuda::gemm(layout::col_major, transpose::none, transpose::none, 4, 4, 4, 1.0, h.data(), 4,
                                      h.data(), 4, 0.0, h.data(), 4),
                    exala::invalid_argument);
}

BOOST_AUTO_TEST_CASE(trsm_numerators_on_the_device) {
  if (!exala::is_compiled_in(exala::backend::cuda)) {  // a build without nvcc: backend::cuda is not_compiled_in
    BOOST_TEST_MESSAGE("backend::cuda is not compiled into this build: trsm through it is not exercised");
    return;
  }
  exala::detail::set_cuda_min_products(0);
  rng_t r(93);
  const i64 m = 530, n = 6, lda = m + 1, ldb = m + 2;  // two 512-row blocks: numerators from the engine
  std::vector<double> a(static_cast<std::size_t>(lda * m)), b(static_cast<std::size_t>(ldb * n));
  for (double& v : a) v = (uniform(r) - 0.5) / 64.0;
  for (i64 i = 0; i < m; ++i) a[static_cast<std::size_t>(i + i * lda)] = 1.0 + uniform(r);
  for (double& v : b) v = uniform(r);
  std::vector<double> want = b, got = b;
  exala::trsm(layout::col_major, exala::side::left, exala::uplo::lower, transpose::none, exala::diag::non_unit, m, n,
              1.0, a.data(), lda, want.data(), ldb, exala::exec{exala::backend::simd});
  exala::trsm(layout::col_major, exala::side::left, exala::uplo::lower, transpose::none, exala::diag::non_unit, m, n,
              1.0, a.data(), lda, got.data(), ldb, exala::exec{exala::backend::cuda});
  BOOST_TEST(differ(got, want) == 0);
  BOOST_TEST(exala::cuda::last_gemm_stats().moduli > 0);  // the numerators did come from the device engine
}

BOOST_AUTO_TEST_CASE(reductions_gemv_trsv_device_api) {
  rng_t r(95);
  for (i64 n : {i64{1}, i64{700}, i64{70000}}) {
    std::vector<double> x(static_cast<std::size_t>(2 * n)), y(x.size());
    for (double& v : x) v = uniform(r) - 0.25;
    for (double& v : y) v = uniform(r);
    const dev dx(x), dy(y);
    for (rounding md : {rounding::to_nearest_even, rounding::downward}) {
      BOOST_TEST(same_bits(exala::cuda::dot(n, dx.p, 2, dy.p, -2, md), exala::dot(n, x.data(), 2, y.data(), -2, ref(md))));
      BOOST_TEST(same_bits(exala::cuda::sum(n, dx.p, 1, md), exala::sum(n, x.data(), 1, ref(md))));
      BOOST_TEST(same_bits(exala::cuda::asum(n, dx.p, -1, md), exala::asum(n, x.data(), -1, ref(md))));
      BOOST_TEST(same_bits(exala::cuda::nrm2(n, dx.p, 2, md), exala::nrm2(n, x.data(), 2, ref(md))));
    }
  }
  {  // exact cancellation: the host's exact dot from copies
    std::vector<double> x = {1e10, -1e10, 0x1p-40}, y = {3.0, 3.0, 1.0};
    const dev dx(x), dy(y);
    BOOST_TEST(same_bits(exala::cuda::dot(3, dx.p, 1, dy.p, 1), exala::dot(3, x.data(), 1, y.data(), 1, ref({}))));
  }
  for (layout lay : {layout::col_major, layout::row_major})
    for (transpose tr : {transpose::none, transpose::trans}) {
      const i64 m = 40, n = 33, lda = (lay == layout::col_major ? m : n) + 1;
      std::vector<double> a(static_cast<std::size_t>(lda * (lay == layout::col_major ? n : m)));
      for (double& v : a) v = uniform(r) - 0.5;
      a[5] = NAN;  // an output (or all) through the host's exact finish
      const i64 xl = tr == transpose::none ? n : m, yl = tr == transpose::none ? m : n;
      std::vector<double> x(static_cast<std::size_t>(xl)), y(static_cast<std::size_t>(2 * yl));
      for (double& v : x) v = uniform(r);
      for (double& v : y) v = uniform(r);
      std::vector<double> want = y;
      exala::gemv(lay, tr, m, n, 0.5, a.data(), lda, x.data(), 1, -1.0, want.data(), -2, ref({}));
      const dev da(a), dx(x), dy(y);
      exala::cuda::gemv(lay, tr, m, n, 0.5, da.p, lda, dx.p, 1, -1.0, dy.p, -2);
      BOOST_TEST(differ(dy.get(), want) == 0, "gemv lay " << int(lay) << " tr " << int(tr));
    }
  for (exala::uplo ul : {exala::uplo::lower, exala::uplo::upper})
    for (bool ints : {false, true}) {  // ints, toward zero: exact solutions, halts and resumes
      const i64 n = ints ? 20 : 140, lda = n + 1;
      std::vector<double> a(static_cast<std::size_t>(lda * n)), x(static_cast<std::size_t>(n));
      for (double& v : a) v = ints ? static_cast<double>(static_cast<int>(r() % 3) - 1) : uniform(r) - 0.5;
      for (i64 i = 0; i < n; ++i) a[static_cast<std::size_t>(i * lda + i)] = ints ? 1.0 : 2.0 + uniform(r);
      for (double& v : x) v = ints ? static_cast<double>(static_cast<int>(r() % 5) - 2) : uniform(r);
      const rounding md = ints ? rounding::toward_zero : rounding::to_nearest_even;
      std::vector<double> want = x;
      exala::trsv(layout::row_major, ul, transpose::none, exala::diag::non_unit, n, a.data(), lda, want.data(), 1,
                  ref(md));
      const dev da(a), dx(x);
      exala::cuda::trsv(layout::row_major, ul, transpose::none, exala::diag::non_unit, n, da.p, lda, dx.p, 1, md);
      BOOST_TEST(differ(dx.get(), want) == 0, "trsv ul " << int(ul) << " ints " << ints);
      if (ints) BOOST_TEST(exala::cuda::last_blas12_stats().host_outputs > 0);
    }
}

// The device-pointer API must see what the caller's default stream wrote
// before the call (cudaMemcpy from pageable memory returns before its DMA
// is done): its stream is a blocking one, ordered after the legacy default
// stream. (A non-blocking stream read stale inputs on an H200.)
BOOST_AUTO_TEST_CASE(device_api_stream_is_ordered_after_the_default_stream) {
  const std::vector<double> x = {1.0, 2.0, 3.0};
  const dev dx(x);
  BOOST_TEST(exala::cuda::sum(3, dx.p, 1, rounding::to_nearest_even) == 6.0);
  const std::vector<unsigned>& flags = exala_shim::stream_flags();
  BOOST_REQUIRE(!flags.empty());
  for (unsigned f : flags) BOOST_TEST(f == cudaStreamDefault);
}
