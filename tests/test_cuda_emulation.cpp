// tests/test_cuda_emulation.cpp - backend::cuda's kernels run on the host
// under tests/cuda_emulation.hpp (a std::thread per CUDA thread, barriers as
// on the device), in CI: the exact gemm's scan, scale, residue (32 x 32
// shared-memory tiles), fold and finish kernels driven as gemm_ozaki8.cu
// drives them (panels of C with row/column offsets; k in one chunk or in
// several, folded as for k > ozaki8::k_chunk; the int32 products in
// cuBLAS's "TN" layout with the leading dimension padded to 4, computed
// here by a plain loop in place of cublasGemmStridedBatchedEx), then the
// host's exact finish of the flagged entries; every result bit for bit
// against the reference backend. This checks the kernels' index arithmetic
// and barriers, which the host engines (test_gemm_ozaki8) do not run.
#define BOOST_TEST_MODULE exala_cuda_emulation
#include <boost/test/unit_test.hpp>

#include "cuda_emulation.hpp"
// The kernels, as nvcc compiles them for the device.
#include "blas12_kernels.cuh"
#include "gemm_ozaki8_kernels.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/detail/dot2_engines.hpp"
#include "exala/detail/ozaki8_engine.hpp"
#include "test_common.hpp"

using namespace exala_test;
namespace oz = exala::detail::ozaki8;
namespace kr = exala::cuda::ozaki8_kernels;
namespace kb = exala::cuda::blas12_kernels;
namespace d2 = exala::detail::dot2;
using exala::layout;
using exala::rounding;
using exala::transpose;
using i64 = std::int64_t;

namespace {

int blocks(i64 n, int t) { return static_cast<int>((n + t - 1) / t); }

// gemm_ozaki8.cu's run_device on the host: g in column-major form; panels
// of mp x np; k in chunks of at most max_chunk terms (run_device: k_chunk;
// a smaller multiple of k_align here, to run the fold kernel and the residue
// kernel at k offsets without a k of 131056 or more); returns the flagged
// entries (i + j m).
std::vector<i64> emulated_gemm(const oz::gemm_args& g, i64 mp, i64 np, i64 max_chunk = oz::k_chunk) {
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
  const i64 chunk = std::min<i64>(k, max_chunk), kp = (chunk + oz::k_align - 1) / oz::k_align * oz::k_align;
  const i64 chunks = (k + chunk - 1) / chunk;
  const i64 N = P.n;
  std::vector<unsigned char> flags(static_cast<std::size_t>(m * n), 0);
  unsigned long long count = 0;
  for (i64 i0 = 0; i0 < m; i0 += mp)
    for (i64 j0 = 0; j0 < n; j0 += np) {
      const i64 mi = std::min(mp, m - i0), nj = std::min(np, n - j0), ldr = (mi + 3) / 4 * 4;
      std::vector<std::int8_t> ares(static_cast<std::size_t>(N * mi * kp), 99), bres(static_cast<std::size_t>(N * nj * kp), 99);
      std::vector<std::int32_t> cres(static_cast<std::size_t>(N * ldr * nj), -7), prod(cres.size(), -9);
      const dim3 tb(kr::tile, 8);
      for (i64 c = 0; c < chunks; ++c) {
        const i64 l0 = c * chunk, len = std::min(chunk, k - l0);
        exala_emu::launch(dim3(static_cast<unsigned>((kp + kr::tile - 1) / kr::tile), static_cast<unsigned>((mi + kr::tile - 1) / kr::tile)),
                          tb, kr::residue_kernel, src_a, static_cast<const oz::line_scale*>(sa.data()), i0, mi, l0,
                          len, kp, P, ares.data());
        exala_emu::launch(dim3(static_cast<unsigned>((kp + kr::tile - 1) / kr::tile), static_cast<unsigned>((nj + kr::tile - 1) / kr::tile)),
                          tb, kr::residue_kernel, src_b, static_cast<const oz::line_scale*>(sb.data()), j0, nj, l0,
                          len, kp, P, bres.data());
        // cublasGemmStridedBatchedEx(T, N, mi, nj, kp, A lda kp stride mi kp, B ldb kp stride nj kp, C ldc ldr stride ldr nj)
        std::vector<std::int32_t>& out = c == 0 ? cres : prod;
        for (i64 t = 0; t < N; ++t)
          for (i64 j = 0; j < nj; ++j)
            for (i64 i = 0; i < mi; ++i) {
              std::int32_t s = 0;
              for (i64 l = 0; l < kp; ++l)
                s += static_cast<std::int32_t>(ares[(t * mi + i) * kp + l]) * bres[(t * nj + j) * kp + l];
              out[t * ldr * nj + i + j * ldr] = s;
            }
        if (c > 0)
          exala_emu::launch_serial(dim3(blocks(N * ldr * nj, 256)), dim3(256), kr::fold_kernel, cres.data(),
                                   static_cast<const std::int32_t*>(prod.data()), ldr * nj, P);
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
          // Panels that do not divide C (offsets i0, j0 > 0), and one panel;
          // k in one chunk, or in chunks of 16 or 32 terms (folded).
          const i64 mp = idx % 2 ? g.m : 16, np = idx % 2 ? 12 : g.n;
          const i64 max_chunk = idx % 3 == 0 ? oz::k_chunk : idx % 3 == 1 ? 16 : 32;
          const std::vector<i64> rest = emulated_gemm(g, mp, np, max_chunk);
          oz::finish_exact(g, rest.data(), static_cast<i64>(rest.size()));
          int bad = 0;
          for (std::size_t i = 0; i < got.size(); ++i) bad += !same_bits(got[i], want[i]);
          BOOST_TEST(bad == 0, "lay=" << int(lay) << " ta=" << int(ta) << " tb=" << int(tb) << " kind=" << kind
                                      << " chunk=" << max_chunk);
          if (kind == 0) BOOST_TEST(rest.empty());
          if (kind == 2) BOOST_TEST(!rest.empty());
        }
}

namespace {

// blas12_cuda.cu's reduce: chunk states from the kernel, then the host.
double emulated_reduce(d2::reduction kind, i64 n, const double* x, i64 incx, const double* y, i64 incy, rounding md) {
  const i64 chunks = (n + d2::dot_chunk - 1) / d2::dot_chunk;
  std::vector<d2::state> parts(static_cast<std::size_t>(chunks));
  exala_emu::launch(dim3(static_cast<unsigned>(chunks)), dim3(d2::dot_chains), kb::reduce_chunks_kernel, kind, n, x,
                    incx, y, incy, parts.data());
  double v;
  if (d2::round_chunks(parts.data(), chunks, n, kind, md, v)) return v;
  return d2::reduce_exact(kind, n, x, incx, y, incy, md);
}

// blas12_cuda.cu's gemv (both decompositions); flagged outputs exact.
void emulated_gemv(layout lay, transpose tr, i64 m, i64 n, double alpha, const double* a, i64 lda, const double* x,
                   i64 incx, double beta, double* y, i64 incy, rounding md, bool& rows_used) {
  const d2::gemv_form f = d2::form_of(lay, tr, m, n, a, lda);
  std::vector<unsigned char> flags(static_cast<std::size_t>(f.outputs), 0);
  unsigned long long count = 0;
  const kb::gemv_out out{f.outputs, f.terms, alpha, beta, y, incy, md, flags.data(), &count};
  rows_used = f.so == 1;
  if (rows_used) {
    const int groups = d2::row_groups(f.outputs, f.terms);
    const i64 len = (f.terms + groups - 1) / groups;
    std::vector<d2::state> partial(static_cast<std::size_t>(groups * f.outputs));
    exala_emu::launch_serial(dim3(static_cast<unsigned>(blocks(f.outputs, 128)), static_cast<unsigned>(groups)),
                             dim3(128), kb::gemv_rows_kernel, f.outputs, f.terms, f.a, f.sl, x, incx, len,
                             partial.data());
    exala_emu::launch_serial(dim3(static_cast<unsigned>(blocks(f.outputs, 128))), dim3(128), kb::gemv_rows_finish,
                             static_cast<const d2::state*>(partial.data()), groups, out);
  } else {
    exala_emu::launch(dim3(static_cast<unsigned>(blocks(f.outputs * d2::col_chains, 256))), dim3(256),
                      kb::gemv_cols_kernel, f.a, f.so, x, incx, out);
  }
  BOOST_TEST(std::count(flags.begin(), flags.end(), 1) == static_cast<long>(count));
  for (i64 o = 0; o < f.outputs; ++o)
    if (flags[static_cast<std::size_t>(o)])
      d2::gemv_output_exact(f, o, alpha, x, incx, beta, y + d2::element(o, f.outputs, incy), md);
}

// blas12_cuda.cu's trsv loop: diagonal kernel, halts resolved exactly, update kernel.
i64 emulated_trsv(layout lay, exala::uplo ul, transpose tr, exala::diag dg, i64 n, const double* a, i64 lda,
                  double* x, i64 incx, rounding md) {
  const d2::trsv_form f = d2::trsv_form_of(lay, ul, tr, n, a, lda, x, incx);
  std::vector<d2::state> states(static_cast<std::size_t>(n));
  std::vector<double> row, xneg;
  i64 halts = 0;
  for (i64 k0 = 0; k0 < n; k0 += d2::trsv_block) {
    const i64 k1 = std::min<i64>(n, k0 + d2::trsv_block);
    i64 first = k0;
    int known = 0;
    for (;;) {
      i64 stop = -1;
      exala_emu::launch(dim3(1), dim3(d2::trsv_block), kb::trsv_diag_kernel, f, k0, k1, first, known,
                        dg == exala::diag::unit ? 1 : 0, md, x, states.data(), &stop);
      if (stop < 0) break;
      row.resize(static_cast<std::size_t>(stop + 1));
      xneg.resize(static_cast<std::size_t>(stop + 1));
      for (i64 j = 0; j <= stop; ++j) {
        row[static_cast<std::size_t>(j)] = f.at(stop, j);
        xneg[static_cast<std::size_t>(j)] = -x[f.xi(j)];
      }
      x[f.xi(stop)] = d2::trsv_row_exact(dg, n, row.data(), xneg.data(), stop, x[f.xi(stop)], md);
      ++halts;
      first = stop;
      known = 1;
    }
    if (k1 < n)
      exala_emu::launch_serial(dim3(static_cast<unsigned>(blocks(n - k1, 128))), dim3(128), kb::trsv_update_kernel,
                               f, k0, k1, static_cast<const double*>(x), states.data());
  }
  return halts;
}

}  // namespace

BOOST_AUTO_TEST_CASE(reduction_kernels_match_the_reference) {
  rng_t r(83);
  for (i64 n : {i64{1}, i64{300}, d2::dot_chunk + 5})
    for (i64 inc : {i64{1}, i64{-2}}) {
      std::vector<double> x(static_cast<std::size_t>((n - 1) * std::abs(inc) + 1)), y(x.size());
      for (double& v : x) v = uniform(r) - 0.25;
      for (double& v : y) v = uniform(r) - 0.5;
      for (rounding md : {rounding::to_nearest_even, rounding::upward}) {
        const exala::exec e{exala::backend::reference, 0, md};
        BOOST_TEST(same_bits(emulated_reduce(d2::reduction::dot, n, x.data(), inc, y.data(), inc, md),
                             exala::dot(n, x.data(), inc, y.data(), inc, e)));
        BOOST_TEST(same_bits(emulated_reduce(d2::reduction::sum, n, x.data(), inc, nullptr, 0, md),
                             exala::sum(n, x.data(), inc, e)));
        BOOST_TEST(same_bits(emulated_reduce(d2::reduction::asum, n, x.data(), inc, nullptr, 0, md),
                             exala::asum(n, x.data(), inc, e)));
        BOOST_TEST(same_bits(emulated_reduce(d2::reduction::nrm2, n, x.data(), inc, nullptr, 0, md),
                             exala::nrm2(n, x.data(), inc, e)));
      }
    }
}

BOOST_AUTO_TEST_CASE(gemv_kernels_match_the_reference) {
  rng_t r(85);
  for (layout lay : {layout::col_major, layout::row_major})
    for (transpose tr : {transpose::none, transpose::trans})
      for (double beta : {0.0, -1.25}) {
        const i64 m = 70, n = 45, lda = (lay == layout::col_major ? m : n) + 1;
        const i64 xl = tr == transpose::none ? n : m, yl = tr == transpose::none ? m : n;
        std::vector<double> a(static_cast<std::size_t>(lda * (lay == layout::col_major ? n : m)));
        for (double& v : a) v = uniform(r) - 0.5;
        a[3] = INFINITY;  // one output (or all) goes to the exact path
        std::vector<double> x(static_cast<std::size_t>(xl * 2)), y(static_cast<std::size_t>(yl));
        for (double& v : x) v = uniform(r);
        for (double& v : y) v = beta == 0.0 ? NAN : uniform(r);
        std::vector<double> got = y, want = y;
        bool rows = false;
        emulated_gemv(lay, tr, m, n, 0.5, a.data(), lda, x.data(), -2, beta, got.data(), 1, rounding::downward, rows);
        exala::gemv(lay, tr, m, n, 0.5, a.data(), lda, x.data(), -2, beta, want.data(), 1,
                    exala::exec{exala::backend::reference, 0, rounding::downward});
        int bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i) bad += !same_bits(got[i], want[i]);
        BOOST_TEST(bad == 0, "lay=" << int(lay) << " tr=" << int(tr) << " beta=" << beta << " rows=" << rows);
      }
}

BOOST_AUTO_TEST_CASE(trsv_kernels_match_the_reference) {
  rng_t r(87);
  int idx = 0;
  for (layout lay : {layout::col_major, layout::row_major})
    for (exala::uplo ul : {exala::uplo::lower, exala::uplo::upper})
      for (transpose tr : {transpose::none, transpose::trans})
        for (exala::diag dg : {exala::diag::non_unit, exala::diag::unit}) {
          // ints: exact solutions, so toward zero halts on nearly every row
          // (kept short: each halt relaunches the block's 128 threads);
          // random data: two diagonal blocks and the update kernel between.
          const bool ints = idx++ % 2 == 0;
          const i64 n = ints ? 24 : 150, lda = n + 2, incx = idx % 3 == 0 ? -1 : 1;
          std::vector<double> a(static_cast<std::size_t>(lda * n));
          for (double& v : a) v = ints ? static_cast<double>(static_cast<int>(r() % 3) - 1) : uniform(r) - 0.5;
          for (i64 i = 0; i < n; ++i) a[static_cast<std::size_t>(i * lda + i)] = ints ? 1.0 : 2.0 + uniform(r);
          std::vector<double> x(static_cast<std::size_t>(n));
          for (double& v : x) v = ints ? static_cast<double>(static_cast<int>(r() % 5) - 2) : uniform(r);
          // Random data, toward zero: two rows (one per diagonal block) with an
          // exactly representable solution x_s = 1.5, which the bound cannot
          // round toward zero: the device halts there, the host forms x_s,
          // and the later rows go on with it (their numerators need x_s).
          const rounding md = rounding::toward_zero;
          if (!ints) {
            const d2::trsv_form f = d2::trsv_form_of(lay, ul, tr, n, a.data(), lda, x.data(), incx);
            for (const i64 s : {i64{5}, i64{130}}) {
              // element (s, j) of the forward form lives at base + s rs + j cs
              auto at = [&](i64 j) -> double& {
                return a[static_cast<std::size_t>(f.base + s * f.rs + j * f.cs - a.data())];
              };
              for (i64 j = 0; j < s; ++j) at(j) = 0.0;
              at(s) = 2.0;
              x[static_cast<std::size_t>(f.xi(s))] = dg == exala::diag::unit ? 1.5 : 3.0;
            }
          }
          std::vector<double> got = x, want = x, host = x;
          d2::trsv_host(lay, ul, tr, dg, n, a.data(), lda, host.data(), incx, md);
          const i64 halts = emulated_trsv(lay, ul, tr, dg, n, a.data(), lda, got.data(), incx, md);
          exala::trsv(lay, ul, tr, dg, n, a.data(), lda, want.data(), incx,
                      exala::exec{exala::backend::reference, 0, md});
          int bad = 0;
          for (std::size_t i = 0; i < got.size(); ++i)
            if (!same_bits(got[i], want[i]) && ++bad <= 3)
              BOOST_TEST_MESSAGE("x[" << i << "]: got " << hex(got[i]) << ", reference " << hex(want[i]) << " host engine " << hex(host[i]));
          BOOST_TEST(bad == 0, "lay=" << int(lay) << " ul=" << int(ul) << " tr=" << int(tr) << " dg=" << int(dg)
                                      << " ints=" << ints << " halts=" << halts);
          if (!ints) BOOST_TEST(halts == 2);
          if (ints) BOOST_TEST(halts > 0);
        }
}
