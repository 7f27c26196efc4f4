// gpu/cuda/src/engine_cuda.cpp - the stripe LU's CUDA engine: cuBLAS DGEMM /
// DTRSM, cuSOLVER DGETRF on the device, a row-interchange kernel, and the
// asynchronous copies of stripe/device_driver.hpp on three streams.
//
// Reproducibility: every dense call runs on one stream with one cuBLAS and one
// cuSOLVER handle in their default (deterministic) modes: cuBLAS and cuSOLVER
// give the same bits for the same call on the same GPU model and library
// version (the stripe driver keeps sizes, leading dimensions and alignments
// fixed), so runs, caches, pivot-group sizes and host thread counts do not
// change the result. Bits differ from the CPU engine's (other BLAS kernels).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <utility>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "exala/cuda.hpp"
#include "exala/detail/backend_hooks.hpp"
#include "cuda_check.hpp"
#include "exala/error.hpp"
#include "laswp.hpp"
#include "plugin_tables.hpp"
#include "stripe/engine.hpp"

namespace exala::cuda {
namespace {

namespace st = exala::detail::stripe;
using i64 = std::int64_t;

using detail::check;
using detail::chosen_device;

// EXALA_CUDA_STRIPE_PROFILE=1: the device time of each kind of call (timing
// events around it on the compute stream), the gemm rate, and the host time
// spent blocked in synchronisations, printed to stderr when the engine goes
// away: where the in-core LU loses against cusolverDnDgetrf (issue 18).
class call_profile {
 public:
  enum kind { gemm, trsm, getrf, laswp, kinds };
  bool on = std::getenv("EXALA_CUDA_STRIPE_PROFILE") != nullptr;

  // Events around one call of kind k on stream s (no-ops when off).
  struct span {
    call_profile* p;
    kind k;
    cudaStream_t s;
    cudaEvent_t b = nullptr;
    span(call_profile* prof, kind kk, cudaStream_t ss) : p(prof), k(kk), s(ss) {
      if (p->on && cudaEventCreate(&b) == cudaSuccess) cudaEventRecord(b, s);
    }
    ~span() {
      cudaEvent_t e = nullptr;
      if (b && cudaEventCreate(&e) == cudaSuccess) {
        cudaEventRecord(e, s);
        p->spans[k].emplace_back(b, e);
      }
    }
  };
  // Host time blocked in f().
  template <class F>
  void blocked(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    if (on) host_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  void add_flops(double f) { gemm_flops += f; }
  void report() {
    if (!on) return;
    static const char* names[kinds] = {"gemm", "trsm", "getrf", "laswp"};
    double ms[kinds] = {};
    for (int k = 0; k < kinds; ++k)
      for (auto& [b, e] : spans[k]) {
        float t = 0;
        if (cudaEventSynchronize(e) == cudaSuccess && cudaEventElapsedTime(&t, b, e) == cudaSuccess) ms[k] += t;
        cudaEventDestroy(b);
        cudaEventDestroy(e);
      }
    std::fprintf(stderr, "exala cuda stripe engine profile:");
    for (int k = 0; k < kinds; ++k)
      std::fprintf(stderr, " %s %zu calls %.1f ms;", names[k], spans[k].size(), ms[k]);
    std::fprintf(stderr, " gemm %.1f TFLOP/s; host blocked in synchronisations %.1f ms\n",
                 ms[gemm] > 0 ? gemm_flops / (ms[gemm] * 1e-3) * 1e-12 : 0.0, host_ms);
  }

 private:
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> spans[kinds];
  double gemm_flops = 0, host_ms = 0;
};

class cuda_engine final : public st::device_engine {
 public:
  explicit cuda_engine(int threads) : threads_(threads) {
    device_ = chosen_device();
    check(cudaSetDevice(device_), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    name_ = std::string(prop.name) + " (" + std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
    for (auto& s : streams_) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    for (auto& e : events_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    check(cublasCreate(&blas_), "cublasCreate");
    check(cublasSetStream(blas_, streams_[compute]), "cublasSetStream");
    check(cublasSetPointerMode(blas_, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    check(cusolverDnCreate(&solver_), "cusolverDnCreate");
    check(cusolverDnSetStream(solver_, streams_[compute]), "cusolverDnSetStream");
    check(cudaMalloc(&info_, sizeof(int)), "cudaMalloc(info)");
  }
  ~cuda_engine() override {
    for (auto s : streams_) cudaStreamSynchronize(s);
    prof_.report();
    for (void* p : pinned_) cudaHostUnregister(p);
    cudaFree(work_);
    cudaFree(ipiv32_);
    cudaFree(ipiv64_);
    cudaFree(info_);
    cusolverDnDestroy(solver_);
    cublasDestroy(blas_);
    for (auto e : events_) cudaEventDestroy(e);
    for (auto s : streams_) cudaStreamDestroy(s);
  }

  std::string name() const override { return "cuda"; }
  int threads() const override { return threads_; }
  std::string device_name() const override { return name_; }

  void gemm_sub(i64 m, i64 n, i64 k, const double* a, i64 lda, const double* b, i64 ldb, double* c,
                i64 ldc) override {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const double minus_one = -1.0, one = 1.0;
    const call_profile::span t(&prof_, call_profile::gemm, streams_[compute]);
    prof_.add_flops(2.0 * double(m) * double(n) * double(k));
    check(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &minus_one, a, int(lda), b,
                      int(ldb), &one, c, int(ldc)),
          "cublasDgemm");
  }
  void trsm_right_upper(i64 m, i64 k, const double* u, i64 ldu, double* b, i64 ldb) override {
    if (m <= 0 || k <= 0) return;
    const double one = 1.0;
    const call_profile::span t(&prof_, call_profile::trsm, streams_[compute]);
    check(cublasDtrsm(blas_, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                      int(m), int(k), &one, u, int(ldu), b, int(ldb)),
          "cublasDtrsm");
  }
  void trsm_left_lower_unit(i64 k, i64 n, const double* l, i64 ldl, double* b, i64 ldb) override {
    if (k <= 0 || n <= 0) return;
    const double one = 1.0;
    const call_profile::span t(&prof_, call_profile::trsm, streams_[compute]);
    check(cublasDtrsm(blas_, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, int(k),
                      int(n), &one, l, int(ldl), b, int(ldb)),
          "cublasDtrsm");
  }
  void trsm_left_upper(i64 k, i64 n, const double* u, i64 ldu, double* b, i64 ldb) override {
    if (k <= 0 || n <= 0) return;
    const double one = 1.0;
    const call_profile::span t(&prof_, call_profile::trsm, streams_[compute]);
    check(cublasDtrsm(blas_, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                      int(k), int(n), &one, u, int(ldu), b, int(ldb)),
          "cublasDtrsm");
  }
  i64 getrf(i64 m, i64 n, double* a, i64 lda, i64* ipiv) override {
    if (m <= 0 || n <= 0) return 0;
    int lwork = 0;
    check(cusolverDnDgetrf_bufferSize(solver_, int(m), int(n), a, int(lda), &lwork), "cusolverDnDgetrf_bufferSize");
    if (std::size_t(lwork) > work_size_) {
      cudaFree(work_);
      work_ = nullptr;
      check(cudaMalloc(&work_, std::size_t(lwork) * sizeof(double)), "cudaMalloc(getrf workspace)");
      work_size_ = std::size_t(lwork);
    }
    const i64 k = std::min(m, n);
    grow_ipiv(k);
    {
      const call_profile::span t(&prof_, call_profile::getrf, streams_[compute]);
      check(cusolverDnDgetrf(solver_, int(m), int(n), a, int(lda), work_, ipiv32_, info_), "cusolverDnDgetrf");
    }
    std::vector<int> piv(static_cast<std::size_t>(k));
    int info = 0;
    check(cudaMemcpyAsync(piv.data(), ipiv32_, std::size_t(k) * sizeof(int), cudaMemcpyDeviceToHost,
                          streams_[compute]),
          "cudaMemcpyAsync(pivots)");
    check(cudaMemcpyAsync(&info, info_, sizeof(int), cudaMemcpyDeviceToHost, streams_[compute]),
          "cudaMemcpyAsync(info)");
    prof_.blocked([&] { check(cudaStreamSynchronize(streams_[compute]), "getrf"); });
    for (i64 i = 0; i < k; ++i) ipiv[i] = piv[std::size_t(i)] - 1;
    return info > 0 ? info : 0;
  }
  void laswp(i64 ncols, double* a, i64 lda, i64 k1, i64 k2, const i64* ipiv) override {
    if (ncols <= 0 || k2 <= k1) return;
    grow_ipiv(k2);
    // Pageable source: the copy returns once the pivots are staged.
    check(cudaMemcpyAsync(ipiv64_ + k1, ipiv + k1, std::size_t(k2 - k1) * sizeof(i64), cudaMemcpyHostToDevice,
                          streams_[compute]),
          "cudaMemcpyAsync(pivots)");
    const call_profile::span t(&prof_, call_profile::laswp, streams_[compute]);
    check(launch_laswp(streams_[compute], ncols, a, lda, k1, k2, ipiv64_), "laswp kernel launch");
  }
  void read_diagonal(const double* a, i64 lda, i64 k, double* out) override {
    if (k <= 0) return;
    check(cudaMemcpy2DAsync(out, sizeof(double), a, std::size_t(lda + 1) * sizeof(double), sizeof(double),
                            std::size_t(k), cudaMemcpyDeviceToHost, streams_[compute]),
          "cudaMemcpy2DAsync(diagonal)");
    check(cudaStreamSynchronize(streams_[compute]), "reading the diagonal");
  }

  std::size_t free_bytes() override {
    std::size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free;
  }
  double* alloc(std::size_t count, const char* what) override {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(double));
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw exala::error(std::string("CUDA: cannot allocate ") + std::to_string((count * 8) >> 20) +
                         " MiB of device memory for " + what + " on " + name_ + ": " + cudaGetErrorString(e));
    }
    return static_cast<double*>(p);
  }
  void release(double* p) noexcept override {
    if (p) cudaFree(p);
  }
  bool pin(void* p, std::size_t bytes) override {
    if (!p || bytes == 0) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (pinned_.count(p)) return true;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    pinned_.insert(p);
    return true;
  }
  void unpin(void* p) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pinned_.erase(p)) cudaHostUnregister(p);
  }
  void upload(const double* host, i64 ldh, double* dev, i64 ldd, i64 rows, i64 cols) override {
    if (rows <= 0 || cols <= 0) return;
    check(cudaMemcpy2DAsync(dev, std::size_t(ldd) * 8, host, std::size_t(ldh) * 8, std::size_t(rows) * 8,
                            std::size_t(cols), cudaMemcpyHostToDevice, streams_[h2d]),
          "upload (cudaMemcpy2DAsync)");
  }
  void download(const double* dev, i64 ldd, double* host, i64 ldh, i64 rows, i64 cols) override {
    if (rows <= 0 || cols <= 0) return;
    check(cudaMemcpy2DAsync(host, std::size_t(ldh) * 8, dev, std::size_t(ldd) * 8, std::size_t(rows) * 8,
                            std::size_t(cols), cudaMemcpyDeviceToHost, streams_[d2h]),
          "download (cudaMemcpy2DAsync)");
  }
  event record(queue q) override {
    const int e = next_event_;
    next_event_ = (next_event_ + 1) % int(events_.size());
    check(cudaEventRecord(events_[std::size_t(e)], streams_[q]), "cudaEventRecord");
    return e;
  }
  void wait(queue q, event e) override {
    check(cudaStreamWaitEvent(streams_[q], events_[std::size_t(e)], 0), "cudaStreamWaitEvent");
  }
  void sync(event e) override {
    prof_.blocked([&] { check(cudaEventSynchronize(events_[std::size_t(e)]), "cudaEventSynchronize"); });
  }
  void sync_all() override {
    prof_.blocked([&] {
      for (auto s : streams_) check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    });
  }

 private:
  void grow_ipiv(i64 k) {
    if (k <= ipiv_size_) return;
    cudaFree(ipiv32_);
    cudaFree(ipiv64_);
    ipiv32_ = nullptr;
    ipiv64_ = nullptr;
    check(cudaMalloc(&ipiv32_, std::size_t(k) * sizeof(int)), "cudaMalloc(pivots)");
    check(cudaMalloc(&ipiv64_, std::size_t(k) * sizeof(i64)), "cudaMalloc(pivots)");
    ipiv_size_ = k;
  }

  int threads_ = 0, device_ = 0;
  std::string name_;
  std::array<cudaStream_t, 3> streams_{};
  // A ring of events: an event is reused 4096 records later. The stripe
  // driver keeps at most 2 x (pivot slots <= 1024) + a few outstanding.
  std::array<cudaEvent_t, 4096> events_{};
  int next_event_ = 0;
  cublasHandle_t blas_ = nullptr;
  cusolverDnHandle_t solver_ = nullptr;
  double* work_ = nullptr;
  std::size_t work_size_ = 0;
  int* ipiv32_ = nullptr;
  i64* ipiv64_ = nullptr;
  i64 ipiv_size_ = 0;
  int* info_ = nullptr;
  std::mutex mutex_;
  std::set<void*> pinned_;
  call_profile prof_;
};

}  // namespace

namespace detail {
const void* stripe_engine_table() {
  static const st::stripe_engine_hooks hooks{[](int threads) -> std::unique_ptr<st::device_engine> {
    return std::make_unique<cuda_engine>(threads);
  }};
  return &hooks;
}
}  // namespace detail

bool register_stripe_engine() noexcept {
  try {
    exala::detail::register_hooks(backend::cuda, exala::detail::hook_kind::stripe_engine,
                                  detail::stripe_engine_table());
    return true;
  } catch (...) {
    return false;
  }
}

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace exala::cuda
