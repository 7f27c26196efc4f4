// gpu/cuda/src/blas12_kernels.cuh - the kernels of exala::cuda::dot, sum,
// asum, nrm2, gemv and trsv (blas12_cuda.cu places them; the arithmetic is
// exala/detail/dot2_hd.hpp's), in a header of their own so that
// tests/test_cuda_emulation.cpp runs these very kernels on the host under
// tests/cuda_emulation.hpp in CI. (An unnamed namespace: each binary
// includes this header in one source.)
#pragma once

#include <cstdint>

#include "exala/detail/dot2_hd.hpp"
#include "exala/rounding.hpp"

namespace exala::cuda::blas12_kernels {
namespace {

namespace d2 = exala::detail::dot2;
using i64 = std::int64_t;

__global__ void reduce_chunks_kernel(d2::reduction r, i64 n, const double* x, i64 incx, const double* y, i64 incy,
                                     d2::state* parts) {
  __shared__ d2::state sh[d2::dot_chains];
  const i64 b = blockIdx.x * d2::dot_chunk, e = b + d2::dot_chunk < n ? b + d2::dot_chunk : n;
  d2::state st;
  for (i64 l = b + threadIdx.x; l < e; l += d2::dot_chains)
    d2::add_term(st, r, x[d2::element(l, n, incx)], r == d2::reduction::dot ? y[d2::element(l, n, incy)] : 0.0);
  sh[threadIdx.x] = st;
  __syncthreads();
  for (int w = d2::dot_chains / 2; w >= 1; w /= 2) {  // the host engine's fold
    if (static_cast<int>(threadIdx.x) < w) d2::merge(sh[threadIdx.x], sh[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0) parts[blockIdx.x] = sh[0];
}

// Output o, chain g (blockIdx.y) of `groups`: terms [g len, (g + 1) len).
__global__ void gemv_rows_kernel(i64 outputs, i64 terms, const double* a, i64 sl, const double* x, i64 incx,
                                 i64 len, d2::state* partial) {
  const i64 o = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
  if (o >= outputs) return;
  const i64 g = blockIdx.y, l0 = g * len, l1 = l0 + len < terms ? l0 + len : terms;
  d2::state st;
  for (i64 l = l0; l < l1; ++l) d2::step(st, a[o + l * sl], x[d2::element(l, terms, incx)]);
  partial[g * outputs + o] = st;
}

struct gemv_out {
  i64 outputs, terms;
  double alpha, beta;
  double* y;
  i64 incy;
  rounding mode;
  unsigned char* flags;
  unsigned long long* count;
};

// y_o decided from its state over `chains` chains, or flagged (y_o unchanged).
__device__ void finish_output(const gemv_out& f, i64 o, const d2::state& s, int chains) {
  double* yo = f.y + d2::element(o, f.outputs, f.incy);
  double v;
  if (d2::round_state(s, static_cast<double>(f.terms), chains, f.alpha, f.beta, f.beta == 0.0 ? 0.0 : *yo, f.mode,
                      v)) {
    *yo = v;
  } else {
    f.flags[o] = 1;
    atomicAdd(f.count, 1ULL);
  }
}

__global__ void gemv_rows_finish(const d2::state* partial, int groups, gemv_out f) {
  const i64 o = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
  if (o >= f.outputs) return;
  d2::state st[64];
  for (int g = 0; g < groups; ++g) st[g] = partial[g * f.outputs + o];
  for (int w = groups / 2; w >= 1; w /= 2)  // the host engine's fold
    for (int k = 0; k < w; ++k) d2::merge(st[k], st[k + w]);
  finish_output(f, o, st[0], groups);
}

// A warp per output: lanes interleaved over the contiguous terms.
__global__ void gemv_cols_kernel(const double* a, i64 so, const double* x, i64 incx, gemv_out f) {
  const i64 o = (blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x) / d2::col_chains;
  const int lane = static_cast<int>(threadIdx.x % d2::col_chains);
  if (o >= f.outputs) return;  // the whole warp
  const double* line = a + o * so;
  d2::state st;
  for (i64 l = lane; l < f.terms; l += d2::col_chains) d2::step(st, line[l], x[d2::element(l, f.terms, incx)]);
  for (int w = d2::col_chains / 2; w >= 1; w /= 2) {  // the host engine's fold: lane k takes lane k + w
    d2::state other;
    other.s = __shfl_down_sync(0xffffffffu, st.s, w);
    other.c = __shfl_down_sync(0xffffffffu, st.c, w);
    other.pa = __shfl_down_sync(0xffffffffu, st.pa, w);
    if (lane < w) d2::merge(st, other);
  }
  if (lane == 0) finish_output(f, o, st, d2::col_chains);
}

// trsv, rows [k1, n) of the forward form: their chains take the solved
// columns [k0, k1) (thread per row; neighbouring rows are neighbouring
// addresses for column-major lower N).
__global__ void trsv_update_kernel(d2::trsv_form f, i64 k0, i64 k1, const double* x, d2::state* states) {
  const i64 i = k1 + blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
  if (i >= f.n) return;
  d2::state st = states[i];
  for (i64 j = k0; j < k1; ++j) d2::step(st, f.at(i, j), x[f.xi(j)]);
  states[i] = st;
}

// trsv, the diagonal block [k0, k1) from row `first` on (one CUDA block,
// thread t for row k0 + t): row s decided by its thread, then every later
// row of the block steps with (a_rs, x_s). first_known: x_first was formed
// on the host, only the steps remain. An undecided row stops the block
// (*stop = s; the states go back to memory) for the host's exact x_s.
__global__ void trsv_diag_kernel(d2::trsv_form f, i64 k0, i64 k1, i64 first, int first_known, int unit,
                                 rounding mode, double* x, d2::state* states, i64* stop) {
  // The row that halted (k1: none), in a slot per step parity: a thread
  // still reading step s's slot after its barrier must not see step s + 1's
  // halt (one flag did that, and that thread skipped x_s: found by the host
  // emulation, test_cuda_emulation), and no slot is written while it is
  // read (step s + 2's writer waits at step s + 1's barrier).
  __shared__ i64 halt_at[2];
  const i64 r = k0 + threadIdx.x;
  const bool mine = r < k1 && r >= first;
  d2::state st;
  if (mine) st = states[r];
  if (threadIdx.x == 0) halt_at[0] = halt_at[1] = k1;
  __syncthreads();
  i64 s = first;
  if (first_known) {
    if (mine && r > first) d2::step(st, f.at(r, first), x[f.xi(first)]);
    ++s;
  }
  for (; s < k1; ++s) {
    if (r == s) {
      double v;
      if (d2::trsv_decide(st, static_cast<double>(s), x[f.xi(s)], f.at(s, s), unit != 0, mode, v)) {
        x[f.xi(s)] = v;
      } else {
        halt_at[s & 1] = s;
        *stop = s;
      }
    }
    __syncthreads();
    if (halt_at[s & 1] == s) break;
    if (mine && r > s) d2::step(st, f.at(r, s), x[f.xi(s)]);
  }
  if (mine && r >= s) states[r] = st;  // the rows still to solve
}

}  // namespace
}  // namespace exala::cuda::blas12_kernels
