// gpu_bench.cpp - exala-bench-gpu: ExaLA's GPU paths against cuBLAS/cuSOLVER
// in the same run (modes and CSV columns: the top of each gpu_bench_*.cpp).
//
//   exala-bench-gpu lu|lu-host --n N [--stripe S] [--substripe S'] [--reps R]
//                              [--max-pivots M] [--seed X]
//   exala-bench-gpu blas [--n-dot N] [--n-gemv N] [--n-trsv N] [--n-gemm N]
//                        [--reps R] [--check-cols C]   (OpenCL builds)
//   exala-bench-gpu gemm [--n-gemm N] [--reps R] [--check-cols C]
//   exala-bench-gpu blas12 [--n-dot N] [--n-gemv N] [--n-trsv N] [--reps R]
//   exala-bench-gpu table [--reps R]: issue 18's table in one run: gemm
//       (backend::cuda, n = 8192, uniform and wide), dot 2^27, gemv and trsv
//       32768 (exala::cuda), then the stripe LU in core n = 32768 vs
//       cusolverDnDgetrf; each part prints its own CSV header.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "gpu_bench.hpp"

namespace exala_bench_gpu {

void fail(const std::string& why) {
  std::fprintf(stderr, "exala-bench-gpu: %s\n", why.c_str());
  std::exit(2);
}

namespace {

i64 parse_int(std::string_view name, const char* v) {
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || x < 0) fail("bad value for " + std::string(name) + ": '" + v + "'");
  return x;
}

args parse(int argc, char** argv) {
  if (argc < 2) fail("usage: exala-bench-gpu lu|lu-host|blas|gemm ... (see bench/gpu_bench*.cpp)");
  args a;
  a.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string_view k = argv[i];
    if (i + 1 >= argc) fail("missing value after " + std::string(k));
    const char* v = argv[++i];
    if (k == "--n") a.n = parse_int(k, v);
    else if (k == "--stripe") a.stripe = parse_int(k, v);
    else if (k == "--substripe") a.substripe = parse_int(k, v);
    else if (k == "--max-pivots") a.max_pivots = parse_int(k, v);
    else if (k == "--reps") a.reps = int(parse_int(k, v));
    else if (k == "--seed") a.seed = std::uint64_t(parse_int(k, v));
    else if (k == "--n-dot") a.n_dot = parse_int(k, v);
    else if (k == "--n-gemv") a.n_gemv = parse_int(k, v);
    else if (k == "--n-trsv") a.n_trsv = parse_int(k, v);
    else if (k == "--n-gemm") a.n_gemm = parse_int(k, v);
    else if (k == "--check-cols") a.check_cols = parse_int(k, v);
    else fail("unknown option '" + std::string(k) + "'");
  }
  if (a.mode != "blas" && a.mode != "gemm" && a.mode != "blas12" && a.mode != "table" && a.n < 1)
    fail("--n must be >= 1");
  if (a.reps < 1) fail("--reps must be >= 1");
  return a;
}

}  // namespace
}  // namespace exala_bench_gpu

int main(int argc, char** argv) {
  using namespace exala_bench_gpu;
  try {
    const args a = parse(argc, argv);
    if (a.mode == "lu") return run_lu(a);
    if (a.mode == "lu-host") return run_lu_host(a);
    if (a.mode == "gemm") return run_gemm(a);
    if (a.mode == "blas12") return run_blas12(a);
    if (a.mode == "table") {
      args g = a;
      g.n_gemm = 8192;
      int rc = run_gemm(g);
      args d = a;
      d.n_dot = i64{1} << 27;
      d.n_gemv = d.n_trsv = 32768;
      rc |= run_blas12(d);
      args l = a;
      l.n = 32768;
      rc |= run_lu(l);
      return rc;
    }
#ifdef EXALA_BENCH_HAVE_OPENCL
    if (a.mode == "blas") return run_blas(a);
#endif
    fail("unknown mode '" + a.mode + "'");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exala-bench-gpu: %s\n", e.what());
    return 1;
  }
}
