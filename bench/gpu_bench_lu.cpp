// gpu_bench_lu.cpp - exala-bench-gpu lu / lu-host: the stripe LU on the CUDA
// engine against cusolverDnDgetrf in the same run (bench/README.md, "GPU").
//
//   lu      --n N [--stripe S] [--substripe S'] [--reps R] [--seed X]
//     R interleaved repetitions of (cusolverDnDgetrf of a uniform [-0.5, 0.5]
//     matrix already on the device, timed with events; our in-core stripe LU
//     on the CUDA engine from host memory to host memory, its factor_seconds),
//     medians. The cuSOLVER time with the host<->device copies of the matrix
//     (pinned memory) is printed too.
//   lu-host --n N [--stripe S] [--substripe S'] [--max-pivots M] [--seed X]
//     A matrix larger than the GPU: N x N held in host memory as stripes
//     (pinned), factored by factor_in_memory_device (pivot groups as large as the
//     device holds, the later stripes streamed through); then solved on the
//     CPU engine against x_true (b = A x_true formed before the factorization)
//     and the relative forward error printed. No baseline can run at this
//     size on the device; the rate is compared with cuSOLVER's at the
//     largest n that fits, from `lu`.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "exala/cuda.hpp"
#include "exala/stripe_lu.hpp"
#include "gpu_bench.hpp"
#include "stripe/device_driver.hpp"
#include "stripe/factor_loop.hpp"
#include "stripe/engine.hpp"
#include "stripe/kernels.hpp"

namespace exala_bench_gpu {

namespace st = exala::detail::stripe;
using clk = std::chrono::steady_clock;

namespace {

double lu_flops(i64 n) { return 2.0 / 3.0 * double(n) * double(n) * double(n); }

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}

// Entries a function of (seed, column): the same matrix whatever the layout.
void fill_column(double* col, i64 n, std::uint64_t seed, i64 c) {
  std::mt19937_64 g(seed * 1000003u + std::uint64_t(c));
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  for (i64 i = 0; i < n; ++i) col[i] = d(g);
}

struct cusolver_times {
  double device_s, with_copies_s;
};

cusolver_times time_cusolver(i64 n, const double* host_a) {
  cusolverDnHandle_t h;
  if (cusolverDnCreate(&h) != CUSOLVER_STATUS_SUCCESS) fail("cusolverDnCreate");
  double* d = nullptr;
  int *piv = nullptr, *info = nullptr;
  cuda_check(cudaMalloc(&d, std::size_t(n * n) * 8), "cudaMalloc(A)");
  cuda_check(cudaMalloc(&piv, std::size_t(n) * 4), "cudaMalloc(piv)");
  cuda_check(cudaMalloc(&info, 4), "cudaMalloc(info)");
  int lwork = 0;
  cusolverDnDgetrf_bufferSize(h, int(n), int(n), d, int(n), &lwork);
  double* work = nullptr;
  cuda_check(cudaMalloc(&work, std::size_t(lwork) * 8), "cudaMalloc(work)");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const auto t0 = clk::now();
  cuda_check(cudaMemcpy(d, host_a, std::size_t(n * n) * 8, cudaMemcpyHostToDevice), "upload");
  cudaEventRecord(e0);
  if (cusolverDnDgetrf(h, int(n), int(n), d, int(n), work, piv, info) != CUSOLVER_STATUS_SUCCESS)
    fail("cusolverDnDgetrf");
  cudaEventRecord(e1);
  cuda_check(cudaEventSynchronize(e1), "getrf");
  std::vector<double> back(std::size_t(n) * std::size_t(n));
  cuda_check(cudaMemcpy(back.data(), d, std::size_t(n * n) * 8, cudaMemcpyDeviceToHost), "download");
  const double total = std::chrono::duration<double>(clk::now() - t0).count();
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaFree(work);
  cudaFree(info);
  cudaFree(piv);
  cudaFree(d);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cusolverDnDestroy(h);
  return {double(ms) * 1e-3, total};
}

}  // namespace

int run_lu(const args& a) {
  const i64 n = a.n;
  std::vector<double> m(std::size_t(n) * std::size_t(n));
#pragma omp parallel for schedule(static)
  for (i64 c = 0; c < n; ++c) fill_column(m.data() + c * n, n, a.seed, c);
  cudaHostRegister(m.data(), m.size() * 8, cudaHostRegisterDefault);
  exala::stripe_lu_options o;
  o.engine = "cuda";
  o.stripe = a.stripe;
  o.substripe = a.substripe;
  std::vector<double> ours, base, base_copies;
  exala::stripe_lu_report rep;
  for (int r = 0; r < a.reps; ++r) {
    const auto cs = time_cusolver(n, m.data());
    base.push_back(cs.device_s);
    base_copies.push_back(cs.with_copies_s);
    exala::stripe_lu lu(n, m.data(), n, o);
    rep = lu.report();
    ours.push_back(rep.factor_seconds);
  }
  cudaHostUnregister(m.data());
  const double s = median(ours), b = median(base), bc = median(base_copies);
  std::printf("routine,n,stripe,substripe,groups_of,device,seconds,tflops,pin_seconds,"
              "cusolver_seconds,cusolver_tflops,ratio,cusolver_with_copies_seconds,ratio_with_copies\n");
  std::printf("stripe_lu_cuda,%lld,%lld,%lld,%lld,%s,%.4f,%.2f,%.3f,%.4f,%.2f,%.3f,%.4f,%.3f\n", (long long)n,
              (long long)rep.stripe, (long long)rep.substripe, (long long)rep.meta, rep.device.c_str(), s,
              lu_flops(n) / s * 1e-12, rep.pin_seconds, b, lu_flops(n) / b * 1e-12, b / s, bc, bc / s);
  return 0;
}

int run_lu_host(const args& a) {
  const i64 n = a.n, S = a.stripe > 0 ? a.stripe : 1024, Sp = a.substripe > 0 ? a.substripe : 128;
  const i64 N = (n + S - 1) / S;
  auto eng = st::make_device_engine("cuda", 0);
  if (!eng) fail("the cuda engine is not registered");
  const auto tg = clk::now();
  // Stripe J: rows [J S, J S + r) x n columns, ld r, contiguous.
  std::vector<std::unique_ptr<double[]>> mem(static_cast<std::size_t>(N));
  std::vector<st::block> stripes(static_cast<std::size_t>(N));
  for (i64 J = 0; J < N; ++J) {
    const i64 r = std::min(S, n - J * S);
    mem[std::size_t(J)].reset(new double[std::size_t(r * n)]);
    stripes[std::size_t(J)] = st::block{mem[std::size_t(J)].get(), r, 0, n, r};
  }
  // A's entries from a generator per (stripe, column); x_true; b = A x_true
  // (row sums in long double: only a check of the solution's accuracy).
  std::vector<double> xt(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n), 0.0);
  {
    std::mt19937_64 g(a.seed + 77);
    std::uniform_real_distribution<double> d(-0.5, 0.5);
    for (double& v : xt) v = d(g);
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (i64 J = 0; J < N; ++J) {
    const st::block& s = stripes[std::size_t(J)];
    std::vector<double> col(static_cast<std::size_t>(n));
    std::vector<long double> acc(static_cast<std::size_t>(s.rows), 0.0L);
    for (i64 c = 0; c < n; ++c) {
      fill_column(col.data(), s.rows, a.seed + std::uint64_t(J) * 7919u, c);
      for (i64 i = 0; i < s.rows; ++i) {
        const double v = col[std::size_t(i)];
        s.data[i + c * s.rows] = v;
        acc[std::size_t(i)] += (long double)v * xt[std::size_t(c)];
      }
    }
    for (i64 i = 0; i < s.rows; ++i) b[std::size_t(J * S + i)] = double(acc[std::size_t(i)]);
  }
  const double gen_s = std::chrono::duration<double>(clk::now() - tg).count();
  const auto tp = clk::now();
  bool pinned = true;
  for (i64 J = 0; J < N; ++J)
    pinned = eng->pin(stripes[std::size_t(J)].data, std::size_t(stripes[std::size_t(J)].rows * n) * 8) && pinned;
  const double pin_s = std::chrono::duration<double>(clk::now() - tp).count();
  std::vector<i64> ipiv(static_cast<std::size_t>(n));
  const auto t0 = clk::now();
  st::distribution one;
  const i64 mg = st::factor_in_memory_device(
      *eng, one, n, S, Sp, N, 0.0, a.max_pivots, [&](i64 J) { return stripes[std::size_t(J)]; },
      ipiv.data(), nullptr, [](const st::block&, i64) {}, nullptr);
  const double secs = std::chrono::duration<double>(clk::now() - t0).count();
  for (i64 J = 0; J < N; ++J) eng->unpin(stripes[std::size_t(J)].data);
  // Solve on the CPU engine: local pivots, then forward and backward by stripes.
  const auto ts = clk::now();
  auto cpu = st::make_cpu_engine(0);
  std::vector<double> y = b;
  for (i64 J = 0; J < N; ++J)
    for (i64 i = 0; i < stripes[std::size_t(J)].rows; ++i)
      std::swap(y[std::size_t(J * S + i)], y[std::size_t(J * S + ipiv[std::size_t(J * S + i)])]);
  for (i64 J = 0; J < N; ++J) st::forward_stripe(*cpu, stripes[std::size_t(J)], J * S, 1, y.data(), n);
  for (i64 J = N - 1; J >= 0; --J) st::backward_stripe(*cpu, stripes[std::size_t(J)], J * S, 1, y.data(), n);
  const double solve_s = std::chrono::duration<double>(clk::now() - ts).count();
  double num = 0, den = 0;
  for (i64 i = 0; i < n; ++i) {
    num = std::max(num, std::fabs(y[std::size_t(i)] - xt[std::size_t(i)]));
    den = std::max(den, std::fabs(xt[std::size_t(i)]));
  }
  std::printf("routine,n,stripe,substripe,groups_of,stripes,device,gb,seconds,tflops,pinned,pin_seconds,"
              "generate_seconds,solve_seconds,forward_error\n");
  std::printf("stripe_lu_cuda_host,%lld,%lld,%lld,%lld,%lld,%s,%.1f,%.3f,%.2f,%d,%.2f,%.2f,%.2f,%.3g\n",
              (long long)n, (long long)S, (long long)Sp, (long long)mg, (long long)N, eng->device_name().c_str(),
              double(n) * double(n) * 8e-9, secs, lu_flops(n) / secs * 1e-12, int(pinned), pin_s, gen_s, solve_s,
              num / den);
  return 0;
}

}  // namespace exala_bench_gpu
