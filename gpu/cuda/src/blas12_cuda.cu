// gpu/cuda/src/blas12_cuda.cu - exala::cuda::dot, sum, asum, nrm2 and gemv on
// device pointers: one pass over the data at memory speed, each result
// decided from a proven Dot2 bound, the rare undecided ones formed exactly
// on the host.
//
// Guarantee: every result is the correctly rounded value of its exact
// expression in the requested direction (the bits of exala::dot /
// exala::gemv on every backend). The per-thread arithmetic (Dot2 chains,
// the pairwise trees, the bound, the rounding decision) is the one copy in
// exala/detail/dot2_hd.hpp, and the decompositions below are those of the
// host engines in exala/detail/dot2_engines.hpp, which CI tests
// (test_dot2_engines):
//  - dot (and sum, asum, nrm2: the terms x_i, |x_i|, x_i^2, nrm2 rounding
//    the square root): a block of dot_chains threads per chunk of dot_chunk terms, each
//    thread a chain over the chunk's terms t, t + dot_chains, ... (coalesced),
//    a pairwise tree in shared memory; the chunk states go to the host,
//    which sums their hi + lo exactly and decides (round_chunks). A chunk's
//    bound is about 2^-105 (2 n_c^2) sum |x_i y_i| with n_c = 2^16: some
//    2^-72 relative for data without heavy cancellation.
//  - gemv, outputs along A's contiguous dimension (column-major N,
//    row-major T): row_groups() threads per output, each a contiguous range
//    of the terms (neighbouring threads read neighbouring rows), the states
//    to memory, a finish kernel folding them pairwise per output;
//  - gemv, terms along A's contiguous dimension: a warp per output, lanes
//    interleaved over the terms, a shuffle tree.
// Undecided outputs (inf/NaN, heavy cancellation, ties) are flagged; the
// host fetches their lines and forms them exactly (dot2::gemv_output_exact,
// exala::dot).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_context.hpp"
#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/cuda.hpp"
#include "exala/detail/dot2_engines.hpp"
#include "exala/detail/dot2_hd.hpp"
#include "blas12_kernels.cuh"

namespace exala::cuda {
namespace {

namespace d2 = exala::detail::dot2;
using namespace blas12_kernels;
using detail::blocks_for;
using detail::check;
using detail::context;
using detail::device_buffer;
using i64 = std::int64_t;

thread_local blas12_stats stats_tls;

// ------------------------------------------------------------ host side

// Elements spanned by n elements with increment inc.
i64 span(i64 n, i64 inc) { return n == 0 ? 0 : (n - 1) * (inc < 0 ? -inc : inc) + 1; }

// p[k stride] for k = 0..count-1 (stride of either sign) into out[k].
void strided_to_host(const double* p, i64 stride, i64 count, double* out) {
  const i64 step = stride < 0 ? -stride : stride;
  const double* first = stride < 0 ? p + (count - 1) * stride : p;  // the lowest address
  check(cudaMemcpy2D(out, sizeof(double), first, sizeof(double) * static_cast<std::size_t>(step), sizeof(double),
                     static_cast<std::size_t>(count), cudaMemcpyDeviceToHost),
        "cudaMemcpy2D");
  if (stride < 0) std::reverse(out, out + count);
}

std::vector<double> to_host(const double* d, i64 count, cudaStream_t s) {
  std::vector<double> h(static_cast<std::size_t>(count));
  if (count > 0)
    check(cudaMemcpyAsync(h.data(), d, sizeof(double) * h.size(), cudaMemcpyDeviceToHost, s), "cudaMemcpy");
  check(cudaStreamSynchronize(s), "cudaMemcpy");
  return h;
}

}  // namespace

blas12_stats last_blas12_stats() noexcept { return stats_tls; }

namespace {

// One pass of a reduction over device vectors (y: dot only; arguments checked).
double reduce(d2::reduction r, std::int64_t n, const double* x, std::int64_t incx, const double* y,
              std::int64_t incy, rounding mode) {
  stats_tls = blas12_stats{};
  if (n == 0) return d2::reduce_exact(r, 0, nullptr, 1, nullptr, 1, mode);
  detail::check_device_pointer("x", x);
  if (r == d2::reduction::dot) detail::check_device_pointer("y", y);
  const detail::session hold;
  context& cx = hold.cx;
  const i64 chunks = (n + d2::dot_chunk - 1) / d2::dot_chunk;
  device_buffer parts(sizeof(d2::state) * static_cast<std::size_t>(chunks), "cudaMalloc(dot chunks)");
  EXALA_CUDA_LAUNCH(reduce_chunks_kernel, static_cast<unsigned>(chunks), d2::dot_chains, cx.stream, r, n, x, incx, y, incy,
                                                                                       parts.as<d2::state>());
  check(cudaGetLastError(), "reduce_chunks_kernel");
  std::vector<d2::state> h(static_cast<std::size_t>(chunks));
  check(cudaMemcpyAsync(h.data(), parts.p, sizeof(d2::state) * h.size(), cudaMemcpyDeviceToHost, cx.stream),
        "cudaMemcpy(dot chunks)");
  check(cudaStreamSynchronize(cx.stream), "dot");
  stats_tls.chains = d2::dot_chains;
  double v;
  if (d2::round_chunks(h.data(), chunks, n, r, mode, v)) return v;
  stats_tls.host_outputs = 1;  // exactly, from host copies
  const std::vector<double> hx = to_host(x, span(n, incx), cx.stream);
  const std::vector<double> hy = r == d2::reduction::dot ? to_host(y, span(n, incy), cx.stream) : std::vector<double>{};
  return d2::reduce_exact(r, n, hx.data(), incx, hy.data(), incy, mode);
}

}  // namespace

double dot(std::int64_t n, const double* x, std::int64_t incx, const double* y, std::int64_t incy, rounding mode) {
  exala::detail::check_dot_arguments(n, x, incx, y, incy);
  return reduce(d2::reduction::dot, n, x, incx, y, incy, mode);
}
double sum(std::int64_t n, const double* x, std::int64_t incx, rounding mode) {
  exala::detail::check_dot_arguments(n, x, incx, x, incx);
  return reduce(d2::reduction::sum, n, x, incx, nullptr, 0, mode);
}
double asum(std::int64_t n, const double* x, std::int64_t incx, rounding mode) {
  exala::detail::check_dot_arguments(n, x, incx, x, incx);
  return reduce(d2::reduction::asum, n, x, incx, nullptr, 0, mode);
}
double nrm2(std::int64_t n, const double* x, std::int64_t incx, rounding mode) {
  exala::detail::check_dot_arguments(n, x, incx, x, incx);
  return reduce(d2::reduction::nrm2, n, x, incx, nullptr, 0, mode);
}

void trsv(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, const double* a, std::int64_t lda,
          double* x, std::int64_t incx, rounding mode) {
  exala::detail::check_trsv_arguments(lay, n, a, lda, x, incx, true);
  stats_tls = blas12_stats{};
  if (n == 0) return;
  detail::check_device_pointer("a", a);
  detail::check_device_pointer("x", x);
  const detail::session hold;
  context& cx = hold.cx;
  const cudaStream_t s = cx.stream;
  const bool unit = dg == diag::unit;
  if (!unit) {  // a zero diagonal: singular_matrix naming the first such row, as exala::trsv
    std::vector<double> d(static_cast<std::size_t>(n));
    check(cudaMemcpy2D(d.data(), sizeof(double), a, sizeof(double) * static_cast<std::size_t>(lda + 1),
                       sizeof(double), static_cast<std::size_t>(n), cudaMemcpyDeviceToHost),
          "cudaMemcpy2D(diagonal)");
    for (i64 i = 0; i < n; ++i)
      if (d[static_cast<std::size_t>(i)] == 0.0) throw singular_matrix("trsv", i);
  }
  const d2::trsv_form f = d2::trsv_form_of(lay, ul, trans, n, a, lda, x, incx);
  device_buffer states(sizeof(d2::state) * static_cast<std::size_t>(n), "cudaMalloc(trsv states)");
  device_buffer stop(sizeof(i64), "cudaMalloc(stop)");
  check(cudaMemsetAsync(states.p, 0, sizeof(d2::state) * static_cast<std::size_t>(n), s), "cudaMemset(states)");
  std::vector<double> row, xneg;
  for (i64 k0 = 0; k0 < n; k0 += d2::trsv_block) {
    const i64 k1 = std::min<i64>(n, k0 + d2::trsv_block);
    i64 first = k0;
    int known = 0;
    for (;;) {
      const i64 none = -1;
      check(cudaMemcpyAsync(stop.p, &none, sizeof none, cudaMemcpyHostToDevice, s), "cudaMemcpy(stop)");
      EXALA_CUDA_LAUNCH(trsv_diag_kernel, 1, d2::trsv_block, s, f, k0, k1, first, known, unit ? 1 : 0, mode, x,
                                                    states.as<d2::state>(), stop.as<i64>());
      check(cudaGetLastError(), "trsv_diag_kernel");
      i64 at = -1;
      check(cudaMemcpyAsync(&at, stop.p, sizeof at, cudaMemcpyDeviceToHost, s), "cudaMemcpy(stop)");
      check(cudaStreamSynchronize(s), "trsv");
      if (at < 0) break;
      // Row `at` exactly on the host: its row of the forward form and the
      // solutions before it (copied element by element: strides of either sign).
      row.resize(static_cast<std::size_t>(at + 1));
      xneg.resize(static_cast<std::size_t>(at + 1));
      strided_to_host(f.base + at * f.rs, f.cs, at + 1, row.data());
      strided_to_host(x + f.x0, f.xs, at + 1, xneg.data());
      for (double& v : xneg) v = -v;
      const double b = -xneg[static_cast<std::size_t>(at)];
      const double v = d2::trsv_row_exact(dg, n, row.data(), xneg.data(), at, b, mode);
      check(cudaMemcpy(x + f.xi(at), &v, sizeof v, cudaMemcpyHostToDevice), "cudaMemcpy(x)");
      ++stats_tls.host_outputs;
      first = at;
      known = 1;
    }
    if (k1 < n) {
      EXALA_CUDA_LAUNCH(trsv_update_kernel, blocks_for(n - k1, 128), 128, s, f, k0, k1, x, states.as<d2::state>());
      check(cudaGetLastError(), "trsv_update_kernel");
    }
  }
  check(cudaStreamSynchronize(s), "trsv");
  stats_tls.chains = 1;
}

void gemv(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha, const double* a,
          std::int64_t lda, const double* x, std::int64_t incx, double beta, double* y, std::int64_t incy,
          rounding mode) {
  exala::detail::check_gemv_arguments(lay, trans, m, n, alpha, a, lda, x, incx, y, incy);
  stats_tls = blas12_stats{};
  const d2::gemv_form f = d2::form_of(lay, trans, m, n, a, lda);
  if (f.outputs == 0) return;
  detail::check_device_pointer("y", y);
  if (alpha != 0.0 && f.terms > 0) {
    detail::check_device_pointer("a", a);
    detail::check_device_pointer("x", x);
  }
  const detail::session hold;
  context& cx = hold.cx;
  const cudaStream_t s = cx.stream;
  const i64 ny = span(f.outputs, incy);
  if (alpha == 0.0 || f.terms == 0) {  // round(beta y): A and x not read (the front end's conventions)
    std::vector<double> hy = to_host(y, ny, s);
    exala::gemv(lay, trans, m, n, alpha, nullptr, lda, nullptr, incx, beta, hy.data(), incy,
                exec{backend::simd, 0, mode});
    check(cudaMemcpy(y, hy.data(), sizeof(double) * hy.size(), cudaMemcpyHostToDevice), "cudaMemcpy(y)");
    return;
  }
  device_buffer flags(static_cast<std::size_t>(f.outputs), "cudaMalloc(flags)");
  device_buffer count(sizeof(unsigned long long), "cudaMalloc(count)");
  check(cudaMemsetAsync(flags.p, 0, static_cast<std::size_t>(f.outputs), s), "cudaMemset(flags)");
  check(cudaMemsetAsync(count.p, 0, sizeof(unsigned long long), s), "cudaMemset(count)");
  const gemv_out out{f.outputs, f.terms, alpha, beta, y, incy, mode, flags.as<unsigned char>(),
                     count.as<unsigned long long>()};
  const bool rows = f.so == 1;
  const int groups = rows ? d2::row_groups(f.outputs, f.terms) : 0;
  const device_buffer partial(sizeof(d2::state) * static_cast<std::size_t>(groups * f.outputs),
                              "cudaMalloc(gemv states)");
  if (rows) {
    const i64 len = (f.terms + groups - 1) / groups;
    const dim3 grid(static_cast<unsigned>(blocks_for(f.outputs, 128)), static_cast<unsigned>(groups));
    EXALA_CUDA_LAUNCH(gemv_rows_kernel, grid, 128, s, f.outputs, f.terms, f.a, f.sl, x, incx, len, partial.as<d2::state>());
    check(cudaGetLastError(), "gemv_rows_kernel");
    EXALA_CUDA_LAUNCH(gemv_rows_finish, blocks_for(f.outputs, 128), 128, s, partial.as<d2::state>(), groups, out);
    check(cudaGetLastError(), "gemv_rows_finish");
    stats_tls.chains = groups;
  } else {
    EXALA_CUDA_LAUNCH(gemv_cols_kernel, blocks_for(f.outputs * d2::col_chains, 256), 256, s, f.a, f.so, x, incx, out);
    check(cudaGetLastError(), "gemv_cols_kernel");
    stats_tls.chains = d2::col_chains;
  }
  unsigned long long undecided = 0;
  check(cudaMemcpyAsync(&undecided, count.p, sizeof undecided, cudaMemcpyDeviceToHost, s), "cudaMemcpy(count)");
  check(cudaStreamSynchronize(s), "gemv");
  if (undecided == 0) return;
  // The undecided outputs exactly: their lines of A, x and y_o from the device.
  stats_tls.host_outputs = static_cast<i64>(undecided);
  const std::vector<unsigned char> fl = [&] {
    std::vector<unsigned char> v(static_cast<std::size_t>(f.outputs));
    check(cudaMemcpy(v.data(), flags.p, v.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(flags)");
    return v;
  }();
  const std::vector<double> hx = to_host(x, span(f.terms, incx), s);
  std::vector<double> line(static_cast<std::size_t>(f.terms));
  for (i64 o = 0; o < f.outputs; ++o) {
    if (!fl[static_cast<std::size_t>(o)]) continue;
    const double* src = f.a + o * f.so;  // element l at src[l sl]
    check(cudaMemcpy2D(line.data(), sizeof(double), src, sizeof(double) * static_cast<std::size_t>(f.sl),
                       sizeof(double), static_cast<std::size_t>(f.terms), cudaMemcpyDeviceToHost),
          "cudaMemcpy2D(A line)");
    double* yo = y + d2::element(o, f.outputs, incy);
    double v = 0.0;
    check(cudaMemcpy(&v, yo, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy(y)");
    const d2::gemv_form one{1, f.terms, line.data(), 0, 1};
    d2::gemv_output_exact(one, 0, alpha, hx.data(), incx, beta, &v, mode);
    check(cudaMemcpy(yo, &v, sizeof v, cudaMemcpyHostToDevice), "cudaMemcpy(y)");
  }
}

}  // namespace exala::cuda
