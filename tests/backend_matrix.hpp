// tests/backend_matrix.hpp - the backends x thread counts x SIMD kernel sets
// that the blas1 suites run every case on, shared by test_blas1.cpp and
// test_blas1_elementwise.cpp.
//
// opencl: the element-wise routines run the simd path under backend::opencl,
// so test_blas1_elementwise includes it whenever it is compiled in. The
// reductions run on an OpenCL device: a suite that defines
// EXALA_TEST_OPENCL_REDUCTIONS (test_blas1, linked with exala::gpu) includes
// opencl only when a usable device is present, and says loudly when it is
// not (the opencl cases are then skipped, not passed). Its results do not
// depend on the host kernel set, so it runs with one set only
// (runs_with_kernel_set).
//
// kernel_sets() probes force_kernel_set once and leaves the best set forced;
// a test that looks at the set chosen from the environment must therefore run
// before the first call (see kernel_set_environment in test_blas1.cpp).
#pragma once

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "exala/backend.hpp"
#include "exala/error.hpp"
#ifdef EXALA_TEST_OPENCL_REDUCTIONS
#include <boost/test/unit_test.hpp>

#include "exala/opencl.hpp"
#endif
#ifdef EXALA_TEST_CUDA
#include <boost/test/unit_test.hpp>

#include "exala/cuda.hpp"
#include "exala/detail/cuda_hooks.hpp"
#endif

namespace exala_test {

// The sets force_kernel_set accepts here (on x86-64, every set the CPU supports).
inline const std::vector<exala::kernel_set>& kernel_sets() {
  static const std::vector<exala::kernel_set> sets = [] {
    std::vector<exala::kernel_set> v;
    for (exala::kernel_set k : {exala::kernel_set::generic, exala::kernel_set::avx2, exala::kernel_set::avx512}) {
      try {
        exala::force_kernel_set(k);
        v.push_back(k);
      } catch (const exala::error&) {
      }
    }
    exala::force_kernel_set(v.back());
    return v;
  }();
  return sets;
}

// Restores the best kernel set when a test case ends (however it ends).
struct restore_kernel_set {
  ~restore_kernel_set() {
    try {
      exala::force_kernel_set(kernel_sets().back());
    } catch (...) {
    }
  }
};

struct config {
  exala::backend b;
  int threads;
};

// Whether this suite runs backend::opencl (see the file comment).
inline bool opencl_in_matrix() {
  if (!exala::is_compiled_in(exala::backend::opencl)) return false;
#ifdef EXALA_TEST_OPENCL_REDUCTIONS
  static const bool present = [] {
    try {
      const auto d = exala::opencl::current_device();
      BOOST_TEST_MESSAGE("opencl backend on device " << d.platform_index << ":" << d.device_index << " "
                                                     << d.platform << " / " << d.name);
      return true;
    } catch (const exala::error& e) {
      std::ostringstream os;
      os << "SKIPPED: the opencl backend is compiled in, but no usable OpenCL device is present ("
         << e.what() << "): its cases are not run";
      std::cerr << os.str() << "\n";
      BOOST_WARN_MESSAGE(false, os.str());
      return false;
    }
  }();
  return present;
#else
  return true;
#endif
}

#ifdef EXALA_TEST_CUDA
// The cuda variant of a suite (test_blas3_cuda, label `cuda`): it runs on
// the GPU machine, so a missing device is an error, not a skip.
inline bool cuda_in_matrix() {
  // Every product on the GPU, however small (the suites' sizes are).
  static const bool present = (exala::detail::set_cuda_min_products(0), exala::cuda::device_count() > 0);
  if (!present) BOOST_ERROR("the cuda suites need a CUDA device (EXALA_CUDA_DEVICE): none is present");
  return present;
}
#endif

// simd, omp with 1..4 threads when OpenMP is compiled in, and opencl (see
// opencl_in_matrix); in a cuda variant (EXALA_TEST_CUDA) simd and cuda only.
inline std::vector<config> non_reference_configs() {
#ifdef EXALA_TEST_CUDA
  std::vector<config> cu = {{exala::backend::simd, 0}};
  if (cuda_in_matrix()) cu.push_back({exala::backend::cuda, 0});
  return cu;
#endif
  std::vector<config> c = {{exala::backend::simd, 0}};
  if (exala::is_compiled_in(exala::backend::omp))
    for (int t = 1; t <= 4; ++t) c.push_back({exala::backend::omp, t});
  if (opencl_in_matrix()) c.push_back({exala::backend::opencl, 0});
  return c;
}

// False for the configurations whose results cannot depend on the host
// kernel set and that already ran with another set (opencl reductions run
// on the device: once, with the best set forced).
inline bool runs_with_kernel_set(const config& c, exala::kernel_set k) {
#ifdef EXALA_TEST_CUDA
  if (c.b == exala::backend::cuda) return k == kernel_sets().back();
#endif
#ifdef EXALA_TEST_OPENCL_REDUCTIONS
  if (c.b == exala::backend::opencl) return k == kernel_sets().back();
#else
  (void)c;
  (void)k;
#endif
  return true;
}

// The reference backend first, then non_reference_configs().
inline std::vector<config> all_configs() {
  std::vector<config> c = {{exala::backend::reference, 0}};
  for (const config& x : non_reference_configs()) c.push_back(x);
  return c;
}

inline std::string describe(const config& c, exala::kernel_set k) {
  std::ostringstream os;
  os << exala::to_string(c.b);
  if (c.b == exala::backend::omp) os << " threads=" << c.threads;
  os << " kernels=" << exala::to_string(k);
  return os.str();
}

}  // namespace exala_test
