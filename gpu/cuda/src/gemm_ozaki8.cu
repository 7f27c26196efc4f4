// gpu/cuda/src/gemm_ozaki8.cu - backend::cuda's exact gemm: the 8-bit
// Ozaki scheme II of exala/detail/ozaki8.hpp on a CUDA device.
//
// Guarantee: every C_ij is round(alpha S_ij + beta C_ij) of the exact S_ij
// in the requested direction, the bits of every other backend. The
// per-element arithmetic (scaling, residues, folds, CRT, rounding decision)
// is the one copy in ozaki8.hpp that the host engine runs in CI
// (test_blas3, test_gemm_ozaki8); this file only places it:
//  1. scan_kernel: one thread per row of op(A) / column of op(B): exponent
//     range, 1-norm, inf/NaN; the widest line goes to the host (make_plan).
//  2. residue_kernel: 32 x 32 tiles through shared memory (read along the
//     stored dimension, written along k), the balanced residues of every
//     modulus as int8, rows padded to kp (a multiple of 16) with zeros.
//  3. cublasGemmStridedBatchedEx: one int8 x int8 -> int32 GEMM per modulus
//     (CUBLAS_COMPUTE_32I, "TN": both operands contiguous along k; alpha 1,
//     beta 0, lda = ldb = kp and ldc multiples of 4, as its integer path
//     requires), exact
//     while a k-chunk has at most ozaki8::k_chunk terms; fold_kernel adds
//     the chunks modulo m_t.
//  4. finish_kernel: one thread per entry: CRT, rounding decision, C_ij
//     written when decided, else flagged; the flagged entries are formed
//     exactly on the host (ozaki8::finish_exact), so every bit is decided.
// C is processed in panels that keep the residue and product buffers within
// half of the free device memory (EXALA_CUDA_GEMM_BYTES caps it further).
// One stream and one cuBLAS handle per process; calls are serialised.
// EXALA_CUDA_GEMM_PROFILE=1 prints the time of each phase (synchronised).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_context.hpp"
#include "exala/cuda.hpp"
#include "exala/detail/cuda_hooks.hpp"
#include "exala/detail/ozaki8.hpp"
#include "exala/detail/ozaki8_engine.hpp"
#include "gemm_ozaki8_kernels.cuh"
#include "plugin_tables.hpp"
#include "exala/error.hpp"

namespace exala::cuda {
namespace {

namespace oz = exala::detail::ozaki8;
using namespace ozaki8_kernels;
using detail::blocks_for;
using detail::check;
using detail::context;
using detail::device_buffer;
using i64 = std::int64_t;

thread_local gemm_stats stats_tls;

// ------------------------------------------------------------ host side

i64 bytes_cap() {
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  i64 cap = static_cast<i64>(free_b / 2);
  if (const char* v = std::getenv("EXALA_CUDA_GEMM_BYTES")) {
    char* end = nullptr;
    const long long b = std::strtoll(v, &end, 10);
    if (*v == '\0' || *end != '\0' || b < (1LL << 20))
      throw exala::invalid_argument("EXALA_CUDA_GEMM_BYTES", "'" + std::string(v) +
                                                                 "' is not a byte count >= 1048576");
    cap = std::min<i64>(cap, b);
  }
  return cap;
}

// The exact gemm on device pointers (g in column-major form, m, n, k > 0,
// alpha != 0): C's decided entries written on the device; returns the
// indices (i + j m) of the others, which C still holds unchanged.
// EXALA_CUDA_GEMM_PROFILE=1: each phase synchronised and timed, printed to
// stderr per call (for profiling; it serialises the phases).
struct phase_clock {
  bool on = std::getenv("EXALA_CUDA_GEMM_PROFILE") != nullptr;
  cudaStream_t s;
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  double ms[5] = {};  // scan+plan, residues, int8 gemm, fold, finish
  void lap(int phase) {
    if (!on) return;
    check(cudaStreamSynchronize(s), "profile");
    const auto now = std::chrono::steady_clock::now();
    ms[phase] += std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
  }
};

std::vector<i64> run_device(context& cx, const oz::gemm_args& g, gemm_stats& st) {
  const cudaStream_t s = cx.stream;
  phase_clock clock{};
  clock.s = s;
  const i64 m = g.m, n = g.n, k = g.k;
  // op(A) rows: contiguous when A is transposed; op(B) columns: when B is not.
  const line_src src_a{g.a, g.lda, g.ta}, src_b{g.b, g.ldb, !g.tb};

  // 1. Scan, plan, scales.
  device_buffer info_a(sizeof(oz::line_info) * m, "cudaMalloc(line info)");
  device_buffer info_b(sizeof(oz::line_info) * n, "cudaMalloc(line info)");
  device_buffer widths(2 * sizeof(int), "cudaMalloc(widths)");
  check(cudaMemsetAsync(widths.p, 0, 2 * sizeof(int), s), "cudaMemset(widths)");
  EXALA_CUDA_LAUNCH(scan_kernel, blocks_for(m, 128), 128, s, src_a, m, k, info_a.as<oz::line_info>(), widths.as<int>());
  EXALA_CUDA_LAUNCH(scan_kernel, blocks_for(n, 128), 128, s, src_b, n, k, info_b.as<oz::line_info>(), widths.as<int>() + 1);
  check(cudaGetLastError(), "scan_kernel");
  int w[2] = {0, 0};
  check(cudaMemcpyAsync(w, widths.p, sizeof w, cudaMemcpyDeviceToHost, s), "cudaMemcpy(widths)");
  check(cudaStreamSynchronize(s), "scan");
  const oz::crt_plan P = oz::make_plan(w[0], w[1], k);
  clock.lap(0);
  device_buffer scale_a(sizeof(oz::line_scale) * m, "cudaMalloc(line scales)");
  device_buffer scale_b(sizeof(oz::line_scale) * n, "cudaMalloc(line scales)");
  EXALA_CUDA_LAUNCH(scale_kernel, blocks_for(m, 256), 256, s, info_a.as<oz::line_info>(), m, P.wa, k, P.clog2k,
                                                  scale_a.as<oz::line_scale>());
  EXALA_CUDA_LAUNCH(scale_kernel, blocks_for(n, 256), 256, s, info_b.as<oz::line_info>(), n, P.wb, k, P.clog2k,
                                                  scale_b.as<oz::line_scale>());
  check(cudaGetLastError(), "scale_kernel");

  // 2. Panels of C within the memory cap.
  const i64 chunk = std::min<i64>(k, oz::k_chunk);
  const i64 kp = (chunk + oz::k_align - 1) / oz::k_align * oz::k_align;
  const i64 chunks = (k + chunk - 1) / chunk;
  const i64 N = P.n;
  const i64 cap = bytes_cap() - m * n;  // the flags
  // (at most 2^20 rows or columns per panel: the residue kernel's grid.y)
  i64 mp = std::min<i64>(m, i64{1} << 20), np = std::min<i64>(n, i64{1} << 20);
  auto panel_bytes = [&](i64 a, i64 b) { return N * (a * kp + b * kp + 4 * (a + 3) * b * (chunks > 1 ? 2 : 1)); };
  while (panel_bytes(mp, np) > cap && (mp > 256 || np > 256)) {
    if (mp >= np) mp = (mp / 2 + 255) / 256 * 256;
    else np = (np / 2 + 255) / 256 * 256;
  }
  if (panel_bytes(mp, np) > cap)
    throw exala::error("exala::cuda::gemm: not enough device memory for a 256 x 256 panel of C (k = " +
                       std::to_string(k) + ")");
  if (mp > INT32_MAX || np > INT32_MAX || kp > INT32_MAX)
    throw exala::invalid_argument("m", "panel dimensions exceed cuBLAS's int range");
  device_buffer ares(static_cast<std::size_t>(N * mp * kp), "cudaMalloc(A residues)");
  device_buffer bres(static_cast<std::size_t>(N * np * kp), "cudaMalloc(B residues)");
  // int32 products with a leading dimension padded to 4 (cuBLAS's integer path)
  const i64 ldr_max = (mp + 3) / 4 * 4;
  device_buffer cres(static_cast<std::size_t>(4 * N * ldr_max * np), "cudaMalloc(residue products)");
  device_buffer prod(chunks > 1 ? static_cast<std::size_t>(4 * N * ldr_max * np) : 0, "cudaMalloc(chunk products)");
  device_buffer flags(static_cast<std::size_t>(m * n), "cudaMalloc(flags)");
  device_buffer count(sizeof(unsigned long long), "cudaMalloc(count)");
  check(cudaMemsetAsync(flags.p, 0, static_cast<std::size_t>(m * n), s), "cudaMemset(flags)");
  check(cudaMemsetAsync(count.p, 0, sizeof(unsigned long long), s), "cudaMemset(count)");
  const std::int32_t one = 1, zero = 0;
  const dim3 tb(tile, 8);
  st.panels = 0;
  for (i64 i0 = 0; i0 < m; i0 += mp)
    for (i64 j0 = 0; j0 < n; j0 += np) {
      const i64 mi = std::min(mp, m - i0), nj = std::min(np, n - j0), ldr = (mi + 3) / 4 * 4;
      for (i64 c = 0; c < chunks; ++c) {
        const i64 l0 = c * chunk, len = std::min(chunk, k - l0);
        const dim3 ga(static_cast<unsigned>((kp + tile - 1) / tile), static_cast<unsigned>((mi + tile - 1) / tile));
        const dim3 gb(static_cast<unsigned>((kp + tile - 1) / tile), static_cast<unsigned>((nj + tile - 1) / tile));
        EXALA_CUDA_LAUNCH(residue_kernel, ga, tb, s, src_a, scale_a.as<oz::line_scale>(), i0, mi, l0, len, kp, P,
                                         ares.as<std::int8_t>());
        EXALA_CUDA_LAUNCH(residue_kernel, gb, tb, s, src_b, scale_b.as<oz::line_scale>(), j0, nj, l0, len, kp, P,
                                         bres.as<std::int8_t>());
        check(cudaGetLastError(), "residue_kernel");
        clock.lap(1);
        std::int32_t* out = c == 0 ? cres.as<std::int32_t>() : prod.as<std::int32_t>();
        check(cublasGemmStridedBatchedEx(cx.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(mi),
                                         static_cast<int>(nj), static_cast<int>(kp), &one, ares.p, CUDA_R_8I,
                                         static_cast<int>(kp), mi * kp, bres.p, CUDA_R_8I, static_cast<int>(kp),
                                         nj * kp, &zero, out, CUDA_R_32I, static_cast<int>(ldr), ldr * nj,
                                         static_cast<int>(N), CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
              "cublasGemmStridedBatchedEx(int8)");
        clock.lap(2);
        if (c > 0) {
          EXALA_CUDA_LAUNCH(fold_kernel, blocks_for(N * ldr * nj, 256), 256, s, cres.as<std::int32_t>(), out, ldr * nj, P);
          check(cudaGetLastError(), "fold_kernel");
          clock.lap(3);
        }
      }
      const finish_args f{m, i0, j0, mi, nj, ldr, g.alpha, g.beta, g.c, g.ldc, g.mode, g.c_lo, g.c_err};
      EXALA_CUDA_LAUNCH(finish_kernel, blocks_for(mi * nj, 128), 128, s, cres.as<std::int32_t>(), P,
                                                             scale_a.as<oz::line_scale>(),
                                                             scale_b.as<oz::line_scale>(), f,
                                                             flags.as<unsigned char>(),
                                                             count.as<unsigned long long>());
      check(cudaGetLastError(), "finish_kernel");
      clock.lap(4);
      ++st.panels;
    }
  unsigned long long undecided = 0;
  check(cudaMemcpyAsync(&undecided, count.p, sizeof undecided, cudaMemcpyDeviceToHost, s), "cudaMemcpy(count)");
  check(cudaStreamSynchronize(s), "gemm");
  st.moduli = P.n;
  st.wa = P.wa;
  st.wb = P.wb;
  st.chunks = static_cast<int>(chunks);
  st.truncated = !P.exact;
  std::vector<i64> list;
  if (undecided > 0) {
    std::vector<unsigned char> h(static_cast<std::size_t>(m * n));
    check(cudaMemcpy(h.data(), flags.p, h.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(flags)");
    list.reserve(undecided);
    for (i64 e = 0; e < m * n; ++e)
      if (h[e]) list.push_back(e);
  }
  st.host_entries = static_cast<i64>(list.size());
  clock.lap(4);
  if (clock.on)
    std::fprintf(stderr,
                 "exala::cuda::gemm m=%lld n=%lld k=%lld: scan+plan %.3f ms, residues %.3f ms, int8 gemm %.3f ms, "
                 "fold %.3f ms, finish %.3f ms (%d moduli, widths %d+%d, %lld chunks, %d panels, %lld entries "
                 "left to the host)\n",
                 (long long)m, (long long)n, (long long)k, clock.ms[0], clock.ms[1], clock.ms[2], clock.ms[3],
                 clock.ms[4], P.n, P.wa, P.wb, (long long)chunks, st.panels, (long long)list.size());
  return list;
}

// Elements spanned by a column-major rows x cols matrix with leading dimension ld.
i64 extent(i64 rows, i64 cols, i64 ld) { return ld * (cols - 1) + rows; }
i64 extent_a(const oz::gemm_args& g) { return g.ta ? extent(g.k, g.m, g.lda) : extent(g.m, g.k, g.lda); }
i64 extent_b(const oz::gemm_args& g) { return g.tb ? extent(g.n, g.k, g.ldb) : extent(g.k, g.n, g.ldb); }

void copy_c(double* dst, const double* src, const oz::gemm_args& g, cudaMemcpyKind kind, cudaStream_t s) {
  if (dst == nullptr) return;
  const std::size_t pitch = sizeof(double) * static_cast<std::size_t>(g.ldc);
  check(cudaMemcpy2DAsync(dst, pitch, src, pitch, sizeof(double) * static_cast<std::size_t>(g.m),
                          static_cast<std::size_t>(g.n), kind, s),
        "cudaMemcpy2D(C)");
}

// backend::cuda's hook: exala::gemm on host pointers (checked, column-major
// form, m, n, k > 0, alpha != 0), and blocked trsm's unrounded numerators
// (g.c_lo set: three outputs, nothing left to the host).
void gemm_from_host(const oz::gemm_args& g) {
  const detail::session hold;
  context& cx = hold.cx;
  const i64 na = extent_a(g), nb = extent_b(g), nc = extent(g.m, g.n, g.ldc);
  const bool unrounded = g.c_lo != nullptr;
  device_buffer da(sizeof(double) * na, "cudaMalloc(A)"), db(sizeof(double) * nb, "cudaMalloc(B)"),
      dc(sizeof(double) * nc, "cudaMalloc(C)"), dlo(unrounded ? sizeof(double) * nc : 0, "cudaMalloc(C lo)"),
      derr(unrounded ? sizeof(double) * nc : 0, "cudaMalloc(C err)");
  check(cudaMemcpyAsync(da.p, g.a, sizeof(double) * na, cudaMemcpyHostToDevice, cx.stream), "cudaMemcpy(A)");
  check(cudaMemcpyAsync(db.p, g.b, sizeof(double) * nb, cudaMemcpyHostToDevice, cx.stream), "cudaMemcpy(B)");
  if (g.beta != 0.0) copy_c(dc.as<double>(), g.c, g, cudaMemcpyHostToDevice, cx.stream);
  oz::gemm_args d = g;
  d.a = da.as<double>();
  d.b = db.as<double>();
  d.c = dc.as<double>();
  d.c_lo = dlo.as<double>();
  d.c_err = derr.as<double>();
  gemm_stats st;
  const std::vector<i64> rest = run_device(cx, d, st);
  copy_c(g.c, dc.as<double>(), g, cudaMemcpyDeviceToHost, cx.stream);
  copy_c(g.c_lo, dlo.as<double>(), g, cudaMemcpyDeviceToHost, cx.stream);
  copy_c(g.c_err, derr.as<double>(), g, cudaMemcpyDeviceToHost, cx.stream);
  check(cudaStreamSynchronize(cx.stream), "cudaMemcpy(C)");
  // The undecided entries still hold their original values (beta != 0) or
  // garbage (beta == 0: C is not read): formed exactly here.
  oz::finish_exact(g, rest.data(), static_cast<i64>(rest.size()));
  stats_tls = st;
}

const exala::detail::cuda_blas3_hooks hooks{&gemm_from_host};

}  // namespace

namespace detail {
const void* blas3_table() noexcept { return &hooks; }
}  // namespace detail

bool register_backend() noexcept {
  exala::detail::register_hooks(backend::cuda, exala::detail::hook_kind::blas3, &hooks);
  return true;
}

gemm_stats last_gemm_stats() noexcept { return stats_tls; }

void gemm(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
          const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
          std::int64_t ldc, rounding mode) {
  exala::detail::check_gemm_arguments(lay, ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  stats_tls = gemm_stats{};
  if (m == 0 || n == 0) return;
  detail::check_device_pointer("c", c);
  if (alpha != 0.0 && k > 0) {
    detail::check_device_pointer("a", a);
    detail::check_device_pointer("b", b);
  }
  // Column-major form (a row-major C is the column-major C^T = op(B)^T op(A)^T).
  const bool at = ta == transpose::trans, bt = tb == transpose::trans;
  const oz::gemm_args g = lay == layout::col_major
                              ? oz::gemm_args{m, n, k, alpha, a, lda, at, b, ldb, bt, beta, c, ldc, mode}
                              : oz::gemm_args{n, m, k, alpha, b, ldb, bt, a, lda, at, beta, c, ldc, mode};
  const detail::session hold;
  context& cx = hold.cx;
  const i64 nc = extent(g.m, g.n, g.ldc);
  if (alpha == 0.0 || k == 0) {  // round(beta C): no product; the host front end's conventions
    std::vector<double> hc(static_cast<std::size_t>(nc));
    copy_c(hc.data(), g.c, g, cudaMemcpyDeviceToHost, cx.stream);
    check(cudaStreamSynchronize(cx.stream), "cudaMemcpy(C)");
    exala::gemm(layout::col_major, transpose::none, transpose::none, g.m, g.n, 0, 0.0, nullptr, g.m, nullptr, 1,
                beta, hc.data(), g.ldc, exec{backend::simd, 0, mode});
    copy_c(g.c, hc.data(), g, cudaMemcpyHostToDevice, cx.stream);
    check(cudaStreamSynchronize(cx.stream), "cudaMemcpy(C)");
    return;
  }
  gemm_stats st;
  const std::vector<i64> rest = run_device(cx, g, st);
  if (!rest.empty()) {  // form them on the host from copies of A, B and C
    const i64 na = extent_a(g), nb = extent_b(g);
    std::vector<double> ha(static_cast<std::size_t>(na)), hb(static_cast<std::size_t>(nb)),
        hc(static_cast<std::size_t>(nc));
    check(cudaMemcpyAsync(ha.data(), g.a, sizeof(double) * na, cudaMemcpyDeviceToHost, cx.stream), "cudaMemcpy(A)");
    check(cudaMemcpyAsync(hb.data(), g.b, sizeof(double) * nb, cudaMemcpyDeviceToHost, cx.stream), "cudaMemcpy(B)");
    copy_c(hc.data(), g.c, g, cudaMemcpyDeviceToHost, cx.stream);
    check(cudaStreamSynchronize(cx.stream), "cudaMemcpy");
    oz::gemm_args h = g;
    h.a = ha.data();
    h.b = hb.data();
    h.c = hc.data();
    oz::finish_exact(h, rest.data(), static_cast<i64>(rest.size()));
    copy_c(g.c, hc.data(), g, cudaMemcpyHostToDevice, cx.stream);
    check(cudaStreamSynchronize(cx.stream), "cudaMemcpy(C)");
  }
  stats_tls = st;
}

}  // namespace exala::cuda
