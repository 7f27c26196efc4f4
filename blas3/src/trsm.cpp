// trsm: reproducible triangular solve with many right-hand sides.
//
// Guarantee: every column (side left) or row (side right) of X is exactly
// what exala::detail::trsv_scaled returns for that right-hand side: x_i =
// round((alpha b_i - sum_j op(A)_ij x_j) / op(A)_ii), each the correctly
// rounded quotient of its exact numerator (Iakymchuk, Defour, Collange,
// Graillat, "Reproducible triangular solvers for high-performance
// computing", ITNG 2015), so the bits do not depend on the backend, the
// thread count or exec.block. With alpha == 1 they equal exala::trsv's.
//
// Side right, X op(A) = alpha B, is row by row op(A)^T x_i = alpha b_i: the
// same triangle of A with the transpose flag flipped. Below, T is the
// triangle as the solve sees it and "right-hand side r" a column of X.
//
// Method (simd, omp with at least min_blocked_rhs right-hand sides): blocks
// of nb rows in solve order, all right-hand sides at once:
//  1. the numerators' known part -T(I, K) X(K, :) over the rows K solved
//     before block I, exactly, by the gemm engine (gemm_crt.cpp: residue
//     DGEMMs and CRT), delivered unrounded: hi + lo within err of the exact
//     value (problem::c_lo);
//  2. the diagonal block, row by row in solve order, 16 right-hand sides in
//     SIMD lanes: one Dot2 (blas1's rows_bounded kernel) of the block's
//     earlier solutions with the row of T, with hi, lo and alpha b_i as
//     three more terms, bounds the exact numerator; round_bounded_div
//     decides x_i when the bound allows (Ziv), else x_i comes from the
//     exact numerator (detail::trsv_entry_exact: an accumulator over the
//     whole row, as trsv's own fallback). Entries whose numerator row or
//     solutions hold inf or NaN, or whose part 1 overflowed, always go exact.
// Every x_i is the correctly rounded quotient of its exact numerator either
// way, so the bits are trsv's. Otherwise (reference, opencl, few right-hand
// sides, kernel sets without the bounded kernels): one trsv_scaled per
// right-hand side; backend omp runs those in parallel.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <string>

#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/detail/cuda_hooks.hpp"
#include "exala/detail/opencl_hooks3.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/error.hpp"
#include "gemm_engine.hpp"

namespace exala {

namespace {

using detail::bounded;

// Fewer right-hand sides than this take trsv one by one (their lanes would
// be mostly empty).
constexpr std::int64_t min_blocked_rhs = 4;
// Rows per block when exec.block is 0 (the part-2 work grows with nb, the
// engine's per-call costs - packing and converting -X(K, :) - with na / nb;
// 512 measured best at na = 2000 on the 2-core AVX2 machine, 128-1024 tried).
constexpr std::int64_t default_trsm_block = 512;
// The bounded kernels' limit on a system's order (as trsv's fast path).
constexpr std::int64_t blocked_trsm_max = std::int64_t{1} << 20;
// Right-hand sides per blocked solve: -X of a chunk within this many bytes
// (a 2000 x 2000 solve is one chunk; detail::set_trsm_chunk_bytes for tests).
std::atomic<std::size_t> chunk_bytes{std::size_t{256} << 20};

// The solve in canonical form: T(i, j) = t[i rs + j cs], na x na; element
// i of right-hand side r is b[i bi + r br].
struct canonical {
  layout lay;
  uplo ul;
  transpose trans;  // the transpose of T as trsv_entry_exact takes it
  diag dg;
  std::int64_t na, nrhs;
  double alpha;
  const double* a;
  std::int64_t lda, rs, cs;
  double* b;
  std::int64_t bi, br;
  rounding mode;
  double T(std::int64_t i, std::int64_t j) const noexcept { return a[i * rs + j * cs]; }
  double& B(std::int64_t i, std::int64_t r) const noexcept { return b[i * bi + r * br]; }
};

// Buffers of blocked_trsm kept by a thread between calls (fresh pages cost
// a page fault each), up to keep_bytes; larger ones are freed after the call.
struct trsm_work {
  std::vector<double> xn, phi, plo, perr, cf;
};
thread_local trsm_work cached_trsm_work;
constexpr std::size_t keep_bytes = std::size_t{48} << 20;

void blocked_trsm(const canonical& s, const exec& ex) {
  using namespace detail::gemm3;
  const std::int64_t na = s.na, nrhs = s.nrhs;
  const bool forward = (s.ul == uplo::lower) == (s.trans == transpose::none);
  const bool unit = s.dg == diag::unit;
  const std::int64_t nb = std::min<std::int64_t>(ex.block > 0 ? ex.block : default_trsm_block, na);
  const int threads = threads_for_products(ex, saturated_product(na, na, nrhs) / 2);  // ~ products
  const gemm_kernels& ks = active_gemm_kernels();
  const auto lanes = static_cast<std::int64_t>(detail::rows_bounded_block());
  const std::int64_t groups = (nrhs + lanes - 1) / lanes;

  // Row-major over the right-hand sides (element (i, r) at [i nrhs + r]):
  // xn = -X and a block's unrounded numerator parts phi + plo within perr;
  // cf: the rows' coefficient vectors (below). B is read and overwritten in
  // place: b_i of a right-hand side is last read when its x_i is written.
  trsm_work& wk = cached_trsm_work;
  const auto total = static_cast<std::size_t>(na * nrhs), part = static_cast<std::size_t>(nb * nrhs);
  const std::int64_t zrows = nb + 3;
  wk.xn.resize(total);
  wk.phi.resize(part);
  wk.plo.resize(part);
  wk.perr.resize(part);
  wk.cf.resize(static_cast<std::size_t>(nb * zrows));
  double* const xn = wk.xn.data();
  double* const phi = wk.phi.data();
  double* const plo = wk.plo.data();
  double* const perr = wk.perr.data();
  double* const cf = wk.cf.data();
  exec inner = ex;  // the exact fallbacks run on the calling thread
  inner.backend = backend::simd;
  inner.threads = 0;

  const std::int64_t nblocks = (na + nb - 1) / nb;
  for (std::int64_t blk = 0; blk < nblocks; ++blk) {
    const auto [i0, i1, k0, k1] = detail::block_of(blk, nb, na, forward);
    const std::int64_t rows = i1 - i0;
    // 1. (T(I, K) (-X(K, :)))^T = (-X(K, :))^T T(I, K)^T unrounded, so that
    // row i of the block comes out contiguous over the right-hand sides.
    if (k1 > k0) {
      problem p{};
      p.m = nrhs;
      p.n = rows;
      p.k = k1 - k0;
      p.alpha = 1.0;
      p.a = xn + k0 * nrhs;  // op(A)(r, l) = xn[(k0 + l) nrhs + r]
      p.lda = nrhs;
      p.ta = false;
      // op(B)(l, q) = T(i0 + q, k0 + l)
      p.b = s.a + i0 * s.rs + k0 * s.cs;
      p.ldb = s.lda;
      p.tb = s.rs == 1;
      p.beta = 0.0;
      p.c = phi;
      p.ldc = nrhs;
      p.mode = rounding::to_nearest_even;
      p.c_lo = plo;
      p.c_err = perr;
      if (ex.backend == backend::cuda && exala::detail::cuda_gemm_wanted(p.m, p.n, p.k))  // on the GPU
        exala::detail::require_hooks<exala::detail::cuda_blas3_hooks>(
            backend::cuda, exala::detail::hook_kind::blas3, "trsm").gemm(p);
      else if (exala::detail::ozaki8::host_engine())  // tests: the GPU's decomposition on the host
        exala::detail::ozaki8::gemm_host(p);
      else
        gemm_crt(p, threads, ex.block, ks);
    } else {
      std::fill(phi, phi + rows * nrhs, 0.0);
      std::fill(plo, plo + rows * nrhs, 0.0);
      std::fill(perr, perr + rows * nrhs, 0.0);
    }
    // The rows' coefficient vectors over the Z rows (see below): row i's
    // starts at z0(i) and has len(i) = in-block products + 3 terms.
    //   forward:  Z = [hi, lo, b, -x_i0, ..., -x_(i1-1)], z0 = 0
    //   backward: Z = [-x_i0, ..., -x_(i1-1), hi, lo, b], z0 = i + 1 - i0
    auto z0_of = [&](std::int64_t r) { return forward ? 0 : r + 1; };
    auto len_of = [&](std::int64_t r) { return forward ? r + 3 : rows - 1 - r + 3; };
    const std::int64_t zh = forward ? 0 : rows;  // the Z row of hi (lo, b follow)
    for (std::int64_t r = 0; r < rows; ++r) {
      double* c = cf + r * zrows;
      const std::int64_t i = i0 + r;
      c[zh] = 1.0;
      c[zh + 1] = 1.0;
      c[zh + 2] = s.alpha;
      if (forward)
        for (std::int64_t q = 0; q < r; ++q) c[3 + q] = s.T(i, i0 + q);
      else
        for (std::int64_t q = r + 1; q < rows; ++q) c[q] = s.T(i, i0 + q);
    }
    // 2. The diagonal block, a group of right-hand sides at a time.
    auto solve_group = [&](std::int64_t g, std::vector<double>& z, std::vector<double>& col) {
      const std::int64_t r0 = g * lanes, w = std::min(lanes, nrhs - r0);
      // Every Z cell a lane reads is written first (this row's hi, lo, b; the
      // block's earlier solutions), and lanes past w are never read.
      z.resize(static_cast<std::size_t>(zrows * lanes));
      bounded num[64];
      double xq[64];
      unsigned char left[64];
      for (std::int64_t t = 0; t < rows; ++t) {
        const std::int64_t r = forward ? t : rows - 1 - t;
        const std::int64_t i = i0 + r;
        double* zt = z.data() + zh * lanes;
        const std::int64_t e0 = r * nrhs + r0;
        for (std::int64_t k = 0; k < w; ++k) {
          zt[k] = phi[e0 + k];
          zt[lanes + k] = plo[e0 + k];
          zt[2 * lanes + k] = s.B(i, r0 + k);
        }
        const std::int64_t z0 = z0_of(r);
        const double tii = unit ? 1.0 : s.T(i, i);
        double* const zx = z.data() + (forward ? 3 + r : r) * lanes;  // the Z row of -x_i
        // To nearest, the quotients are decided in the lanes (the panel's
        // bound as each lane's extra error); else per entry as below.
        std::size_t nleft = 0;
        const bool in_lanes =
            s.mode == rounding::to_nearest_even &&
            detail::rows_solve_nearest(z.data() + z0 * lanes, lanes, static_cast<std::size_t>(w),
                                       static_cast<std::size_t>(len_of(r)), cf + r * zrows + z0, perr + e0,
                                       tii, xq, left, nleft);
        if (!in_lanes)
          detail::rows_bounded(z.data() + z0 * lanes, lanes, static_cast<std::size_t>(w),
                               static_cast<std::size_t>(len_of(r)), cf + r * zrows + z0, num);
        for (std::int64_t k = 0; k < w; ++k) {
          double xi = in_lanes ? xq[k] : 0.0;  // (xq[k] is set where left[k] == 0)
          bool decided = in_lanes && left[k] == 0;
          if (!in_lanes) {
            bounded nk = num[k];
            nk.err = 2.0 * (nk.err + perr[e0 + k]);  // twice: the rounding of the sum
            decided = nk.err >= 0.0 &&  // false for NaN
                      (unit ? detail::round_bounded(nk.hi, nk.lo, nk.err, s.mode, xi)
                            : detail::round_bounded_div(nk, tii, s.mode, xi));
          }
          if (!decided) {  // x_i from its exact numerator, over this right-hand side's -x
            const std::int64_t rhs = r0 + k;
            col.resize(static_cast<std::size_t>(na));
            for (std::int64_t j = 0; j < na; ++j) col[j] = xn[j * nrhs + rhs];
            exec fx = inner;
            fx.mode = s.mode;
            xi = detail::trsv_entry_exact(s.lay, s.ul, s.trans, s.dg, na, s.alpha, s.B(i, rhs), s.a,
                                          s.lda, col.data(), i, fx);
          }
          zx[k] = -xi;
          xn[i * nrhs + r0 + k] = -xi;
          s.B(i, r0 + k) = xi;
        }
      }
    };
    if (threads <= 1 || groups < 2) {
      std::vector<double> z, col;
      for (std::int64_t g = 0; g < groups; ++g) solve_group(g, z, col);
    } else {
      std::exception_ptr failure;
#pragma omp parallel num_threads(static_cast<int>(std::min<std::int64_t>(threads, groups)))
      {
        std::vector<double> z, col;
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t g = 0; g < groups; ++g) {
          try {
            solve_group(g, z, col);
          } catch (...) {
#pragma omp critical(exala_trsm_failure)
            if (!failure) failure = std::current_exception();
          }
        }
      }
      if (failure) std::rethrow_exception(failure);
    }
  }
  const std::size_t bytes = sizeof(double) * (wk.xn.capacity() + wk.phi.capacity() + wk.plo.capacity() +
                                              wk.perr.capacity() + wk.cf.capacity());
  if (bytes > keep_bytes) wk = trsm_work{};
}

}  // namespace

std::size_t detail::set_trsm_chunk_bytes(std::size_t bytes) noexcept {
  return chunk_bytes.exchange(bytes);
}

void trsm(layout lay, side sd, uplo ul, transpose trans, diag dg, std::int64_t m, std::int64_t n,
          double alpha, const double* a, std::int64_t lda, double* b, std::int64_t ldb,
          const exec& ex) {
  using namespace detail::gemm3;
  if (m < 0) throw invalid_argument("m", "must be >= 0, got " + std::to_string(m));
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  const bool left = sd == side::left;
  const std::int64_t na = left ? m : n;  // A is na x na
  const bool col = lay == layout::col_major;
  if (lda < std::max<std::int64_t>(1, na))
    throw invalid_argument("lda", "must be >= " + std::to_string(std::max<std::int64_t>(1, na)) +
                                      ", got " + std::to_string(lda));
  const std::int64_t bneed = std::max<std::int64_t>(1, col ? m : n);
  if (ldb < bneed)
    throw invalid_argument("ldb", "must be >= " + std::to_string(bneed) + ", got " + std::to_string(ldb));
  detail::check_exec(ex);
  // Element counts and address spans of A and B within 2^60 - 1
  // (exala/checked.hpp), before any path computes an address (also alpha == 0).
  exala::detail::check_matrix_extent("a", "lda", !col, na, na, lda);
  exala::detail::check_matrix_extent("b", "ldb", !col, m, n, ldb);
  if (b == nullptr && m > 0 && n > 0)
    throw invalid_argument("b", "is a null pointer for a " + std::to_string(m) + " x " +
                                    std::to_string(n) + " matrix");
  if (m == 0 || n == 0) return;
  if (alpha == 0.0) {  // X = 0 (+0 everywhere) without reading A, as trsv_scaled
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) b[col ? i + j * ldb : i * ldb + j] = 0.0;
    return;
  }
  if (a == nullptr)
    throw invalid_argument("a", "is a null pointer for a " + std::to_string(na) + " x " +
                                    std::to_string(na) + " matrix");
  // Singularity is a property of A alone: checked once, before B is
  // touched, with trsv's rule (the first zero on the diagonal, 0-based).
  if (dg == diag::non_unit)
    for (std::int64_t i = 0; i < na; ++i)
      if (a[i * lda + i] == 0.0) throw singular_matrix("trsm", i);
  if (ex.backend == backend::opencl) {  // exact device kernels (exala::gpu), same bits
    exala::detail::require_hooks<exala::detail::opencl_blas3_hooks>(
        backend::opencl, exala::detail::hook_kind::blas3, "trsm").trsm(lay, sd, ul, trans, dg, m, n, alpha, a, lda,
                                                           b, ldb, ex.mode);
    return;
  }
  if (ex.backend != backend::reference) active_kernel_set();  // a bad EXALA_SIMD throws here

  // Right-hand side r: its first element and increment, length na.
  const std::int64_t nrhs = left ? n : m;
  const transpose t = left ? trans : (trans == transpose::none ? transpose::trans : transpose::none);
  auto rhs = [&](std::int64_t r, std::int64_t& inc) -> double* {
    if (left) {  // column r of B
      inc = col ? 1 : ldb;
      return col ? b + r * ldb : b + r;
    }
    inc = col ? ldb : 1;  // row r of B
    return col ? b + r : b + r * ldb;
  };
  if (runs_host_simd(ex.backend) && nrhs >= min_blocked_rhs &&
      na <= blocked_trsm_max && detail::rows_bounded_block() > 0 &&
      detail::rows_bounded_block() <= 64) {
    // T = op(A) (left) or op(A)^T (right) as a strided view, like trsv's.
    const bool row_contiguous = (lay == layout::row_major) == (t == transpose::none);
    canonical s{lay, ul, t, dg, na, nrhs, alpha, a, lda, row_contiguous ? lda : 1,
                row_contiguous ? 1 : lda, b, 0, 0, ex.mode};
    // element i of right-hand side r: B(i, r) (left) or B(r, i) (right)
    const std::int64_t along = left ? (col ? 1 : ldb) : (col ? ldb : 1);
    const std::int64_t across = left ? (col ? ldb : 1) : (col ? 1 : ldb);
    s.bi = along;
    s.br = across;
    // The right-hand sides are independent: in chunks whose -X (na x chunk
    // doubles) stays within chunk_bytes, at least one lane group each.
    const std::int64_t lanes = static_cast<std::int64_t>(detail::rows_bounded_block());
    const std::int64_t fit =
        static_cast<std::int64_t>(chunk_bytes.load(std::memory_order_relaxed) / sizeof(double)) / na;
    const std::int64_t chunk = std::max(lanes, fit / lanes * lanes);
    for (std::int64_t r0 = 0; r0 < nrhs; r0 += chunk) {
      canonical part = s;
      part.b = b + r0 * across;
      part.nrhs = std::min(chunk, nrhs - r0);
      blocked_trsm(part, ex);
    }
    return;
  }
  const int threads = static_cast<int>(std::min<std::int64_t>(detail::threads_of(ex), nrhs));
  if (threads <= 1) {
    for (std::int64_t r = 0; r < nrhs; ++r) {
      std::int64_t inc = 1;
      double* x = rhs(r, inc);
      detail::trsv_scaled("trsm", lay, ul, t, dg, na, alpha, a, lda, x, inc, ex);
    }
    return;
  }
  exec inner = ex;
  inner.backend = backend::simd;
  inner.threads = 0;
  std::exception_ptr failure;
  std::int64_t failed_at = nrhs;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t r = 0; r < nrhs; ++r) {
    try {
      std::int64_t inc = 1;
      double* x = rhs(r, inc);
      detail::trsv_scaled("trsm", lay, ul, t, dg, na, alpha, a, lda, x, inc, inner);
    } catch (...) {
#pragma omp critical(exala_trsm_failure)
      if (r < failed_at) {  // the error a sequential run would meet first
        failed_at = r;
        failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace exala
