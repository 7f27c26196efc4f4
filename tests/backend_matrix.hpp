// tests/backend_matrix.hpp - the backends x thread counts x SIMD kernel sets
// that the blas1 suites run every case on, shared by test_blas1.cpp and
// test_blas1_elementwise.cpp.
//
// kernel_sets() probes force_kernel_set once and leaves the best set forced;
// a test that looks at the set chosen from the environment must therefore run
// before the first call (see kernel_set_environment in test_blas1.cpp).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "exala/backend.hpp"
#include "exala/error.hpp"

namespace exala_test {

// The sets force_kernel_set accepts here (on x86-64, every set the CPU supports).
inline const std::vector<exala::kernel_set>& kernel_sets() {
  static const std::vector<exala::kernel_set> sets = [] {
    std::vector<exala::kernel_set> v;
    for (exala::kernel_set k : {exala::kernel_set::scalar, exala::kernel_set::avx2, exala::kernel_set::avx512}) {
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

// simd, and omp with 1..4 threads when OpenMP is compiled in.
inline std::vector<config> non_reference_configs() {
  std::vector<config> c = {{exala::backend::simd, 0}};
  if (exala::is_compiled_in(exala::backend::omp))
    for (int t = 1; t <= 4; ++t) c.push_back({exala::backend::omp, t});
  return c;
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
