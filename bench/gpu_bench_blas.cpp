// gpu_bench_blas.cpp - exala-bench-gpu blas: the exact OpenCL kernels against
// cuBLAS on the same GPU, data resident in device memory for both.
//
//   blas [--n-dot N] [--n-gemv N] [--n-trsv N] [--n-gemm N] [--reps R]
//        [--check-cols C] [--seed X]
// Every routine: R interleaved repetitions of (ours, cuBLAS), medians. Ours is
// timed host-side around the call (it returns a rounded value or waits for
// its queue), cuBLAS with cudaDeviceSynchronize around the call. dot and
// gemv report bytes moved / time (dot: 16 n; gemv: 8 n^2), trsv 4 n^2 bytes,
// gemm 2 n^3 flops. `same_bits` compares our result with the CPU backends
// in this process: dot with simd, gemv and trsv with omp on every entry,
// gemm on the first C columns (omp) - 1 means identical bits.
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
#include "exala/blas3.hpp"
#include "exala/opencl.hpp"
#include "exala/opencl_level23.hpp"
#include "gpu_bench.hpp"

namespace exala_bench_gpu {

namespace ocl = exala::opencl;
using clk = std::chrono::steady_clock;

namespace {

void cu(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}
void cb(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fail(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}

std::vector<double> uniform(std::size_t n, std::uint64_t seed, double lo = -0.5, double hi = 0.5) {
  std::vector<double> v(n);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  for (double& x : v) x = d(g);
  return v;
}

struct dev_vec {
  double* p = nullptr;
  explicit dev_vec(const std::vector<double>& h) {
    cu(cudaMalloc(&p, h.size() * 8), "cudaMalloc");
    cu(cudaMemcpy(p, h.data(), h.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~dev_vec() { cudaFree(p); }
};

template <class F>
double seconds(F&& f) {
  const auto t0 = clk::now();
  f();
  return std::chrono::duration<double>(clk::now() - t0).count();
}

void row(const char* routine, long long n, const char* unit, double amount, double ours, double theirs,
         int same) {
  std::printf("%s,%lld,%s,%.6f,%.2f,%.6f,%.2f,%.3f,%d\n", routine, n, unit, ours, amount / ours, theirs,
              amount / theirs, theirs / ours, same);
  std::fflush(stdout);
}

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 8) == 0;
}

}  // namespace

int run_blas(const args& a) {
  const ocl::device_info dev = ocl::current_device();
  std::fprintf(stderr, "OpenCL device: %s / %s\n", dev.platform.c_str(), dev.name.c_str());
  cublasHandle_t h;
  cb(cublasCreate(&h), "cublasCreate");
  const int R = a.reps;
  std::printf("routine,n,unit,seconds,ours_rate,cublas_seconds,cublas_rate,ratio_time,same_bits\n");

  if (a.n_dot > 0) {  // ---------------------------------------------- dot
    const i64 n = a.n_dot;
    const auto x = uniform(static_cast<std::size_t>(n), a.seed), y = uniform(static_cast<std::size_t>(n), a.seed + 1);
    ocl::buffer ox(x.data(), x.size()), oy(y.data(), y.size());
    dev_vec cx(x), cy(y);
    std::vector<double> to, tc;
    double r_ours = 0, r_cu = 0;
    for (int r = 0; r < R; ++r) {
      to.push_back(seconds([&] { r_ours = ocl::dot(n, ox, 1, oy, 1); }));
      tc.push_back(seconds([&] {
        cb(cublasDdot(h, int(n), cx.p, 1, cy.p, 1, &r_cu), "cublasDdot");
        cu(cudaDeviceSynchronize(), "sync");
      }));
    }
    exala::exec ex;
    ex.backend = exala::backend::omp;
    const double cpu = exala::dot(n, x.data(), 1, y.data(), 1, ex);
    row("dot", n, "GB/s", 16.0 * double(n) * 1e-9, median(to), median(tc), std::memcmp(&cpu, &r_ours, 8) == 0);
  }
  if (a.n_gemv > 0) {  // -------------------------------------------- gemv
    const i64 n = a.n_gemv;
    const auto A = uniform(std::size_t(n * n), a.seed + 2), x = uniform(static_cast<std::size_t>(n), a.seed + 3);
    std::vector<double> yo(static_cast<std::size_t>(n));
    {
      ocl::buffer oa(A.data(), A.size()), ox(x.data(), x.size()), oy(static_cast<std::size_t>(n));
      dev_vec ca(A), cx(x), cyv(std::vector<double>(static_cast<std::size_t>(n), 0.0));
      std::vector<double> to, tc;
      const double one = 1, zero = 0;
      for (int r = 0; r < R; ++r) {
        to.push_back(seconds([&] {
          ocl::gemv(exala::layout::col_major, exala::transpose::none, n, n, 1.0, oa, n, ox, 1, 0.0, oy, 1);
          ocl::finish();
        }));
        tc.push_back(seconds([&] {
          cb(cublasDgemv(h, CUBLAS_OP_N, int(n), int(n), &one, ca.p, int(n), cx.p, 1, &zero, cyv.p, 1), "cublasDgemv");
          cu(cudaDeviceSynchronize(), "sync");
        }));
      }
      oy.read(yo.data(), yo.size());
      std::vector<double> yc(static_cast<std::size_t>(n));
      exala::exec ex;
      ex.backend = exala::backend::omp;
      exala::gemv(exala::layout::col_major, exala::transpose::none, n, n, 1.0, A.data(), n, x.data(), 1, 0.0,
                  yc.data(), 1, ex);
      row("gemv", n, "GB/s", 8.0 * double(n) * double(n) * 1e-9, median(to), median(tc), same(yo, yc));
    }
  }
  if (a.n_trsv > 0) {  // -------------------------------------------- trsv
    const i64 n = a.n_trsv;
    // Lower triangular, unit-ish diagonal, small off-diagonal entries: a
    // well-conditioned system (the solve's cost does not depend on the values).
    auto L = uniform(std::size_t(n * n), a.seed + 4, -1.0 / double(n), 1.0 / double(n));
    for (i64 i = 0; i < n; ++i) L[std::size_t(i + i * n)] = 1.0 + 0.5 * L[std::size_t(i + i * n)] * double(n);
    const auto b = uniform(static_cast<std::size_t>(n), a.seed + 5);
    std::vector<double> xo = b;
    {
      ocl::buffer ol(L.data(), L.size()), ob(static_cast<std::size_t>(n));
      dev_vec cl(L), cbv(b);
      std::vector<double> to, tc;
      for (int r = 0; r < R; ++r) {
        ob.write(b.data(), b.size());
        cu(cudaMemcpy(cbv.p, b.data(), b.size() * 8, cudaMemcpyHostToDevice), "reset b");
        to.push_back(seconds([&] {
          ocl::trsv(exala::layout::col_major, exala::uplo::lower, exala::transpose::none, exala::diag::non_unit,
                    n, ol, n, ob, 1);
          ocl::finish();
        }));
        tc.push_back(seconds([&] {
          cb(cublasDtrsv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, int(n), cl.p, int(n), cbv.p, 1),
             "cublasDtrsv");
          cu(cudaDeviceSynchronize(), "sync");
        }));
      }
      ob.read(xo.data(), xo.size());
      std::vector<double> xc = b;
      exala::exec ex;
      ex.backend = exala::backend::omp;
      exala::trsv(exala::layout::col_major, exala::uplo::lower, exala::transpose::none, exala::diag::non_unit, n,
                  L.data(), n, xc.data(), 1, ex);
      row("trsv", n, "GB/s", 4.0 * double(n) * double(n) * 1e-9, median(to), median(tc), same(xo, xc));
    }
  }
  if (a.n_gemm > 0) {  // -------------------------------------------- gemm
    const i64 n = a.n_gemm;
    const auto A = uniform(std::size_t(n * n), a.seed + 6), B = uniform(std::size_t(n * n), a.seed + 7);
    std::vector<double> co(std::size_t(n * n));
    {
      ocl::buffer oa(A.data(), A.size()), ob(B.data(), B.size()), oc(std::size_t(n * n));
      dev_vec ca(A), cbm(B), cc(std::vector<double>(std::size_t(n * n), 0.0));
      std::vector<double> to, tc;
      const double one = 1, zero = 0;
      for (int r = 0; r < R; ++r) {
        to.push_back(seconds([&] {
          ocl::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, n, n, n, 1.0, oa, n,
                    ob, n, 0.0, oc, n);
          ocl::finish();
        }));
        tc.push_back(seconds([&] {
          cb(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, ca.p, int(n), cbm.p, int(n),
                         &zero, cc.p, int(n)),
             "cublasDgemm");
          cu(cudaDeviceSynchronize(), "sync");
        }));
      }
      oc.read(co.data(), co.size());
      const i64 cols = std::min<i64>(n, a.check_cols);
      std::vector<double> cc_cpu(std::size_t(n * cols));
      exala::exec ex;
      ex.backend = exala::backend::omp;
      exala::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, n, cols, n, 1.0,
                  A.data(), n, B.data(), n, 0.0, cc_cpu.data(), n, ex);
      const std::vector<double> head(co.begin(), co.begin() + n * cols);
      row("gemm", n, "TFLOP/s", 2.0 * double(n) * double(n) * double(n) * 1e-12, median(to), median(tc),
          same(head, cc_cpu));
    }
  }
  cublasDestroy(h);
  return 0;
}

}  // namespace exala_bench_gpu
