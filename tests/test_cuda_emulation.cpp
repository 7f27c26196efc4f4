// tests/test_cuda_emulation.cpp - backend::cuda's kernels run on the host
// under tests/cuda_emulation.hpp (a std::thread per CUDA thread, barriers as
// on the device), in CI: the exact gemm's scan, scale, residue (32 x 32
// shared-memory tiles), fold and finish kernels driven as gemm_ozaki8.cu
// drives them (panels of C with row/column offsets, the int32 products in
// cuBLAS's "TN" layout with the leading dimension padded to 4, computed
// here by a plain loop in place of cublasGemmStridedBatchedEx), then the
// host's exact finish of the flagged entries; every result bit for bit
// against the reference backend. This checks the kernels' index arithmetic
// and barriers, which the host engines (test_gemm_ozaki8) do not run.
#define BOOST_TEST_MODULE exala_cuda_emulation
#include <boost/test/unit_test.hpp>

#include "cuda_emulation.hpp"
// The kernels, as nvcc compiles them for the device.
#include "gemm_ozaki8_kernels.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "exala/blas3.hpp"
#include "exala/detail/ozaki8_engine.hpp"
#include "test_common.hpp"

using namespace exala_test;
namespace oz = exala::detail::ozaki8;
namespace kr = exala::cuda::ozaki8_kernels;
using exala::layout;
using exala::rounding;
using exala::transpose;
using i64 = std::int64_t;

namespace {

int blocks(i64 n, int t) { return static_cast<int>((n + t - 1) / t); }

// gemm_ozaki8.cu's run_device on the host: g in column-major form; panels
// of mp x np; returns the flagged entries (i + j m).
std::vector<i64> emulated_gemm(const oz::gemm_args& g, i64 mp, i64 np) {
  const i64 m = g.m, n = g.n, k = g.k;
  const kr::line_src src_a{g.a, g.lda, g.ta}, src_b{g.b, g.ldb, !g.tb};
  std::vector<oz::line_info> info_a(static_cast<std::size_t>(m)), info_b(static_cast<std::size_t>(n));
  int widths[2] = {0, 0};
  exala_emu::launch_serial(dim3(blocks(m, 128)), dim3(128), kr::scan_kernel, src_a, m, k, info_a.data(), widths);
  exala_emu::launch_serial(dim3(blocks(n, 128)), dim3(128), kr::scan_kernel, src_b, n, k, info_b.data(), widths + 1);
  const oz::crt_plan P = oz::make_plan(widths[0], widths[1], k);
  std::vector<oz::line_scale> sa(static_cast<std::size_t>(m)), sb(static_cast<std::size_t>(n));
  exala_emu::launch_serial(dim3(blocks(m, 256)), dim3(256), kr::scale_kernel, static_cast<const oz::line_info*>(info_a.data()),
                    m, P.wa, k, P.clog2k, sa.data());
  exala_emu::launch_serial(dim3(blocks(n, 256)), dim3(256), kr::scale_kernel, static_cast<const oz::line_info*>(info_b.data()),
                    n, P.wb, k, P.clog2k, sb.data());
  const i64 chunk = std::min<i64>(k, oz::k_chunk), kp = (chunk + oz::k_align - 1) / oz::k_align * oz::k_align;
  const i64 N = P.n;
  std::vector<unsigned char> flags(static_cast<std::size_t>(m * n), 0);
  unsigned long long count = 0;
  for (i64 i0 = 0; i0 < m; i0 += mp)
    for (i64 j0 = 0; j0 < n; j0 += np) {
      const i64 mi = std::min(mp, m - i0), nj = std::min(np, n - j0), ldr = (mi + 3) / 4 * 4;
      std::vector<std::int8_t> ares(static_cast<std::size_t>(N * mi * kp), 99), bres(static_cast<std::size_t>(N * nj * kp), 99);
      std::vector<std::int32_t> cres(static_cast<std::size_t>(N * ldr * nj), -7);
      const dim3 tb(kr::tile, 8);
      exala_emu::launch(dim3(static_cast<unsigned>((kp + kr::tile - 1) / kr::tile), static_cast<unsigned>((mi + kr::tile - 1) / kr::tile)),
                        tb, kr::residue_kernel, src_a, static_cast<const oz::line_scale*>(sa.data()), i0, mi, i64{0},
                        k, kp, P, ares.data());
      exala_emu::launch(dim3(static_cast<unsigned>((kp + kr::tile - 1) / kr::tile), static_cast<unsigned>((nj + kr::tile - 1) / kr::tile)),
                        tb, kr::residue_kernel, src_b, static_cast<const oz::line_scale*>(sb.data()), j0, nj, i64{0},
                        k, kp, P, bres.data());
      // cublasGemmStridedBatchedEx(T, N, mi, nj, kp, A lda kp stride mi kp, B ldb kp stride nj kp, C ldc ldr stride ldr nj)
      for (i64 t = 0; t < N; ++t)
        for (i64 j = 0; j < nj; ++j)
          for (i64 i = 0; i < mi; ++i) {
            std::int32_t s = 0;
            for (i64 l = 0; l < kp; ++l)
              s += static_cast<std::int32_t>(ares[(t * mi + i) * kp + l]) * bres[(t * nj + j) * kp + l];
            cres[t * ldr * nj + i + j * ldr] = s;
          }
      const kr::finish_args f{m, i0, j0, mi, nj, ldr, g.alpha, g.beta, g.c, g.ldc, g.mode, g.c_lo, g.c_err};
      exala_emu::launch_serial(dim3(blocks(mi * nj, 128)), dim3(128), kr::finish_kernel,
                        static_cast<const std::int32_t*>(cres.data()), P, static_cast<const oz::line_scale*>(sa.data()),
                        static_cast<const oz::line_scale*>(sb.data()), f, flags.data(), &count);
    }
  std::vector<i64> list;
  for (i64 e = 0; e < m * n; ++e)
    if (flags[static_cast<std::size_t>(e)]) list.push_back(e);
  BOOST_TEST(list.size() == count);
  return list;
}

double entry(rng_t& r, int kind) {
  switch (kind) {
    case 0: return uniform(r) - 0.25;
    case 1: return uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 401) - 200);
    default: return (r() % 11 == 3) ? NAN : static_cast<double>(static_cast<int>(r() % 7) - 3);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(gemm_kernels_match_the_reference) {
  rng_t r(81);
  int idx = 0;
  for (layout lay : {layout::col_major, layout::row_major})
    for (transpose ta : {transpose::none, transpose::trans})
      for (transpose tb : {transpose::none, transpose::trans})
        for (int kind : {0, 1, 2}) {
          const i64 m = 37 + idx % 5, n = 29 + idx % 3, k = 45 + 7 * (idx % 4);
          ++idx;
          const bool col = lay == layout::col_major;
          const i64 ar = ta == transpose::trans ? k : m, ac = ta == transpose::trans ? m : k;
          const i64 br = tb == transpose::trans ? n : k, bc = tb == transpose::trans ? k : n;
          const i64 lda = (col ? ar : ac) + 2, ldb = (col ? br : bc) + 1, ldc = (col ? m : n) + 3;
          std::vector<double> a(static_cast<std::size_t>(lda * (col ? ac : ar))), b(static_cast<std::size_t>(ldb * (col ? bc : br)));
          std::vector<double> c(static_cast<std::size_t>(ldc * (col ? n : m)));
          for (double& v : a) v = entry(r, kind);
          for (double& v : b) v = entry(r, kind);
          for (double& v : c) v = uniform(r) - 0.5;
          const double alpha = idx % 2 ? 1.0 : -0.75, beta = idx % 3 == 0 ? 0.0 : 1.5;
          const rounding md = idx % 4 == 0 ? rounding::downward : rounding::to_nearest_even;
          std::vector<double> want = c, got = c;
          exala::gemm(lay, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc,
                      exala::exec{exala::backend::reference, 0, md});
          // The column-major form, as exala::cuda::gemm forms it.
          const bool at = ta == transpose::trans, bt = tb == transpose::trans;
          const oz::gemm_args g = col ? oz::gemm_args{m, n, k, alpha, a.data(), lda, at, b.data(), ldb, bt, beta,
                                                      got.data(), ldc, md}
                                      : oz::gemm_args{n, m, k, alpha, b.data(), ldb, bt, a.data(), lda, at, beta,
                                                      got.data(), ldc, md};
          // Panels that do not divide C (offsets i0, j0 > 0), and one panel.
          const i64 mp = idx % 2 ? g.m : 16, np = idx % 2 ? 12 : g.n;
          const std::vector<i64> rest = emulated_gemm(g, mp, np);
          oz::finish_exact(g, rest.data(), static_cast<i64>(rest.size()));
          int bad = 0;
          for (std::size_t i = 0; i < got.size(); ++i) bad += !same_bits(got[i], want[i]);
          BOOST_TEST(bad == 0, "lay=" << int(lay) << " ta=" << int(ta) << " tb=" << int(tb) << " kind=" << kind);
          if (kind == 0) BOOST_TEST(rest.empty());
          if (kind == 2) BOOST_TEST(!rest.empty());
        }
}
