// tests/cuda_emulation.hpp - just enough CUDA to run the project's kernels
// on the host in CI (test_cuda_emulation): each CUDA thread of a block is a
// std::thread, blocks run one after the other, __shared__ variables are
// function-local statics (shared by the block's threads, as blocks never
// overlap), __syncthreads is a std::barrier that exited threads leave (as
// on the device), warp shuffles exchange through a per-warp slot array with
// a warp barrier, atomics are std::atomic_ref. It checks the kernels' index
// arithmetic and barrier structure; it says nothing about speed, and a
// kernel that relies on warp-synchronous execution without shuffles or
// barriers would not be caught. Include before the kernels' header.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

namespace exala_emu {

inline thread_local dim3 block_idx, thread_idx, block_dim, grid_dim;
inline thread_local std::barrier<>* block_barrier = nullptr;
inline thread_local std::barrier<>* warp_barrier = nullptr;
inline thread_local double* warp_slots = nullptr;
inline thread_local unsigned lane = 0;

// Runs kernel(args...) over the grid.
template <class K, class... A>
void launch(dim3 grid, dim3 block, K kernel, A... args) {
  const unsigned nt = block.x * block.y * block.z;
  const unsigned warps = (nt + 31) / 32;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        std::barrier<> bar(nt);
        std::vector<std::unique_ptr<std::barrier<>>> wbar;
        std::vector<std::vector<double>> slots(warps, std::vector<double>(32));
        for (unsigned w = 0; w < warps; ++w) wbar.push_back(std::make_unique<std::barrier<>>(std::min(32u, nt - 32 * w)));
        std::vector<std::thread> ts;
        ts.reserve(nt);
        for (unsigned t = 0; t < nt; ++t)
          ts.emplace_back([&, t, bx, by, bz] {
            block_idx = dim3(bx, by, bz);
            thread_idx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
            block_dim = block;
            grid_dim = grid;
            block_barrier = &bar;
            warp_barrier = wbar[t / 32].get();
            warp_slots = slots[t / 32].data();
            lane = t % 32;
            kernel(args...);
            bar.arrive_and_drop();  // an exited thread no longer holds the block's barriers
            warp_barrier->arrive_and_drop();
          });
        for (auto& th : ts) th.join();
      }
}

// A kernel without barriers or shuffles, one CUDA thread after the other
// (much cheaper than a std::thread each; a barrier in it throws).
template <class K, class... A>
void launch_serial(dim3 grid, dim3 block, K kernel, A... args) {
  block_barrier = nullptr;
  warp_barrier = nullptr;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned t = 0; t < block.x * block.y * block.z; ++t) {
          block_idx = dim3(bx, by, bz);
          thread_idx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
          block_dim = block;
          grid_dim = grid;
          kernel(args...);
        }
}

struct barrier_in_serial_launch {};
inline void syncthreads() {
  if (block_barrier == nullptr) throw barrier_in_serial_launch{};
  block_barrier->arrive_and_wait();
}

// __shfl_down_sync over a full warp: lane k gets lane k + w's value (its own
// when k + w is past the warp).
inline double shfl_down(double v, unsigned w) {
  if (warp_barrier == nullptr) throw barrier_in_serial_launch{};
  warp_slots[lane] = v;
  warp_barrier->arrive_and_wait();
  const double r = lane + w < 32 ? warp_slots[lane + w] : v;
  warp_barrier->arrive_and_wait();
  return r;
}

template <class T>
T atomic_max(T* p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (old < v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
template <class T>
T atomic_add(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_add(v);
}

}  // namespace exala_emu

#define __global__
#define __device__
#define __shared__ static
#define blockIdx exala_emu::block_idx
#define threadIdx exala_emu::thread_idx
#define blockDim exala_emu::block_dim
#define gridDim exala_emu::grid_dim
#define __syncthreads() exala_emu::syncthreads()
#define __shfl_down_sync(mask, v, w) exala_emu::shfl_down((v), (w))
#define atomicMax(p, v) exala_emu::atomic_max((p), (v))
#define atomicAdd(p, v) exala_emu::atomic_add((p), (v))
