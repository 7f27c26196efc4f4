// gemm front end: argument checks, BLAS conventions, the reference backend,
// and the dispatch to the exact engine (gemm_crt.cpp).
//
// Guarantee: C_ij = round(alpha * sum_l op(A)_il op(B)_lj + beta * C_ij),
// one correct rounding of the exact value in exec.mode (error <= 1/2 ulp to
// nearest, < 1 ulp directed), identical bits on every backend, thread count,
// kernel set and exec.block. Conventions as exala::gemv: alpha == 0 or
// k == 0 gives round(beta * C_ij) (A and B not read), beta == 0 does not read
// C (the beta * c term is +0, exactly as round_axpby(alpha, S, 0, 0)).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "exala/arith.hpp"
#include "exala/blas1.hpp"
#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/detail/cuda_hooks.hpp"
#include "exala/detail/exec.hpp"
#include "exala/detail/opencl_hooks3.hpp"
#include "exala/detail/ozaki8_engine.hpp"
#include "exala/error.hpp"
#include "gemm_engine.hpp"
#include "gemm_round.hpp"
#include "kernel_set.hpp"

namespace exala {

namespace detail::gemm3 {

const gemm_kernels& active_gemm_kernels() { return *active_kernels().gemm; }

int threads_for_products(const exec& ex, std::int64_t products) {
  const int t = threads_of(ex);
  const std::int64_t useful = std::max<std::int64_t>(1, products / min_products_per_thread);
  return static_cast<int>(std::min<std::int64_t>(t, useful));
}

}  // namespace detail::gemm3

namespace detail {
gemm_path last_gemm_path() noexcept {
  const gemm3::crt_stats s = gemm3::last_crt_stats();
  return gemm_path{s.moduli, s.width_a, s.width_b, s.truncated, s.fallback_entries, s.zero_entries};
}
}  // namespace detail

namespace {

// Small products (issue 16, tiny calls) take the bounded Dot2 paths of
// gemv instead of the CRT engine's scans, packing and tables: each entry is
// decided from a bound (round_bounded_axpby), and an entry it cannot decide
// is formed exactly (entry_exact). The correctly rounded entries are unique,
// so the bits are the engine's.
std::atomic<std::int64_t> small_gemm_max_products{std::int64_t{1} << 21};  // 128^3
std::atomic<bool> host_ozaki8_on{false};  // detail::ozaki8::set_host_engine
// backend::cuda runs gemm on the GPU from this many multiply-adds (256^3).
std::atomic<std::int64_t> cuda_min_products{std::int64_t{1} << 24};
constexpr std::int64_t small_gemm_max_k = 1024;

// An entry whose k products are all exact zeros (each pair has a zero factor
// and a finite other factor: structured inputs, triangular and Hessenberg
// blocks, are full of them) has S = 0 exactly, and no bound can decide it
// (the result is beta c rounded, or a signed zero). It is finished here with
// the engine's rules (finish: the IEEE zero sign of S from its products'
// signs), without an accumulator. False: some product is not an exact zero.
bool zero_entry(const detail::gemm3::problem& p, std::int64_t i, std::int64_t j, double& c) {
  const detail::gemm3::zero_sum_sign z = detail::gemm3::zero_sign_of(p, i, j);
  if (!z.exact_zeros) return false;
  const bool s_neg = z.neg;
  const std::uint64_t none[1] = {0};
  const bool beta_zero = p.beta == 0.0;  // -0 too: beta = +0, c not read, as in the engine
  c = detail::gemm3::finish(detail::gemm3::unpack(p.alpha), none, 1, false, 0,
                            detail::gemm3::unpack(beta_zero ? 0.0 : p.beta), beta_zero ? 0.0 : c, p.mode,
                            [s_neg] { return s_neg; });
  return true;
}

// The last resorts of the vector passes below for one entry: the zero
// path, else the exact one (both counted in last_gemm_path).
void finish_left_entry(const detail::gemm3::problem& p, std::int64_t i, std::int64_t j, double& c) {
  if (zero_entry(p, i, j, c)) {
    detail::gemm3::count_zero_entry();
    return;
  }
  detail::gemm3::entry_exact(p, i, j, false);
  detail::gemm3::count_exact_dot_entry();
}

// One rank-1 entry round(c + alpha a b) to nearest, or false: the bound on
// the exact TwoProd of a b, then an exact cancellation (elimination steps
// give c - l u = 0, which no bound decides: alpha a b = qh + ql + rh + rl
// exactly, and c + qh an exact zero with nothing else left is round_axpby's
// +0 of a cancellation).
bool rank1_entry(double alpha, double a, double b, double c, double& v) {
  if (!two_prod_is_exact(a, b)) return false;
  const eft_pair s = two_prod(a, b);
  if (exala::detail::round_bounded_axpby(alpha, exala::detail::bounded{s.hi, s.lo, 0.0}, 1.0, c,
                                         rounding::to_nearest_even, v))
    return true;
  if (c != 0.0 && std::isfinite(c) && two_prod_is_exact(alpha, s.hi) && two_prod_is_exact(alpha, s.lo)) {
    const eft_pair q = two_prod(alpha, s.hi), w = two_prod(alpha, s.lo);
    if (c + q.hi == 0.0 && q.lo == 0.0 && w.hi == 0.0 && w.lo == 0.0) {
      v = 0.0;
      return true;
    }
  }
  return false;
}

// Rank-1 updates C + alpha x y^T to nearest (dger; gemm with k = 1 and
// beta = 1): alpha x_i is split once per row (TwoProd), then each column is
// one vector pass (rank1_nearest: TwoProd, two TwoSums and the decision in
// SIMD lanes); the entries it leaves take the scalar bounded path, then the
// zero and exact paths. False (nothing done) without a kernel for it.
bool rank1_update(const detail::gemm3::problem& p) {
  std::size_t nleft = 0;
  if (!exala::detail::rank1_nearest(nullptr, nullptr, 0.0, nullptr, 0, nullptr, nleft)) return false;  // no kernel
  constexpr std::size_t stack_rows = 256;
  const auto m = static_cast<std::size_t>(p.m);
  double uh_s[stack_rows], ul_s[stack_rows];
  unsigned char left_s[stack_rows];
  std::vector<double> uh_v, ul_v;
  std::vector<unsigned char> left_v;
  double *uh = uh_s, *ul = ul_s;
  unsigned char* left = left_s;
  if (m > stack_rows) {
    uh_v.resize(m), ul_v.resize(m), left_v.resize(m);
    uh = uh_v.data(), ul = ul_v.data(), left = left_v.data();
  }
  for (std::size_t i = 0; i < m; ++i) {
    const double xi = p.opa(static_cast<std::int64_t>(i), 0);
    if (two_prod_is_exact(p.alpha, xi)) {
      const eft_pair s = two_prod(p.alpha, xi);
      uh[i] = s.hi;
      ul[i] = s.lo;
    } else {
      uh[i] = ul[i] = std::nan("");  // the kernel leaves the row to the paths below
    }
  }
  for (std::int64_t j = 0; j < p.n; ++j) {
    const double b = p.opb(0, j);
    double* cj = p.c + j * p.ldc;
    exala::detail::rank1_nearest(uh, ul, b, cj, m, left, nleft);  // present (checked above)
    for (std::size_t i = 0; i < m && nleft > 0; ++i) {
      if (!left[i]) continue;
      --nleft;
      const auto ii = static_cast<std::int64_t>(i);
      const double a = p.opa(ii, 0);
      double& c = cj[i];
      double v;
      if (rank1_entry(p.alpha, a, b, c, v)) {
        c = v;
        continue;
      }
      // Near the bottom of the range (LAPACK's tests scale matrices down to
      // about 2^-970): the same with c and the smaller factor scaled up by
      // 2^600, exactly; a result that is normal once scaled back down has
      // the same rounding at both scales (below 2^-1022 it would not).
      constexpr double up = 0x1p600, down = 0x1p-600;
      if (std::fabs(c) < 0x1p-900 && std::isfinite(c)) {
        const bool scale_a = std::fabs(a) <= std::fabs(b);
        const double f = scale_a ? a : b;
        if (std::fabs(f) < 0x1p400 &&
            rank1_entry(p.alpha, scale_a ? a * up : a, scale_a ? b : b * up, c * up, v) &&
            (v == 0.0 || std::fabs(v) >= 0x1p-422)) {
          c = v * down;  // exact: a normal result, or +0
          continue;
        }
      }
      finish_left_entry(p, ii, j, c);
    }
  }
  return true;
}

// Products with k = 2, alpha = 1, beta = 0, to nearest and op(A) stored by
// columns (drot: [x y] times a 2 x 2 rotation): one vector pass per column
// of C (two_products_nearest); the entries it leaves take the bounded Dot2
// path of the small products, then the zero and exact paths. False (nothing
// done) without a kernel for it.
bool two_term_product(const detail::gemm3::problem& p) {
  std::size_t nleft = 0;
  if (!exala::detail::two_products_nearest(nullptr, nullptr, 0.0, 0.0, nullptr, 0, nullptr, nleft)) return false;
  const auto m = static_cast<std::size_t>(p.m);
  std::vector<unsigned char> left(m);
  const double* u = p.a;
  const double* v = p.a + p.lda;
  for (std::int64_t j = 0; j < p.n; ++j) {
    double* cj = p.c + j * p.ldc;
    exala::detail::two_products_nearest(u, v, p.opb(0, j), p.opb(1, j), cj, m, left.data(), nleft);
    for (std::size_t i = 0; i < m && nleft > 0; ++i) {
      if (!left[i]) continue;
      --nleft;
      const auto ii = static_cast<std::int64_t>(i);
      const double x[2] = {p.opa(ii, 0), p.opa(ii, 1)}, y[2] = {p.opb(0, j), p.opb(1, j)};
      exala::detail::bounded s;
      double w;
      if (exala::detail::dot_bounded(x, y, 2, s) &&
          exala::detail::round_bounded_axpby(1.0, s, 0.0, 0.0, p.mode, w)) {
        cj[i] = w;
        continue;
      }
      finish_left_entry(p, ii, j, cj[i]);
    }
  }
  return true;
}

// Returns false, with C as it was, when too many entries would need their
// exact path (structured inputs: exactly zero entries, which the bound never
// decides, are common in factorizations): the caller then runs the engine,
// which handles them without a per-entry accumulator.
bool small_gemm(const detail::gemm3::problem& p) {
  using exala::detail::bounded;
  const auto R = static_cast<std::int64_t>(exala::detail::rows_bounded_block());
  const auto k = static_cast<std::size_t>(p.k);
  // Undecided entries are formed exactly at the end; beyond this many the
  // engine is cheaper (an exact entry costs about a microsecond).
  const std::int64_t max_exact = std::max<std::int64_t>(4, p.m * p.n / 16);
  std::vector<std::pair<std::int64_t, std::int64_t>> undecided;
  std::vector<double> saved;  // C's entries as they were, for a retreat
  if (p.beta != 0.0)
    for (std::int64_t j = 0; j < p.n; ++j)
      saved.insert(saved.end(), p.c + j * p.ldc, p.c + j * p.ldc + p.m);
  std::vector<bounded> s(static_cast<std::size_t>(p.m));
  // The lanes' structure-of-arrays copy of s (hi, lo, err) and their output.
  std::vector<double> soa(p.mode == rounding::to_nearest_even ? 4 * s.size() : 0);
  double* const hv = soa.data();
  double* const lv = hv + s.size();
  double* const ev = lv + s.size();
  double* const outv = ev + s.size();
  std::vector<unsigned char> left(soa.empty() ? 0 : s.size());
  std::vector<double> col(p.tb ? k : 0);  // column j of op(B) when it is a row of B
  for (std::int64_t j = 0; j < p.n; ++j) {
    const double* x = p.b + j * p.ldb;
    if (p.tb) {
      for (std::size_t l = 0; l < k; ++l) col[l] = p.b[j + static_cast<std::int64_t>(l) * p.ldb];
      x = col.data();
    }
    if (!p.ta) {  // row i of op(A) is strided: one row per lane
      for (std::int64_t i0 = 0; i0 < p.m; i0 += R)
        exala::detail::rows_bounded(p.a + i0, p.lda, static_cast<std::size_t>(std::min(R, p.m - i0)), k, x,
                                    s.data() + i0);
    } else {  // row i of op(A) is column i of A: contiguous
      for (std::int64_t i = 0; i < p.m; ++i)
        if (!exala::detail::dot_bounded(p.a + i * p.lda, x, k, s[i])) s[i].err = std::nan("");
    }
    // To nearest, alpha S + beta C is rounded in SIMD lanes (axpby_nearest),
    // the entries it leaves one by one.
    std::size_t nleft = 0;
    bool lanes = false;
    if (p.mode == rounding::to_nearest_even) {
      for (std::int64_t i = 0; i < p.m; ++i) hv[i] = s[i].hi, lv[i] = s[i].lo, ev[i] = s[i].err;
      lanes = exala::detail::axpby_nearest(hv, lv, ev, p.alpha, p.beta, p.c + j * p.ldc, outv,
                                           static_cast<std::size_t>(p.m), left.data(), nleft);
    }
    for (std::int64_t i = 0; i < p.m; ++i) {
      double& c = p.c[i + j * p.ldc];
      if (lanes && left[i] == 0) {
        c = outv[i];
        continue;
      }
      double v;
      if (exala::detail::round_bounded_axpby(p.alpha, s[i], p.beta, p.beta == 0.0 ? 0.0 : c, p.mode, v)) {
        c = v;
      } else if (zero_entry(p, i, j, c)) {
        detail::gemm3::count_zero_entry();
      } else {
        undecided.emplace_back(i, j);
        if (static_cast<std::int64_t>(undecided.size()) > max_exact) {  // retreat: C as it was
          if (p.beta != 0.0)
            for (std::int64_t q = 0; q <= j; ++q)
              std::copy(saved.begin() + q * p.m, saved.begin() + (q + 1) * p.m, p.c + q * p.ldc);
          return false;
        }
      }
    }
  }
  // Entries of C are independent: the undecided ones still hold C's input.
  for (const auto& [i, j] : undecided) {
    detail::gemm3::entry_exact(p, i, j, false);
    detail::gemm3::count_exact_dot_entry();
  }
  return true;
}

}  // namespace

void detail::check_gemm_arguments(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n,
                                  std::int64_t k, double alpha, const double* a, std::int64_t lda,
                                  const double* b, std::int64_t ldb, const double* c, std::int64_t ldc) {
  using namespace detail::gemm3;
  check_nonneg("m", m);
  check_nonneg("n", n);
  check_nonneg("k", k);
  const bool col = lay == layout::col_major;
  const bool at = ta == transpose::trans, bt = tb == transpose::trans;
  // Stored shapes (CBLAS): A is m x k (k x m transposed), B is k x n (n x k).
  const std::int64_t a_rows = at ? k : m, a_cols = at ? m : k;
  const std::int64_t b_rows = bt ? n : k, b_cols = bt ? k : n;
  check_ld("lda", lda, col ? a_rows : a_cols);
  check_ld("ldb", ldb, col ? b_rows : b_cols);
  check_ld("ldc", ldc, col ? m : n);
  // Element counts and address spans of A, B and C within 2^60 - 1
  // (exala/checked.hpp), before any path computes an address: C's too when
  // k == 0 or alpha == 0 (m = n = 2^32 would give 2^64 entries).
  exala::detail::check_matrix_extent("a", "lda", !col, a_rows, a_cols, lda);
  exala::detail::check_matrix_extent("b", "ldb", !col, b_rows, b_cols, ldb);
  exala::detail::check_matrix_extent("c", "ldc", !col, m, n, ldc);
  if (alpha != 0.0 && k > 0 && m > 0 && n > 0) {
    check_ptr("a", a, a_rows, a_cols);
    check_ptr("b", b, b_rows, b_cols);
  }
  check_ptr("c", c, m, n);
}

bool detail::cuda_gemm_wanted(std::int64_t m, std::int64_t n, std::int64_t k) noexcept {
  return detail::gemm3::saturated_product(m, n, k) >= cuda_min_products.load(std::memory_order_relaxed);
}

std::int64_t detail::set_cuda_min_products(std::int64_t products) noexcept {
  return cuda_min_products.exchange(products < 0 ? 0 : products);
}

bool detail::ozaki8::set_host_engine(bool on) noexcept { return host_ozaki8_on.exchange(on); }
bool detail::ozaki8::host_engine() noexcept { return host_ozaki8_on.load(std::memory_order_relaxed); }

std::int64_t detail::set_small_gemm_limit(std::int64_t products) noexcept {
  return small_gemm_max_products.exchange(products < 0 ? 0 : products);
}

void gemm(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
          double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
          double beta, double* c, std::int64_t ldc, const exec& ex) {
  using namespace detail::gemm3;
  clear_crt_stats();
  detail::check_exec(ex);
  detail::check_gemm_arguments(lay, ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  const bool col = lay == layout::col_major;
  const bool at = ta == transpose::trans, bt = tb == transpose::trans;
  const bool reads_ab = alpha != 0.0 && k > 0 && m > 0 && n > 0;
  if (m == 0 || n == 0) return;

  // Column-major form: a row-major C = alpha op(A) op(B) + beta C is the
  // column-major C^T = alpha op(B)^T op(A)^T + beta C^T on the same memory.
  problem p{};
  if (col) {
    p = problem{{m, n, k, alpha, a, lda, at, b, ldb, bt, beta, c, ldc, ex.mode}};
  } else {
    p = problem{{n, m, k, alpha, b, ldb, bt, a, lda, at, beta, c, ldc, ex.mode}};
  }

  if (!reads_ab) {  // alpha == 0 or k == 0: round(beta * C), one product
    const scalar sb = unpack(beta);
    for (std::int64_t j = 0; j < p.n; ++j)
      for (std::int64_t i = 0; i < p.m; ++i) {
        double& cij = p.c[i + j * p.ldc];
        if (sb.zero) {
          cij = 0.0;  // C is not read
        } else if (ex.backend == backend::reference) {
          superaccumulator t;  // the oracle: one exact product, rounded
          t.add_product(beta, cij);
          cij = t.round(ex.mode);
        } else {
          cij = round_product(sb, cij, ex.mode);
        }
      }
    return;
  }
  if (ex.backend == backend::opencl) {  // exact device kernels (exala::gpu), same bits
    exala::detail::require_hooks<exala::detail::opencl_blas3_hooks>(
        backend::opencl, exala::detail::hook_kind::blas3, "gemm").gemm(lay, ta, tb, m, n, k, alpha, a, lda, b, ldb,
                                                           beta, c, ldc, ex.mode);
    return;
  }
  if (ex.backend == backend::cuda && detail::cuda_gemm_wanted(p.m, p.n, p.k)) {
    // the 8-bit Ozaki-II engine on the GPU (exala::gpu_cuda), same bits; a
    // smaller product runs the CPU engine below (uploads and ~10 launches
    // cost more than it)
    exala::detail::require_hooks<exala::detail::cuda_blas3_hooks>(
        backend::cuda, exala::detail::hook_kind::blas3, "gemm").gemm(p);
    return;
  }
  if (ex.backend == backend::reference) {
    for (std::int64_t j = 0; j < p.n; ++j)
      for (std::int64_t i = 0; i < p.m; ++i) entry_exact(p, i, j, true);
    return;
  }
  if (detail::ozaki8::host_engine()) {  // tests: the GPU's decomposition, on the host
    exala::detail::ozaki8::gemm_host(p);
    return;
  }
  // A bad EXALA_SIMD throws here, before any parallel region.
  const gemm_kernels& ks = active_gemm_kernels();
  // (single-threaded: with T omp threads the engine's share is 1/T, so the
  // limit is T times lower)
  const int threads = threads_for_products(ex, saturated_product(p.m, p.n, p.k));
  if (p.k == 1 && p.beta == 1.0 && p.mode == rounding::to_nearest_even && rank1_update(p)) return;
  if (p.k == 2 && p.alpha == 1.0 && p.beta == 0.0 && !p.ta && p.mode == rounding::to_nearest_even &&
      two_term_product(p))
    return;
  if (p.k <= small_gemm_max_k &&
      p.m * p.n <= small_gemm_max_products.load(std::memory_order_relaxed) / threads / p.k &&
      exala::detail::rows_bounded_block() > 0) {
    if (small_gemm(p)) return;
    clear_crt_stats();
  }
  gemm_crt(p, threads, ex.block, ks);
}

}  // namespace exala
