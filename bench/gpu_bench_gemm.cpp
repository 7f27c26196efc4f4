// gpu_bench_gemm.cpp - exala-bench-gpu gemm and blas12 (the CUDA dot and
// gemv, run_blas12 below). gemm: backend::cuda's exact gemm
// (exala::cuda::gemm, the 8-bit Ozaki scheme II on INT8 tensor cores)
// against cublasDgemm on the same GPU, data resident in device memory for
// both (issue 18's table).
//
//   gemm [--n-gemm N] [--reps R] [--check-cols C] [--seed X]
// Two data sets: uniform in [-0.5, 0.5) and "wide" (uniform times 2^e, e
// uniform in [-200, 200]: truncated rows and columns, decided from the
// bound). R interleaved repetitions of (ours, cuBLAS), medians; ours is
// timed around the synchronous call, cuBLAS with cudaDeviceSynchronize.
// Columns: data,n,seconds,ours_tflops,cublas_seconds,cublas_tflops,
// ratio_time (ours / cuBLAS), same_bits (the first C columns against the
// omp backend on the host: 1 = identical), moduli, host_entries, panels.
// EXALA_CUDA_GEMM_PROFILE=1 prints each phase's time to stderr.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/cuda.hpp"
#include "gpu_bench.hpp"

namespace exala_bench_gpu {

namespace {

using clk = std::chrono::steady_clock;

void cu(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}

struct dev_buf {
  double* p = nullptr;
  explicit dev_buf(const std::vector<double>& h) {
    cu(cudaMalloc(&p, h.size() * 8), "cudaMalloc");
    cu(cudaMemcpy(p, h.data(), h.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~dev_buf() { cudaFree(p); }
};

std::vector<double> make(std::size_t n, std::uint64_t seed, bool wide) {
  std::vector<double> v(n);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  std::uniform_int_distribution<int> e(-200, 200);
  for (double& x : v) x = wide ? std::ldexp(d(g), e(g)) : d(g);
  return v;
}

}  // namespace

int run_gemm(const args& a) {
  const i64 n = a.n_gemm > 0 ? a.n_gemm : 8192;
  cudaDeviceProp prop{};
  cu(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::fprintf(stderr, "CUDA device: %s\n", prop.name);
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) fail("cublasCreate");
  std::printf("data,n,seconds,ours_tflops,cublas_seconds,cublas_tflops,ratio_time,same_bits,moduli,host_entries,"
              "panels,gpu\n");
  const double flops = 2.0 * double(n) * double(n) * double(n);
  for (bool wide : {false, true}) {
    const auto A = make(std::size_t(n * n), a.seed + 1, wide), B = make(std::size_t(n * n), a.seed + 2, wide);
    dev_buf da(A), db(B), dc(std::vector<double>(std::size_t(n * n), 0.0)), dd(std::vector<double>(std::size_t(n * n), 0.0));
    std::vector<double> to, tc;
    const double one = 1, zero = 0;
    auto seconds = [](auto&& f) {
      const auto t0 = clk::now();
      f();
      return std::chrono::duration<double>(clk::now() - t0).count();
    };
    exala::cuda::gemm_stats st;
    for (int r = 0; r < a.reps; ++r) {
      to.push_back(seconds([&] {
        exala::cuda::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, n, n, n, 1.0,
                          da.p, n, db.p, n, 0.0, dc.p, n);
      }));
      st = exala::cuda::last_gemm_stats();
      tc.push_back(seconds([&] {
        if (cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, da.p, int(n), db.p, int(n), &zero,
                        dd.p, int(n)) != CUBLAS_STATUS_SUCCESS)
          fail("cublasDgemm");
        cu(cudaDeviceSynchronize(), "sync");
      }));
    }
    const i64 cols = std::min<i64>(n, a.check_cols);
    std::vector<double> got(std::size_t(n * cols)), cpu(std::size_t(n * cols));
    cu(cudaMemcpy(got.data(), dc.p, got.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
    exala::exec ex;
    ex.backend = exala::backend::omp;
    exala::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, n, cols, n, 1.0, A.data(),
                n, B.data(), n, 0.0, cpu.data(), n, ex);
    const bool same = std::memcmp(got.data(), cpu.data(), got.size() * 8) == 0;
    const double mo = median(to), mc = median(tc);
    std::printf("%s,%lld,%.6f,%.2f,%.6f,%.2f,%.3f,%d,%d,%lld,%d,%s\n", wide ? "wide" : "uniform", (long long)n, mo,
                flops / mo * 1e-12, mc, flops / mc * 1e-12, mo / mc, same ? 1 : 0, st.moduli,
                (long long)st.host_entries, st.panels, prop.name);
    std::fflush(stdout);
  }
  cublasDestroy(h);
  return 0;
}

// exala::cuda::dot (n = --n-dot, default 2^27) against cublasDdot,
// exala::cuda::gemv (n x n, n = --n-gemv, default 32768; N and T) against
// cublasDgemv and exala::cuda::trsv (lower, n = --n-trsv, default 32768)
// against cublasDtrsv, uniform data in [-0.5, 0.5), device-resident;
// throughput in GB/s (dot 16 n bytes, gemv 8 n^2, trsv 4 n^2), ratio_rate
// = ours / cuBLAS (issue 18's targets: dot >= 0.9, gemv >= 0.8, trsv time
// <= 3x, i.e. ratio_rate >= 0.33), same_bits against the omp backend.
int run_blas12(const args& a) {
  const i64 nd = a.n_dot > 0 ? a.n_dot : (i64{1} << 27), ng = a.n_gemv > 0 ? a.n_gemv : 32768;
  cudaDeviceProp prop{};
  cu(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) fail("cublasCreate");
  std::printf("routine,n,seconds,ours_gbs,cublas_seconds,cublas_gbs,ratio_rate,same_bits,host_outputs,gpu\n");
  auto seconds = [](auto&& f) {
    const auto t0 = clk::now();
    f();
    return std::chrono::duration<double>(clk::now() - t0).count();
  };
  exala::exec omp;
  omp.backend = exala::backend::omp;
  {
    const auto x = make(std::size_t(nd), a.seed + 3, false), y = make(std::size_t(nd), a.seed + 4, false);
    dev_buf dx(x), dy(y);
    std::vector<double> to, tc;
    double ours = 0, theirs = 0;
    for (int r = 0; r < a.reps; ++r) {
      to.push_back(seconds([&] { ours = exala::cuda::dot(nd, dx.p, 1, dy.p, 1); }));
      tc.push_back(seconds([&] {
        if (cublasDdot(h, int(nd), dx.p, 1, dy.p, 1, &theirs) != CUBLAS_STATUS_SUCCESS) fail("cublasDdot");
        cu(cudaDeviceSynchronize(), "sync");
      }));
    }
    const double cpu = exala::dot(nd, x.data(), 1, y.data(), 1, omp);
    const double bytes = 16.0 * double(nd), mo = median(to), mc = median(tc);
    std::printf("dot,%lld,%.6f,%.1f,%.6f,%.1f,%.3f,%d,%lld,%s\n", (long long)nd, mo, bytes / mo * 1e-9, mc,
                bytes / mc * 1e-9, mc / mo, std::memcmp(&cpu, &ours, 8) == 0 ? 1 : 0,
                (long long)exala::cuda::last_blas12_stats().host_outputs, prop.name);
    std::fflush(stdout);
  }
  {
    const auto A = make(std::size_t(ng * ng), a.seed + 5, false), x = make(std::size_t(ng), a.seed + 6, false);
    dev_buf dA(A), dx(x), dy(std::vector<double>(std::size_t(ng), 0.0)), dz(std::vector<double>(std::size_t(ng), 0.0));
    for (bool tr : {false, true}) {
      std::vector<double> to, tc;
      const double one = 1, zero = 0;
      for (int r = 0; r < a.reps; ++r) {
        to.push_back(seconds([&] {
          exala::cuda::gemv(exala::layout::col_major, tr ? exala::transpose::trans : exala::transpose::none, ng, ng,
                            1.0, dA.p, ng, dx.p, 1, 0.0, dy.p, 1);
        }));
        tc.push_back(seconds([&] {
          if (cublasDgemv(h, tr ? CUBLAS_OP_T : CUBLAS_OP_N, int(ng), int(ng), &one, dA.p, int(ng), dx.p, 1, &zero,
                          dz.p, 1) != CUBLAS_STATUS_SUCCESS)
            fail("cublasDgemv");
          cu(cudaDeviceSynchronize(), "sync");
        }));
      }
      std::vector<double> got(static_cast<std::size_t>(ng)), cpu(static_cast<std::size_t>(ng));
      cu(cudaMemcpy(got.data(), dy.p, got.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
      exala::gemv(exala::layout::col_major, tr ? exala::transpose::trans : exala::transpose::none, ng, ng, 1.0,
                  A.data(), ng, x.data(), 1, 0.0, cpu.data(), 1, omp);
      const double bytes = 8.0 * double(ng) * double(ng), mo = median(to), mc = median(tc);
      std::printf("%s,%lld,%.6f,%.1f,%.6f,%.1f,%.3f,%d,%lld,%s\n", tr ? "gemv_t" : "gemv_n", (long long)ng, mo,
                  bytes / mo * 1e-9, mc, bytes / mc * 1e-9, mc / mo,
                  std::memcmp(got.data(), cpu.data(), got.size() * 8) == 0 ? 1 : 0,
                  (long long)exala::cuda::last_blas12_stats().host_outputs, prop.name);
      std::fflush(stdout);
    }
  }
  {  // trsv: lower, non-unit, column-major, diagonally dominant (well conditioned)
    const i64 n = a.n_trsv > 0 ? a.n_trsv : 32768;
    auto L = make(std::size_t(n * n), a.seed + 7, false);
    for (i64 i = 0; i < n; ++i) L[std::size_t(i * n + i)] = 2.0 + std::fabs(L[std::size_t(i * n + i)]);
    const auto b = make(std::size_t(n), a.seed + 8, false);
    dev_buf dL(L), dx(b), dz(b);
    std::vector<double> to, tc;
    for (int r = 0; r < a.reps; ++r) {
      cu(cudaMemcpy(dx.p, b.data(), b.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
      cu(cudaMemcpy(dz.p, b.data(), b.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
      to.push_back(seconds([&] {
        exala::cuda::trsv(exala::layout::col_major, exala::uplo::lower, exala::transpose::none, exala::diag::non_unit,
                          n, dL.p, n, dx.p, 1);
      }));
      tc.push_back(seconds([&] {
        if (cublasDtrsv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, int(n), dL.p, int(n), dz.p, 1) !=
            CUBLAS_STATUS_SUCCESS)
          fail("cublasDtrsv");
        cu(cudaDeviceSynchronize(), "sync");
      }));
    }
    std::vector<double> got(static_cast<std::size_t>(n)), cpu = b;
    cu(cudaMemcpy(got.data(), dx.p, got.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
    exala::trsv(exala::layout::col_major, exala::uplo::lower, exala::transpose::none, exala::diag::non_unit, n,
                L.data(), n, cpu.data(), 1, omp);
    const double bytes = 4.0 * double(n) * double(n), mo = median(to), mc = median(tc);
    std::printf("trsv,%lld,%.6f,%.1f,%.6f,%.1f,%.3f,%d,%lld,%s\n", (long long)n, mo, bytes / mo * 1e-9, mc,
                bytes / mc * 1e-9, mc / mo, std::memcmp(got.data(), cpu.data(), got.size() * 8) == 0 ? 1 : 0,
                (long long)exala::cuda::last_blas12_stats().host_outputs, prop.name);
    std::fflush(stdout);
  }
  cublasDestroy(h);
  return 0;
}

}  // namespace exala_bench_gpu
