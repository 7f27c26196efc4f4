// gpu/cuda/src/gemm_ozaki8_kernels.cuh - the kernels of backend::cuda's exact
// gemm (gemm_ozaki8.cu places them; the arithmetic is ozaki8.hpp's). In a
// header of their own so that tests/test_cuda_emulation.cpp can run these
// very kernels on the host under a small CUDA emulation
// (tests/cuda_emulation.hpp: a std::thread per CUDA thread, std::barrier
// for __syncthreads), which checks their index arithmetic in CI.
#pragma once

#include <cstdint>

#include "exala/detail/ozaki8.hpp"

// (An unnamed namespace: each binary includes this header in one source.)
namespace exala::cuda::ozaki8_kernels {
namespace {

namespace oz = exala::detail::ozaki8;
using i64 = std::int64_t;

// Element l of line q: base[q * ld + l] (contiguous lines) or base[q + l * ld].
struct line_src {
  const double* base;
  i64 ld;
  bool contiguous;
  __device__ double get(i64 q, i64 l) const { return contiguous ? base[q * ld + l] : base[q + l * ld]; }
};

__global__ void scan_kernel(line_src src, i64 lines, i64 len, oz::line_info* info, int* max_width) {
  const i64 q = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
  if (q >= lines) return;
  oz::line_info li;
  for (i64 l = 0; l < len; ++l) oz::scan_value(src.get(q, l), li);  // element order, as the host
  info[q] = li;
  atomicMax(max_width, oz::natural_width(li));
}

__global__ void scale_kernel(const oz::line_info* info, i64 lines, int width, i64 k, int clog2k,
                             oz::line_scale* out) {
  const i64 q = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
  if (q < lines) out[q] = oz::scale_of(info[q], width, k, clog2k);
}

constexpr int tile = 32;

// Residues of lines [q0, q0 + nq), elements [l0, l0 + len) of each, into
// out[(t * nq + q - q0) * kp + l] for l < kp (zero beyond len).
__global__ void residue_kernel(line_src src, const oz::line_scale* scale, i64 q0, i64 nq, i64 l0, i64 len,
                               i64 kp, oz::crt_plan P, std::int8_t* out) {
  __shared__ double xs[tile][tile + 1];  // [q][l]
  const i64 qb = blockIdx.y * static_cast<i64>(tile), lb = blockIdx.x * static_cast<i64>(tile);
  for (int r = threadIdx.y; r < tile; r += blockDim.y) {
    // Read along the stored dimension (coalesced), write the transpose.
    const int qq = src.contiguous ? r : static_cast<int>(threadIdx.x);
    const int ll = src.contiguous ? static_cast<int>(threadIdx.x) : r;
    const i64 q = qb + qq, l = lb + ll;
    xs[qq][ll] = (q < nq && l < len) ? src.get(q0 + q, l0 + l) : 0.0;
  }
  __syncthreads();
  for (int r = threadIdx.y; r < tile; r += blockDim.y) {
    const i64 q = qb + r, l = lb + threadIdx.x;
    if (q >= nq || l >= kp) continue;
    const oz::int96 v = oz::to_integer(xs[r][threadIdx.x], scale[q0 + q]);
    for (int t = 0; t < P.n; ++t)
      out[(t * nq + q) * kp + l] = static_cast<std::int8_t>(oz::residue(v, P.m[t], P.p32[t], P.p64[t]));
  }
}

__global__ void fold_kernel(std::int32_t* acc, const std::int32_t* prod, i64 per_modulus, oz::crt_plan P) {
  const i64 e = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
  if (e >= per_modulus * P.n) return;
  acc[e] = oz::fold(acc[e], prod[e], P.m[e / per_modulus]);
}

struct finish_args {
  i64 m;          // rows of C (the flag array's leading dimension)
  i64 i0, j0;     // the panel's first row and column
  i64 mp, np;     // the panel's size
  i64 ldr;        // leading dimension of the residue products (>= mp, a multiple of 4)
  double alpha, beta;
  double* c;
  i64 ldc;
  rounding mode;
  double* c_lo;   // unrounded output (trsm's numerators): c, c_lo, c_err
  double* c_err;  // (ozaki8::unrounded_entry); null: the rounding
};

__global__ void finish_kernel(const std::int32_t* cres, oz::crt_plan P, const oz::line_scale* sa,
                              const oz::line_scale* sb, finish_args f, unsigned char* flags,
                              unsigned long long* count) {
  const i64 e = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x;
  if (e >= f.mp * f.np) return;
  const i64 ip = e % f.mp, jp = e / f.mp, i = f.i0 + ip, j = f.j0 + jp;
  oz::u32 x[oz::limbs];
  oz::reconstruct(cres + ip + jp * f.ldr, f.ldr * f.np, P, x);
  double* cij = f.c + i + j * f.ldc;
  if (f.c_lo != nullptr) {
    oz::unrounded_entry(x, P, sa[i], sb[j], *cij, f.c_lo[i + j * f.ldc], f.c_err[i + j * f.ldc]);
    return;
  }
  double v;
  if (oz::finish_entry(x, P, sa[i], sb[j], f.alpha, f.beta, f.beta == 0.0 ? 0.0 : *cij, f.mode, v)) {
    *cij = v;
  } else {
    flags[i + j * f.m] = 1;
    atomicAdd(count, 1ULL);
  }
}

}  // namespace
}  // namespace exala::cuda::ozaki8_kernels
