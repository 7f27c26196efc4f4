// blas1 front end: argument checks, strides, and the backends (reference,
// simd, omp here; opencl through the hook table that exala::gpu registers).
//
// Every backend adds the same exact terms into a superaccumulator and rounds
// once, so results agree bit for bit by construction; the backends differ
// only in how fast the exact sum is formed.
#include "exala/blas1.hpp"

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "exala/checked.hpp"
#include "exala/detail/opencl_hooks.hpp"
#include "exala/detail/round_bounded.hpp"
#include "exala/detail/exec.hpp"
#include "exala/error.hpp"
#include "blas1_kernels.hpp"
#include "kernel_set.hpp"

namespace exala {

namespace {

// A BLAS vector view: element i lives at base[index(i)].
struct vec {
  const double* base;
  std::int64_t inc;
  std::int64_t n;
  std::int64_t index(std::int64_t i) const noexcept { return detail::vector_offset(i, n, inc); }
};

// n, the pointer, the address span of (n, inc) (every element offset within
// 2^60 - 1, so no address computation below can overflow: exala/checked.hpp)
// and the thread count.
void check_args(std::int64_t n, const double* x, const char* xname, std::int64_t inc,
                const char* incname, std::int64_t threads) {
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  detail::check_count("n", n);
  if (n > 0 && x == nullptr)
    throw invalid_argument(xname, "is a null pointer with n = " + std::to_string(n));
  detail::check_vector_span(incname, n, inc);
  detail::check_threads(threads);
}

void require_compiled(backend b) {
  if (!is_compiled_in(b)) throw not_compiled_in("backend '" + std::string(to_string(b)) + "'");
}

enum class op { sum, asum, dot };

// Term flags of element i for the rare case of an exactly zero partial sum
// (only then do the zero signs of the terms decide the result's sign).
std::uint32_t term_flags(op o, const vec& x, const vec& y, std::int64_t i) {
  const double a = x.base[x.index(i)];
  if (o == op::sum) return superaccumulator::zero_flags(std::bit_cast<std::uint64_t>(a));
  if (o == op::asum) return superaccumulator::zero_flags(std::bit_cast<std::uint64_t>(std::fabs(a)));
  const double b = y.base[y.index(i)];
  if (a != 0.0 && b != 0.0) return superaccumulator::flag_not_negzero | superaccumulator::flag_not_poszero;
  return std::signbit(a) != std::signbit(b) ? superaccumulator::flag_not_poszero
                                            : superaccumulator::flag_not_negzero;
}

// Completes the term flags of a fresh accumulator holding elements
// [begin, end): a nonzero or special result already decides the zero sign;
// only an exactly zero finite result needs the signs of its terms.
void finish_term_flags(superaccumulator& acc, op o, const vec& x, const vec& y, std::int64_t begin,
                       std::int64_t end) {
  if (begin >= end) return;
  acc.or_flags(superaccumulator::flag_has_term);
  if (acc.has_special() || acc.sign() != 0) {
    acc.or_flags(superaccumulator::flag_not_negzero | superaccumulator::flag_not_poszero);
    return;
  }
  std::uint32_t f = 0;
  for (std::int64_t i = begin; i < end; ++i) f |= term_flags(o, x, y, i);
  acc.or_flags(f);
}

// Adds elements [begin, end) with the SIMD kernels: contiguous data goes
// straight in; strided data is packed into small buffers first.
void simd_range(superaccumulator& acc, op o, const vec& x, const vec& y, std::int64_t begin,
                std::int64_t end) {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  const std::int64_t len = end - begin;
  if (len <= 0) return;
  const bool contiguous = o == op::dot ? (x.inc == 1 && y.inc == 1) || (x.inc == -1 && y.inc == -1)
                                       : (x.inc == 1 || x.inc == -1);
  if (contiguous) {
    // For inc = -1 (both vectors in dot) the same elements (pairs) are visited
    // in the opposite order, which an exact sum does not see.
    const std::int64_t first = x.inc == 1 ? begin : x.n - end;
    const double* px = x.base + first;
    if (o == op::sum) k.sum(acc, px, static_cast<std::size_t>(len));
    else if (o == op::asum) k.asum(acc, px, static_cast<std::size_t>(len));
    else k.dot(acc, px, y.base + first, static_cast<std::size_t>(len));
    return;
  }
  // Packed on the stack (no allocation and no zero fill per call: the exact
  // fallbacks of gemv and gemm entries come here once per row or entry).
  constexpr std::int64_t chunk = 512;
  double bx[chunk], by[chunk];
  for (std::int64_t c = begin; c < end; c += chunk) {
    const std::int64_t m = end - c < chunk ? end - c : chunk;
    for (std::int64_t i = 0; i < m; ++i) bx[i] = x.base[x.index(c + i)];
    if (o == op::dot)
      for (std::int64_t i = 0; i < m; ++i) by[i] = y.base[y.index(c + i)];
    if (o == op::sum) k.sum(acc, bx, static_cast<std::size_t>(m));
    else if (o == op::asum) k.asum(acc, bx, static_cast<std::size_t>(m));
    else k.dot(acc, bx, by, static_cast<std::size_t>(m));
  }
}

void reference_range(superaccumulator& acc, op o, const vec& x, const vec& y) {
  for (std::int64_t i = 0; i < x.n; ++i) {
    const double a = x.base[x.index(i)];
    if (o == op::sum) acc.add(a);
    else if (o == op::asum) acc.add(std::fabs(a));
    else acc.add_product(a, y.base[y.index(i)]);
  }
}

// The whole vector on the calling thread, through a fresh accumulator.
void simd_whole(superaccumulator& out, op o, const vec& x, const vec& y) {
  superaccumulator loc;
  simd_range(loc, o, x, y, 0, x.n);
  finish_term_flags(loc, o, x, y, 0, x.n);
  out.merge(loc);
}

// The OpenCL hook table; throws when exala::gpu did not register it.
const detail::opencl_blas1_hooks* registered_opencl_hooks() {
  return &detail::require_hooks<detail::opencl_blas1_hooks>(backend::opencl, detail::hook_kind::blas1,
                                                             nullptr);
}

void accumulate(superaccumulator& out, op o, const vec& x, const vec& y, const exec& ex) {
  require_compiled(ex.backend);
  if (ex.backend == backend::opencl) registered_opencl_hooks();  // also for n == 0
  if (x.n == 0) return;
  switch (ex.backend) {
    case backend::reference:
      reference_range(out, o, x, y);
      return;
    case backend::simd:
    case backend::cuda:  // no CUDA reductions yet: the host kernels
      simd_whole(out, o, x, y);
      return;
    case backend::opencl: {
      // The device adds the same exact terms, with complete term flags.
      const detail::opencl_blas1_hooks* h = registered_opencl_hooks();
      if (o == op::sum) h->sum_into(out, x.n, x.base, x.inc);
      else if (o == op::asum) h->asum_into(out, x.n, x.base, x.inc);
      else h->dot_into(out, x.n, x.base, x.inc, y.base, y.inc);
      return;
    }
    case backend::omp: {
#ifdef EXALA_HAVE_OPENMP
      // Each thread gets at least min_per_thread elements: below that a
      // parallel region costs more than it saves. The result cannot change.
      constexpr std::int64_t min_per_thread = 32768;
      const std::int64_t wanted = detail::threads_of(ex);
      const std::int64_t useful = (x.n + min_per_thread - 1) / min_per_thread;
      const int threads = static_cast<int>(wanted < useful ? wanted : useful);
      detail::active_kernels();  // surface a bad EXALA_SIMD before any parallel region
      if (threads <= 1) {
        simd_whole(out, o, x, y);
        return;
      }
      std::vector<superaccumulator> parts(static_cast<std::size_t>(threads));
#pragma omp parallel for num_threads(threads) schedule(static, 1)
      for (int t = 0; t < threads; ++t) {
        const std::int64_t b = detail::split_point(x.n, t, threads);
        const std::int64_t e = detail::split_point(x.n, t + 1, threads);
        simd_range(parts[t], o, x, y, b, e);
        finish_term_flags(parts[t], o, x, y, b, e);
      }
      for (const auto& p : parts) out.merge(p);  // exact: the order cannot matter
      return;
#endif
    }
  }
  throw not_compiled_in("backend '" + std::string(to_string(ex.backend)) + "'");
}

}  // namespace

bool detail::dot_bounded(const double* x, const double* y, std::size_t n, bounded& out) {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  return k.dot_bounded != nullptr && k.dot_bounded(x, y, n, out);
}

bool detail::dot_decided(const double* x, const double* y, std::size_t n, rounding mode, double& out) {
  bounded b;
  return dot_bounded(x, y, n, b) && detail::round_bounded(b.hi, b.lo, b.err, mode, out);
}

std::size_t detail::rows_bounded_block() {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  return k.rows_bounded != nullptr ? k.rows_bounded_block : 0;
}

bool detail::strided_bounded(const double* a, std::int64_t inc, const double* x, std::size_t n,
                             const double* terms, std::size_t nterms, double alpha, double b,
                             bounded& out) {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  return k.strided_bounded != nullptr && k.strided_bounded(a, inc, x, n, terms, nterms, alpha, b, out);
}

bool detail::rank1_nearest(const double* uh, const double* ul, double b, double* c, std::size_t m,
                           unsigned char* left, std::size_t& nleft) {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  if (k.rank1_nearest == nullptr) return false;
  nleft = k.rank1_nearest(uh, ul, b, c, m, left);
  return true;
}

bool detail::two_products_nearest(const double* u, const double* v, double b0, double b1, double* c,
                                  std::size_t m, unsigned char* left, std::size_t& nleft) {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  if (k.two_products_nearest == nullptr) return false;
  nleft = k.two_products_nearest(u, v, b0, b1, c, m, left);
  return true;
}

bool detail::axpby_nearest(const double* hi, const double* lo, const double* err, double alpha, double beta,
                           const double* y, double* out, std::size_t r, unsigned char* left, std::size_t& nleft) {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  if (k.axpby_nearest == nullptr) return false;
  nleft = k.axpby_nearest(hi, lo, err, alpha, beta, y, out, r, left);
  return true;
}

bool detail::rows_solve_nearest(const double* a, std::int64_t ld, std::size_t r, std::size_t n,
                                const double* w, const double* extra, double d, double* x,
                                unsigned char* left, std::size_t& nleft) {
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  if (k.rows_solve_nearest == nullptr) return false;
  nleft = k.rows_solve_nearest(a, ld, r, n, w, extra, d, x, left);
  return true;
}

void detail::rows_bounded(const double* a, std::int64_t ld, std::size_t r, std::size_t n,
                          const double* x, bounded* out) {
  detail::active_kernels().blas1->rows_bounded(a, ld, r, n, x, out);
}

void detail::dot_contiguous(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  if (n != 0) detail::active_kernels().blas1->dot(acc, x, y, n);
}

void sum_into(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx, const exec& ex) {
  check_args(n, x, "x", incx, "incx", ex.threads);
  accumulate(acc, op::sum, vec{x, incx, n}, vec{nullptr, 0, n}, ex);
}

void asum_into(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx, const exec& ex) {
  check_args(n, x, "x", incx, "incx", ex.threads);
  accumulate(acc, op::asum, vec{x, incx, n}, vec{nullptr, 0, n}, ex);
}

void detail::check_dot_arguments(std::int64_t n, const double* x, std::int64_t incx, const double* y,
                                 std::int64_t incy) {
  check_args(n, x, "x", incx, "incx", 0);
  check_args(n, y, "y", incy, "incy", 0);
}

void dot_into(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx, const double* y,
              std::int64_t incy, const exec& ex) {
  check_args(n, x, "x", incx, "incx", ex.threads);
  check_args(n, y, "y", incy, "incy", ex.threads);
  accumulate(acc, op::dot, vec{x, incx, n}, vec{y, incy, n}, ex);
}

namespace {

// Longest dot that tries the bounded fast path first (simd and omp backends;
// omp runs a dot this short on one thread anyway). Beyond it the blocked
// exact kernels are as fast per element and need no second pass on failure.
constexpr std::int64_t short_dot_max = 4096;
// Strided short dots are packed into stack buffers of this many elements.
constexpr std::int64_t short_dot_pack = 256;

// A short call the bound could not decide (a tie, or an exact result in a
// directed mode, both frequent for a few terms of similar magnitude): the
// terms go straight into one accumulator, rounded once, instead of through
// the blocked kernels' private accumulators, merges and flag scans. Exact
// either way.
bool short_exact(std::int64_t n, const exec& ex) {
  return n <= short_dot_pack && runs_host_simd(ex.backend);
}

// The exact terms of a call the bound did not decide: a short call's direct
// deposits (short_exact), else the blocked kernels. Arguments checked.
void exact_terms(superaccumulator& acc, op o, const vec& x, const vec& y, const exec& ex) {
  if (short_exact(x.n, ex)) reference_range(acc, o, x, y);
  else accumulate(acc, o, x, y, ex);
}

// Calls that try the bounded fast path first: 1 .. short_dot_max terms on
// the simd and omp backends.
bool short_path(std::int64_t n, const exec& ex) {
  return n != 0 && n <= short_dot_max && runs_host_simd(ex.backend);
}

// The short dot's value bounded by the fast path, or false (see dot_bounded).
bool short_dot_bounded(std::int64_t n, const double* x, std::int64_t incx, const double* y,
                       std::int64_t incy, const exec& ex, detail::bounded& out) {
  if (!short_path(n, ex)) return false;
  const auto len = static_cast<std::size_t>(n);
  // inc = -1 for both visits the same pairs in the opposite order, which
  // the correctly rounded result cannot see.
  if ((incx == 1 && incy == 1) || (incx == -1 && incy == -1)) return detail::dot_bounded(x, y, len, out);
  if (n > short_dot_pack) return false;
  double bx[short_dot_pack], by[short_dot_pack];
  const vec vx{x, incx, n}, vy{y, incy, n};
  for (std::int64_t i = 0; i < n; ++i) bx[i] = x[vx.index(i)];
  if (x == y && incx == incy) return detail::dot_bounded(bx, bx, len, out);  // nrm2
  for (std::int64_t i = 0; i < n; ++i) by[i] = y[vy.index(i)];
  return detail::dot_bounded(bx, by, len, out);
}

// The correctly rounded dot from the fast path, or false (see dot_decided).
bool short_dot(std::int64_t n, const double* x, std::int64_t incx, const double* y,
               std::int64_t incy, const exec& ex, double& out) {
  detail::bounded b;
  return short_dot_bounded(n, x, incx, y, incy, ex, b) && detail::round_bounded(b.hi, b.lo, b.err, ex.mode, out);
}

}  // namespace

double dot(std::int64_t n, const double* x, std::int64_t incx, const double* y, std::int64_t incy,
           const exec& ex) {
  check_args(n, x, "x", incx, "incx", ex.threads);
  check_args(n, y, "y", incy, "incy", ex.threads);
  require_compiled(ex.backend);
  double r;
  if (short_dot(n, x, incx, y, incy, ex, r)) return r;
  superaccumulator acc;
  exact_terms(acc, op::dot, vec{x, incx, n}, vec{y, incy, n}, ex);  // arguments checked above
  return acc.round(ex.mode);
}

// The fast path bounds sum x_i^2 as the short dot does and decides the
// rounded square root from it (round_bounded_sqrt); otherwise the exact
// sum's square root is rounded by exact comparisons (round_sqrt).
double nrm2(std::int64_t n, const double* x, std::int64_t incx, const exec& ex) {
  check_args(n, x, "x", incx, "incx", ex.threads);
  require_compiled(ex.backend);
  detail::bounded b;
  double r;
  if (short_dot_bounded(n, x, incx, x, incx, ex, b) && detail::round_bounded_sqrt(b, ex.mode, r)) return r;
  superaccumulator acc;  // x_i * x_i exactly
  exact_terms(acc, op::dot, vec{x, incx, n}, vec{x, incx, n}, ex);
  return acc.round_sqrt(ex.mode);
}

namespace {

// Short sums and asums take the bounded path of the dot kernels with y = 1
// (every product exact): contiguous ones as they are, strided ones packed
// on the stack. False: the exact path decides.
bool short_sum(bool absolute, std::int64_t n, const double* x, std::int64_t incx, const exec& ex,
               double& out) {
  if (!short_path(n, ex)) return false;
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  if (k.sum_bounded == nullptr) return false;
  detail::bounded b;
  if (incx == 1 || incx == -1) {  // the same terms in either order
    if (!k.sum_bounded(x, static_cast<std::size_t>(n), absolute, b)) return false;
  } else {
    if (n > short_dot_pack) return false;
    double v[short_dot_pack];
    const vec vx{x, incx, n};
    for (std::int64_t i = 0; i < n; ++i) v[i] = x[vx.index(i)];
    if (!k.sum_bounded(v, static_cast<std::size_t>(n), absolute, b)) return false;
  }
  return detail::round_bounded(b.hi, b.lo, b.err, ex.mode, out);
}

// sum (absolute false) or asum: the bounded path, a short call's direct
// exact path, or the blocked kernels.
double sum_or_asum(bool absolute, std::int64_t n, const double* x, std::int64_t incx, const exec& ex) {
  check_args(n, x, "x", incx, "incx", ex.threads);
  require_compiled(ex.backend);
  double r;
  if (short_sum(absolute, n, x, incx, ex, r)) return r;
  superaccumulator acc;
  exact_terms(acc, absolute ? op::asum : op::sum, vec{x, incx, n}, vec{nullptr, 0, n}, ex);  // checked above
  return acc.round(ex.mode);
}

}  // namespace

double sum(std::int64_t n, const double* x, std::int64_t incx, const exec& ex) {
  return sum_or_asum(false, n, x, incx, ex);
}

double asum(std::int64_t n, const double* x, std::int64_t incx, const exec& ex) {
  return sum_or_asum(true, n, x, incx, ex);
}

double dot(std::span<const double> x, std::span<const double> y, const exec& ex) {
  if (x.size() != y.size())
    throw invalid_argument("y", "has " + std::to_string(y.size()) + " elements but x has " +
                                    std::to_string(x.size()));
  return dot(static_cast<std::int64_t>(x.size()), x.data(), 1, y.data(), 1, ex);
}

}  // namespace exala
