// tests/test_cuda_errors.cpp - the cuda backend's behaviour that does not
// need a GPU, in the default suite of a CUDA build: bad arguments named
// before any device is touched, host pointers refused by the device API, a
// small product under backend::cuda run by the CPU engine (same bits), and,
// on a machine without a usable device, a clear exala::error from every
// device routine instead of a crash or a hang (on a GPU machine those
// cases say so and check the device path runs instead).
#define BOOST_TEST_MODULE exala_cuda_errors
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/cuda.hpp"
#include "test_common.hpp"

using namespace exala_test;
using exala::layout;
using exala::transpose;

namespace {
bool names(const exala::invalid_argument& e, const char* arg) {
  return std::string(e.what()).find(arg) != std::string::npos;
}
}  // namespace

BOOST_AUTO_TEST_CASE(arguments_are_checked_before_the_device) {
  double v = 0;
  BOOST_CHECK_EXCEPTION(exala::cuda::gemm(layout::col_major, transpose::none, transpose::none, 4, 4, 4, 1.0, &v, 3,
                                          &v, 4, 0.0, &v, 4),
                        exala::invalid_argument, [](const auto& e) { return names(e, "lda"); });
  BOOST_CHECK_EXCEPTION(exala::cuda::dot(-1, &v, 1, &v, 1), exala::invalid_argument,
                        [](const auto& e) { return names(e, "n"); });
  BOOST_CHECK_EXCEPTION(exala::cuda::gemv(layout::col_major, transpose::none, 3, 2, 1.0, &v, 2, &v, 1, 0.0, &v, 1),
                        exala::invalid_argument, [](const auto& e) { return names(e, "lda"); });
  BOOST_CHECK_EXCEPTION(exala::cuda::trsv(layout::col_major, exala::uplo::lower, transpose::none,
                                          exala::diag::unit, 2, &v, 1, &v, 1),
                        exala::invalid_argument, [](const auto& e) { return names(e, "lda"); });
  // Empty problems return without a device.
  BOOST_CHECK_NO_THROW(exala::cuda::gemm(layout::col_major, transpose::none, transpose::none, 0, 4, 4, 1.0, nullptr,
                                         1, nullptr, 4, 0.0, nullptr, 1));
}

BOOST_AUTO_TEST_CASE(a_small_product_under_cuda_runs_the_cpu_engine) {
  rng_t r(73);
  std::vector<double> a(64 * 64), b(64 * 64), c1(64 * 64, 0.5), c2(64 * 64, 0.5);
  for (double& x : a) x = uniform(r);
  for (double& x : b) x = uniform(r);
  exala::gemm(layout::col_major, transpose::none, transpose::none, 64, 64, 64, 1.0, a.data(), 64, b.data(), 64, -1.0,
              c1.data(), 64, exala::exec{exala::backend::cuda});
  exala::gemm(layout::col_major, transpose::none, transpose::none, 64, 64, 64, 1.0, a.data(), 64, b.data(), 64, -1.0,
              c2.data(), 64, exala::exec{exala::backend::reference});
  int bad = 0;
  for (std::size_t i = 0; i < c1.size(); ++i) bad += !same_bits(c1[i], c2[i]);
  BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(without_a_device_every_routine_says_so) {
  if (exala::cuda::device_count() > 0) {
    BOOST_TEST_MESSAGE("a CUDA device is present: the no-device errors are not exercised here");
    return;
  }
  std::vector<double> h(300 * 300, 1.0);
  double* p = h.data();
  // (host memory: with no driver the pointer check or the device choice fails, either way an exala::error)
  BOOST_CHECK_THROW(exala::cuda::gemm(layout::col_major, transpose::none, transpose::none, 4, 4, 4, 1.0, p, 4, p, 4,
                                      0.0, p, 4),
                    exala::error);
  BOOST_CHECK_THROW(exala::cuda::dot(4, p, 1, p, 1), exala::error);
  BOOST_CHECK_THROW(exala::cuda::nrm2(4, p, 1), exala::error);
  BOOST_CHECK_THROW(exala::cuda::gemv(layout::col_major, transpose::none, 4, 4, 1.0, p, 4, p, 1, 0.0, p, 1),
                    exala::error);
  BOOST_CHECK_THROW(exala::cuda::trsv(layout::col_major, exala::uplo::lower, transpose::none, exala::diag::unit, 4, p,
                                      4, p, 1),
                    exala::error);
  // backend::cuda with host pointers and a product worth the GPU: the same clear error.
  std::vector<double> a(256 * 256, 1.0), c(256 * 256, 0.0);
  BOOST_CHECK_THROW(exala::gemm(layout::col_major, transpose::none, transpose::none, 256, 256, 256, 1.0, a.data(),
                                256, a.data(), 256, 0.0, c.data(), 256, exala::exec{exala::backend::cuda}),
                    exala::error);
  // and the library keeps working afterwards
  BOOST_TEST(exala::dot(3, p, 1, p, 1) == 3.0);
}
