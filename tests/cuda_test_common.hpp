// tests/cuda_test_common.hpp - a device copy of a host vector for the cuda
// suites (test_gemm_cuda, test_blas12_cuda).
#pragma once

#include <boost/test/unit_test.hpp>
#include <cuda_runtime.h>

#include <vector>

namespace exala_test {

struct device_vec {
  double* p = nullptr;
  std::size_t n = 0;
  explicit device_vec(const std::vector<double>& h) : n(h.size()) {
    BOOST_REQUIRE(cudaMalloc(&p, sizeof(double) * (n ? n : 1)) == cudaSuccess);
    if (n) BOOST_REQUIRE(cudaMemcpy(p, h.data(), sizeof(double) * n, cudaMemcpyHostToDevice) == cudaSuccess);
  }
  device_vec(const device_vec&) = delete;
  device_vec& operator=(const device_vec&) = delete;
  ~device_vec() { cudaFree(p); }
  std::vector<double> get() const {
    std::vector<double> h(n);
    if (n) BOOST_REQUIRE(cudaMemcpy(h.data(), p, sizeof(double) * n, cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
  }
};

}  // namespace exala_test
