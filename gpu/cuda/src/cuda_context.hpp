// gpu/cuda/src/cuda_context.hpp - what backend::cuda's routines share: the
// process's stream and cuBLAS handle on the chosen device (EXALA_CUDA_DEVICE;
// calls serialised by its mutex), device allocations freed on scope exit,
// and grid sizes.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "cuda_check.hpp"
#include "exala/error.hpp"

// A kernel launch on a stream (no dynamic shared memory). A macro so that
// tests/test_cuda_drivers.cpp can compile these .cu files for the host
// against a CUDA emulation, where it runs the kernel there instead.
#ifndef EXALA_CUDA_LAUNCH
#define EXALA_CUDA_LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#endif

namespace exala::cuda::detail {

// A device allocation, freed on scope exit.
struct device_buffer {
  void* p = nullptr;
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes, const char* what) {
    if (bytes > 0) check(cudaMalloc(&p, bytes), what);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (p) cudaFree(p);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

struct context {
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::mutex mutex;
};

// Created on first use (exala::error when there is no device; the next call
// tries again); lives for the process (CUDA tears down at exit).
inline context& ctx() {
  static context* c = [] {
    auto* x = new context;
    x->device = chosen_device();
    check(cudaSetDevice(x->device), "cudaSetDevice");
    // A blocking stream: the caller's work on the default stream (a cudaMemcpy
    // from pageable memory returns before its DMA ends; a kernel that wrote x)
    // is ordered before ours, as it is for cuBLAS on its default stream. A
    // non-blocking stream read stale inputs on an H200 (test_blas12_cuda's dot
    // at n = 65537, one run in two).
    check(cudaStreamCreateWithFlags(&x->stream, cudaStreamDefault), "cudaStreamCreate");
    check(cublasCreate(&x->blas), "cublasCreate");
    check(cublasSetStream(x->blas, x->stream), "cublasSetStream");
    check(cublasSetPointerMode(x->blas, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    return x;
  }();
  return *c;
}

// One call's hold on the context: its mutex, and the device made current
// for this host thread.
struct session {
  context& cx;
  std::lock_guard<std::mutex> lock;
  session() : cx(ctx()), lock(cx.mutex) { check(cudaSetDevice(cx.device), "cudaSetDevice"); }
};

inline int blocks_for(std::int64_t n, int threads) { return static_cast<int>((n + threads - 1) / threads); }

// The device-pointer APIs take memory the device can address (cudaMalloc,
// cudaMallocManaged, pinned host memory); a plain host pointer would fault
// in a kernel and leave the context unusable, so it is refused by name.
inline void check_device_pointer(const char* name, const void* p) {
  if (p == nullptr) return;  // the argument checks decide whether null is allowed
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it
    throw exala::invalid_argument(name, "is not a pointer the CUDA runtime knows");
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    throw exala::invalid_argument(name, "is host memory the device cannot address (pass cudaMalloc'd, managed "
                                        "or pinned memory, or use exala::gemm with backend::cuda for host data)");
}

}  // namespace exala::cuda::detail
