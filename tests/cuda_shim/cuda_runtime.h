// tests/cuda_shim/cuda_runtime.h - the subset of the CUDA runtime that
// gpu/cuda/src/gemm_ozaki8.cu and blas12_cuda.cu use, on the host, for
// test_cuda_drivers: "device" memory is host memory from cudaMalloc (kept
// in a registry so that cudaPointerGetAttributes can tell it from other
// host memory), copies are memcpy, streams run synchronously, kernels run
// under tests/cuda_emulation.hpp. One emulated device. Not a CUDA: only
// what those files call, with the semantics they rely on.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>
#include <mutex>

#include "cuda_emulation.hpp"

#define EXALA_CUDA_LAUNCH(kernel, grid, block, stream, ...) \
  exala_emu::launch(dim3(grid), dim3(block), kernel, __VA_ARGS__)

enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,
                      cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes {
  cudaMemoryType type = cudaMemoryTypeUnregistered;
  int device = 0;
};
struct CUstream_st {};
using cudaStream_t = CUstream_st*;
constexpr unsigned cudaStreamDefault = 0;
constexpr unsigned cudaStreamNonBlocking = 1;

namespace exala_shim {
// Allocations: address -> size.
inline std::map<const char*, std::size_t>& allocations() {
  static std::map<const char*, std::size_t> m;
  return m;
}
inline std::mutex& allocations_mutex() {
  static std::mutex m;
  return m;
}
// The flags of every stream created so far, in order (test_cuda_drivers
// checks that the device-pointer API's stream is ordered after the
// caller's default-stream work).
inline std::vector<unsigned>& stream_flags() {
  static std::vector<unsigned> f;
  return f;
}
}  // namespace exala_shim

inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "emulated CUDA error";
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  exala_shim::stream_flags().push_back(flags);
  static CUstream_st one;
  *s = &one;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaMemGetInfo(std::size_t* free_b, std::size_t* total_b) {
  *free_b = *total_b = std::size_t{8} << 30;
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (*p == nullptr) return cudaErrorMemoryAllocation;
  const std::lock_guard<std::mutex> lock(exala_shim::allocations_mutex());
  exala_shim::allocations()[static_cast<const char*>(*p)] = bytes;
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* p) {
  if (p == nullptr) return cudaSuccess;
  {
    const std::lock_guard<std::mutex> lock(exala_shim::allocations_mutex());
    exala_shim::allocations().erase(static_cast<const char*>(p));
  }
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  const std::lock_guard<std::mutex> lock(exala_shim::allocations_mutex());
  const char* c = static_cast<const char*>(p);
  auto& m = exala_shim::allocations();
  auto it = m.upper_bound(c);
  a->type = cudaMemoryTypeUnregistered;
  if (it != m.begin()) {
    --it;
    if (c < it->first + it->second) a->type = cudaMemoryTypeDevice;
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* d, const void* s, std::size_t n, cudaMemcpyKind) {
  if (n) std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, std::size_t n, cudaMemcpyKind k, cudaStream_t = nullptr) {
  return cudaMemcpy(d, s, n, k);
}
inline cudaError_t cudaMemcpy2D(void* d, std::size_t dp, const void* s, std::size_t sp, std::size_t w, std::size_t h,
                                cudaMemcpyKind) {
  if (w > dp || w > sp) return cudaErrorInvalidValue;  // as the runtime: a pitch below the width
  for (std::size_t r = 0; r < h; ++r)
    std::memmove(static_cast<char*>(d) + r * dp, static_cast<const char*>(s) + r * sp, w);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2DAsync(void* d, std::size_t dp, const void* s, std::size_t sp, std::size_t w,
                                     std::size_t h, cudaMemcpyKind k, cudaStream_t = nullptr) {
  return cudaMemcpy2D(d, dp, s, sp, w, h, k);
}
inline cudaError_t cudaMemset(void* p, int v, std::size_t n) {
  std::memset(p, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* p, int v, std::size_t n, cudaStream_t = nullptr) {
  return cudaMemset(p, v, n);
}
