// gpu_bench.hpp - shared pieces of exala-bench-gpu (bench/gpu_bench_*.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace exala_bench_gpu {

using i64 = std::int64_t;

struct args {
  std::string mode;
  i64 n = 0, stripe = 0, substripe = 0, max_pivots = 0;
  i64 n_dot = 0, n_gemv = 0, n_trsv = 0, n_gemm = 0, check_cols = 64;
  int reps = 3;
  std::uint64_t seed = 1;
};

[[noreturn]] void fail(const std::string& why);

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int run_lu(const args& a);
int run_lu_host(const args& a);
int run_blas(const args& a);  // built with exala::gpu (OpenCL) only
int run_gemm(const args& a);    // backend::cuda's exact gemm vs cublasDgemm
int run_blas12(const args& a);  // exala::cuda::dot / gemv vs cublasDdot / cublasDgemv

}  // namespace exala_bench_gpu
