// stripe/stripe_lu.cpp - the stripe LU driver: in-core and out-of-core
// factorization, the solve phase, exact-residual refinement (stripe_lu.hpp).
//
// The factorization loops live in factor_loop.cpp (one copy for this driver
// and the MPI one). Out of core the elimination is right-looking by pivot
// groups of m stripes (m = 1 for the basic and zigzag orders, m = meta for
// meta-zigzag): group g
// is brought up to date and factored stripe by stripe (each member first
// eliminated by the earlier members), its factored stripes are written as
// lu_ files and the journal records the group; then every later stripe is
// eliminated by the group's m stripes, one after the other, in the chosen
// traversal order (zigzag: alternately ascending and descending, so that the
// stripes cached at the end of one sweep start the next). A later stripe thus
// always receives the same sequence of kernel calls, whatever m, the order,
// the cache or a resume - which is why the bits never depend on them.
//
// Per stripe the disk holds: orig_ (never modified), act_ (its columns
// [c_k, n) after k groups, replaced atomically), and lseg_ files (the final L
// columns [c_g, c_g+1) of group g, one file per group, so that a repeated
// write after a crash rewrites the same file with the same bytes). A resumed
// run reads k from each act_ header and restarts at the smallest k (pivot
// groups already finished are read back from their lu_ files).
#include "exala/stripe_lu.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <optional>

#include "cache.hpp"
#include "device_driver.hpp"
#include "driver_common.hpp"
#include "engine.hpp"
#include "exala/blas2.hpp"
#include "factor_loop.hpp"
#include "exala/checked.hpp"
#include "host_array.hpp"
#include "kernels.hpp"
#include "store.hpp"

namespace exala {

namespace st = detail::stripe;
using i64 = std::int64_t;

namespace {

using st::clock_type;
using st::unit_roundoff;
using st::elim_flops;
using st::factor_flops;
using st::lu_flops;
using st::progress_meter;
using st::seconds_since;

// The solve phase and the residual always run on the CPU engine (O(n^2)
// work on data that is in host memory).
std::unique_ptr<st::dense_engine> make_engine(const stripe_lu_options& o) {
  return st::make_cpu_engine(o.threads);
}

}  // namespace

// Options, report, sizes and scale: st::driver_state (factor_loop.hpp).
struct stripe_lu::impl : st::driver_state {
  // In core: the original matrix and the factors (n x n, ld n).
  bool in_core = false;
  // (lu holds A' = 2^-k A before the factorization: the constructors fill it.)
  st::host_array a0, lu;
  // The matrix factored in core: lu (ld n), or in place the caller's array
  // (ld its lda; a0 is then empty and given_sum the checksum of A as given,
  // against which the caller's copy for the residual is checked).
  double* f = nullptr;
  i64 ldf = 0;
  bool in_place = false;
  std::uint64_t given_sum = 0;
  std::vector<i64> ipiv;  // local: 0-based within the stripe; partial: global rows
  // Out of core.
  std::optional<st::store> store;
  std::vector<std::string> dirs;

  // factor_in_core / factor_out_of_core with pivot errors in A's units.
  void factor(bool out_of_core);
  void factor_in_core();
  void factor_in_core_device(st::device_engine& e);
  void factor_out_of_core();
  void permute(i64 nrhs, double* y, i64 ldy) const;
  void solve_in_place(i64 nrhs, double* y, i64 ldy) const;
  // A's rows: from a0, the store, or (in place) the caller's copy `given`.
  void residual(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx, double* r,
                const st::rows_view* given) const;
  double backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                        const double* r) const;
  refine_report refine(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx, int max_refine,
                       const st::rows_view* given) const;
  // `given` must be there exactly when the object was factored in place,
  // and hold the matrix that was factored (`routine` names the call).
  void check_given(const st::rows_view* given, const char* routine) const;
  // The public backward_error: checks, residual, error.
  double checked_backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                                const st::rows_view* given) const;
  // The one pass over A of both in-core constructors: the finiteness check,
  // max|a_ij| and ||A'||_inf, then (k != 0) the scaling of the factored copy.
  void scan_and_scale(const double* a, i64 lda, double* copy_to);
  void note_pivots(const st::block& b, i64 r0);
  // The factorization loops' view of this driver (factor_loop.hpp).
  st::factor_setup setup();
};

void stripe_lu::impl::factor(bool out_of_core) {
  st::factor_in_units_of_a(sc, threshold(), [&] { out_of_core ? factor_out_of_core() : factor_in_core(); });
}

// Pivots and sc.max_scaled are both of A' (the ratio is scale-free and in range).
void stripe_lu::impl::note_pivots(const st::block& b, i64 r0) {
  if (sc.max_scaled == 0) return;
  for (i64 i = 0; i < b.rows; ++i) {
    const double r = std::fabs(b.col(r0 + i)[i]) / sc.max_scaled;
    if (r < rep.min_pivot_ratio || rep.min_pivot_ratio == 0) rep.min_pivot_ratio = r;
  }
}

st::factor_setup stripe_lu::impl::setup() {
  return driver_state::setup([this](const st::block& b, i64 r0) { note_pivots(b, r0); },
                             [this](double seconds, double resumed_flops) {
                               rep.factor_seconds = seconds;
                               rep.factor_gflops =
                                   seconds > 0 ? (lu_flops(n) - resumed_flops) / seconds * 1e-9 : 0;
                             });
}

// ---------------------------------------------------------------- in core

void stripe_lu::impl::factor_in_core() {
  in_core = true;
  rep.in_core = true;
  ipiv.assign(std::size_t(n), 0);
  auto fe = st::make_factor_engine(opt);
  rep.engine = fe.get().name();
  if (fe.dev) rep.device = fe.dev->device_name();
  if (fe.dev) {
    factor_in_core_device(*fe.dev);
    return;
  }
  auto own = [this](i64 J) { return st::block{f + J * S, rows(J), 0, n, ldf}; };
  if (opt.pivot == pivoting::local) {
    st::distribution one;
    st::factor_in_memory(setup(), one, *fe.cpu, own, ipiv.data());
    return;
  }
  const auto t0 = clock_type::now();
  progress_meter pm(opt, "factor", lu_flops(n), N, nullptr);
  pm.report(0, nullptr, true);
  st::factor_partial(*fe.cpu, n, f, ldf, S, threshold(), ipiv.data());
  for (i64 J = 0; J < N; ++J) note_pivots(own(J), J * S);
  setup().finish(seconds_since(t0), 0);
  pm.done = pm.total;
  pm.report(N, nullptr, true);
}

// In core on a device engine: pivot groups of as many stripes as the device
// holds (all of them when the matrix fits), each stripe uploaded, updated by
// the group's earlier stripes and factored there, then the later stripes
// streamed through (three in flight). Each stripe gets the same sequence of
// engine calls as on the CPU path and as out of core with this engine.
void stripe_lu::impl::factor_in_core_device(st::device_engine& e) {
  // Pinned host memory makes the copies asynchronous (not counted in the
  // factorization time: report.pin_seconds).
  const auto tp = clock_type::now();
  st::pinned_host pinned(e);
  if (n > 0) pinned.pin(f, (std::size_t(ldf) * std::size_t(n - 1) + std::size_t(n)) * sizeof(double));
  rep.pin_seconds = seconds_since(tp);
  const auto t0 = clock_type::now();
  progress_meter pm(opt, "factor", lu_flops(n), N, nullptr);
  pm.report(0, nullptr, true);
  const double thr = threshold();
  if (opt.pivot == pivoting::partial) {
    // Global pivoting needs the whole matrix on the device.
    const std::size_t bytes = std::size_t(n) * std::size_t(n) * 8u;
    if (bytes + (std::size_t{512} << 20) > e.free_bytes())
      throw invalid_argument("pivot", "partial pivoting on the '" + opt.engine +
                                          "' engine needs the whole matrix on the device (" +
                                          std::to_string(bytes >> 20) + " MiB); use local pivoting");
    double* d = e.alloc(std::size_t(n) * std::size_t(n), "the matrix");
    struct release_at_exit {
      st::device_engine& e;
      double* p;
      ~release_at_exit() { e.release(p); }
    } rel{e, d};
    e.upload(f, ldf, d, n, n, n);
    e.wait(st::device_engine::compute, e.record(st::device_engine::h2d));
    st::factor_partial(e, n, d, n, S, thr, ipiv.data());
    e.wait(st::device_engine::d2h, e.record(st::device_engine::compute));
    e.download(d, n, f, ldf, n, n);
    e.sync_all();
    for (i64 J = 0; J < N; ++J) note_pivots({f + J * S, rows(J), 0, n, ldf}, J * S);
  } else {
    st::distribution one;
    // meta caps the pivot slots (tests use it to exercise the streamed sweep).
    rep.meta = st::factor_in_memory_device(
        e, one, n, S, Sp, N, thr, opt.meta,
        [this](i64 J) { return st::block{f + J * S, rows(J), 0, n, ldf}; }, ipiv.data(),
        [&](i64 step, double f) {
          pm.done += f;
          pm.report(step, nullptr, false);
        },
        [this](const st::block& b, i64 r0) { note_pivots(b, r0); }, nullptr);
  }
  setup().finish(seconds_since(t0), 0);
  pm.done = pm.total;
  pm.report(N, nullptr, true);
}

// ------------------------------------------------------------ out of core

void stripe_lu::impl::factor_out_of_core() {
  auto fe = st::make_factor_engine(opt);
  st::distribution one;
  st::factor_out_of_core(setup(), one, fe.get(), fe.dev.get(), *store, dirs[0] + "/progress",
                         "(resume = false, `exala solve --restart`)");
}

// -------------------------------------------------------------- the solves

// y := P y (the row interchanges of every stripe, in order).
void stripe_lu::impl::permute(i64 nrhs, double* y, i64 ldy) const {
  auto swap_rows = [&](i64 a, i64 b) {
    if (a == b) return;
    for (i64 c = 0; c < nrhs; ++c) std::swap(y[a + c * ldy], y[b + c * ldy]);
  };
  if (opt.pivot == pivoting::partial) {
    for (i64 i = 0; i < n; ++i) swap_rows(i, ipiv[std::size_t(i)]);
  } else {
    for (i64 J = 0; J < N; ++J)
      for (i64 i = 0; i < rows(J); ++i) swap_rows(J * S + i, J * S + ipiv[std::size_t(J * S + i)]);
  }
}

// The solve phase and the residual of factor_loop.hpp on one process (a
// plain distribution): in core from lu / a0 (ld n); out of core the lu_ and
// orig_ stripes streamed through a cache (the stripes cached at the end of
// the forward pass start the backward one).
void stripe_lu::impl::solve_in_place(i64 nrhs, double* y, i64 ldy) const {
  st::distribution one;
  std::unique_ptr<st::dense_engine> e;
  // Out of core: read with the lu_ stripes by the cache's I/O threads, so
  // declared before the cache (which joins them): an error that leaves this
  // function while a stripe is still being read must not free piv first.
  std::vector<i64> piv;
  std::unique_ptr<st::stripe_cache> cache;
  auto prepare = [&](const std::vector<i64>& plan) {
    e = make_engine(opt);
    if (in_core) {
      permute(nrhs, y, ldy);  // every pivot at once (partial pivoting crosses stripes)
      return;
    }
    st::store& sto = const_cast<st::store&>(*store);
    piv.assign(std::size_t(n), 0);
    cache = whole_stripes([&](i64 J, double* dst) {
      sto.read_lu(J, rows(J), 0, n, dst, rows(J), piv.data() + J * S);
    });
    cache->plan(plan);
  };
  st::solve_by_stripes(one, n, S, N, nrhs, y, ldy, prepare, [&]() -> st::dense_engine& { return *e; },
                       [&](i64 J) -> st::lu_view {
                         if (in_core) return {{f + J * S, rows(J), 0, n, ldf}};
                         st::cache_buffer& b = cache->acquire(J);
                         return {{b.data.data(), b.rows, 0, n, b.rows}, piv.data() + J * S,
                                 [&cache, J] { cache->release(J); }};
                       });
}

// r := b - A x, each entry rounded once from the exact value (exala::gemv).
void stripe_lu::impl::residual(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx, double* r,
                               const st::rows_view* given) const {
  st::distribution one;
  std::unique_ptr<st::stripe_cache> cache;
  auto prepare = [&](const std::vector<i64>& plan) {
    if (in_core) return;
    st::store& sto = const_cast<st::store&>(*store);
    cache = whole_stripes([&](i64 I, double* dst) { sto.read_original(I * S, rows(I), 0, n, dst, rows(I)); });
    cache->plan(plan);
  };
  st::residual_by_stripes(one, n, S, N, nrhs, b, ldb, x, ldx, r, opt.threads, prepare, [&](i64 I) -> st::rows_view {
    if (in_place) return {given->a + I * S, given->lda};
    if (in_core) return {a0.data() + I * S, n};
    st::cache_buffer& a = cache->acquire(I);
    return {a.data.data(), a.rows, [&cache, I] { cache->release(I); }};
  });
}

double stripe_lu::impl::backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                                       const double* r) const {
  return st::backward_error(n, nrhs, b, ldb, x, ldx, r, sc.norm, sc.exp);
}

// Iterative refinement with the exact residual (see the header): stops when
// the backward error reaches u, stops halving, or a correction changes nothing.
refine_report stripe_lu::impl::refine(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx,
                                      int max_refine, const st::rows_view* given) const {
  if (max_refine < 0 || max_refine > 100)
    throw invalid_argument("max_refine", "must be in 0..100, got " + std::to_string(max_refine));
  st::refine_ops ops;
  ops.solve = [this](i64 k, double* y, i64 ldy) { solve_in_place(k, y, ldy); };
  ops.residual = [&](const double* xx, i64 ldxx, double* r) { residual(nrhs, b, ldb, xx, ldxx, r, given); };
  ops.scale = sc;
  return st::refine_loop(n, nrhs, b, ldb, x, ldx, max_refine, ops, opt, store ? &store->counters() : nullptr);
}

void stripe_lu::impl::check_given(const st::rows_view* given, const char* routine) const {
  st::check_residual_source(in_place, given != nullptr, routine, "a0",
                            "a copy of A (the overload with a0, lda0)");
  if (given == nullptr) return;
  if (given->lda < std::max<i64>(1, n))
    throw invalid_argument("lda0", "must be >= max(1, n) = " + std::to_string(std::max<i64>(1, n)) +
                                       ", got " + std::to_string(given->lda));
  if (n > 0 && given->a == nullptr) throw invalid_argument("a0", "is null");
  if (st::block_checksum(n, n, given->a, given->lda, 0) != given_sum)
    throw invalid_argument("a0", "is not the matrix that was factored (its checksum differs)");
}

void stripe_lu::impl::scan_and_scale(const double* a, i64 lda, double* copy_to) {
  std::vector<double> rowsum(std::size_t(n), 0.0);
  const st::copy_scan c = st::copy_and_scan(n, n, a, lda, copy_to, n, in_place ? nullptr : f, ldf, rowsum.data());
  if (c.bad_col >= 0)
    throw invalid_argument("a", "entry (" + std::to_string(c.bad_row) + ", " + std::to_string(c.bad_col) +
                                    ") is not finite");
  set_scale(c.max_abs);
  if (sc.exp == 0)
    for (double v : rowsum) sc.norm = std::max(sc.norm, v);
  else
    sc.norm = st::scale_copy(n, n, in_place ? f : a0.data(), in_place ? ldf : n, f, ldf, sc.exp);
}

// ------------------------------------------------------------- public API

stripe_lu::stripe_lu(i64 n, const double* a, i64 lda, const stripe_lu_options& opt)
    : p_(std::make_unique<impl>()) {
  st::check_stripe_options(opt);
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  if (lda < std::max<i64>(1, n))
    throw invalid_argument("lda", "must be >= max(1, n) = " + std::to_string(std::max<i64>(1, n)) +
                                      ", got " + std::to_string(lda));
  detail::check_matrix_extent("a", "lda", false, n, n, lda);  // n * n and the span of A
  if (n > 0 && a == nullptr) throw invalid_argument("a", "is null");
  impl& s = *p_;
  s.opt = opt;
  s.n = n;
  s.choose_sizes(false);
  // One pass over A: the copies a0 (kept for the residual) and lu (to be
  // factored), the finiteness check, max|a_ij| and the row sums of |a_ij| in
  // column order, which are ||A'||_inf's (A' = 2^-k A) where k = 0; a second
  // pass scales lu and sums again otherwise.
  s.a0 = st::host_array(std::size_t(n * n));
  s.lu = st::host_array(std::size_t(n * n));
  s.f = s.lu.data(), s.ldf = n;
  s.scan_and_scale(a, lda, s.a0.data());
  s.factor(false);
}

stripe_lu stripe_lu::in_place(i64 n, double* a, i64 lda, const stripe_lu_options& opt) {
  st::check_stripe_options(opt);
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  if (lda < std::max<i64>(1, n))
    throw invalid_argument("lda", "must be >= max(1, n) = " + std::to_string(std::max<i64>(1, n)) +
                                      ", got " + std::to_string(lda));
  detail::check_matrix_extent("a", "lda", false, n, n, lda);
  if (n > 0 && a == nullptr) throw invalid_argument("a", "is null");
  stripe_lu lu(std::make_unique<impl>());
  impl& s = *lu.p_;
  s.opt = opt;
  s.n = n;
  s.choose_sizes(false);
  // The same pass without a copy (scanning a, then scaling it in place),
  // and the checksum of A as given.
  s.f = a, s.ldf = lda;
  s.in_place = true;
  s.given_sum = st::block_checksum(n, n, a, lda, 0);  // before the scaling
  s.scan_and_scale(a, lda, nullptr);
  s.factor(false);
  return lu;
}

stripe_lu::stripe_lu(std::unique_ptr<impl> p) : p_(std::move(p)) {}

stripe_lu::stripe_lu(const std::vector<std::string>& workdirs, const stripe_lu_options& opt)
    : p_(std::make_unique<impl>()) {
  st::check_stripe_options(opt);
  if (workdirs.empty()) throw invalid_argument("workdirs", "is empty");
  impl& s = *p_;
  s.opt = opt;
  s.dirs = workdirs;
  s.store.emplace(st::store::open(workdirs));
  s.store->set_policy(opt.sync, opt.drop_page_cache);
  const st::manifest& man = s.store->info();
  s.n = man.n;
  s.file_stripe = man.stripe;
  // ||A'||_inf = 2^-k ||A||_inf exactly; where the manifest's ||A||_inf
  // overflowed (inf), from the stripes (one read of A).
  s.set_scale(man.max_abs);
  s.sc.norm = std::isfinite(man.norm_inf) ? std::ldexp(man.norm_inf, -s.sc.exp)
                                          : st::stored_row_norm(*s.store, s.n, 0, s.n, s.sc.exp);
  const std::uint64_t matrix_bytes = std::uint64_t(s.n) * std::uint64_t(s.n) * 8u;
  const bool fits = opt.cache_bytes == 0 || opt.cache_bytes >= matrix_bytes;
  if (opt.pivot == pivoting::partial) {
    if (!fits)
      throw invalid_argument("pivot", "partial pivoting needs the whole matrix in memory (" +
                                          std::to_string(matrix_bytes) + " bytes > cache of " +
                                          std::to_string(opt.cache_bytes) +
                                          "): use local pivoting out of core");
    // In core from the work directory: load A, factor in memory.
    s.choose_sizes(false);
    s.a0 = st::host_array(std::size_t(s.n * s.n));
    s.lu = st::host_array(std::size_t(s.n * s.n));
    if (s.n > 0) s.store->read_original(0, s.n, 0, s.n, s.a0.data(), s.n);
    std::memcpy(s.lu.data(), s.a0.data(), s.a0.size() * sizeof(double));
    s.f = s.lu.data(), s.ldf = s.n;
    st::scale_block(s.n, s.n, s.lu.data(), s.n, s.sc.exp);  // the norm is the manifest's
    s.factor(false);
    return;
  }
  if (opt.resume) {
    // Parameters left to the library (0) follow a partial or finished run.
    if (auto have = s.store->read_progress()) {
      // S' only with its S: a new S with S' left to the library gets the
      // default S' (and the journal check below names the mismatch).
      const bool same_stripe = s.opt.stripe == 0 || s.opt.stripe == have->stripe;
      if (s.opt.stripe == 0) s.opt.stripe = have->stripe;
      if (s.opt.substripe == 0 && same_stripe) s.opt.substripe = have->substripe;
      if (s.opt.meta == 0 && s.opt.order == stripe_order::meta_zigzag) s.opt.meta = have->meta;
    }
  }
  s.choose_sizes(true);
  s.factor(true);
}

stripe_lu::~stripe_lu() = default;
stripe_lu::stripe_lu(stripe_lu&&) noexcept = default;
stripe_lu& stripe_lu::operator=(stripe_lu&&) noexcept = default;

i64 stripe_lu::n() const noexcept { return p_->n; }
const stripe_lu_report& stripe_lu::report() const noexcept { return p_->rep; }

namespace {
void check_rhs(i64 n, i64 nrhs, const void* b, i64 ldb, const char* bn, const char* ldn) {
  if (nrhs < 0) throw invalid_argument("nrhs", "must be >= 0, got " + std::to_string(nrhs));
  if (ldb < std::max<i64>(1, n))
    throw invalid_argument(ldn, "must be >= max(1, n) = " + std::to_string(std::max<i64>(1, n)) +
                                    ", got " + std::to_string(ldb));
  detail::check_matrix_extent(bn, ldn, false, n, nrhs, ldb);  // n * nrhs and the span
  if (n > 0 && nrhs > 0 && b == nullptr) throw invalid_argument(bn, "is null");
}
}  // namespace

void stripe_lu::solve(i64 nrhs, double* b, i64 ldb) const {
  check_rhs(p_->n, nrhs, b, ldb, "b", "ldb");
  const impl& s = *p_;
  st::scaled_solve(s.n, nrhs, b, ldb, s.sc,
                   [&s](i64 k, double* y, i64 ldy) { s.solve_in_place(k, y, ldy); }, true);
}

refine_report stripe_lu::solve_refined(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx,
                                       int max_refine) const {
  p_->check_given(nullptr, "solve_refined");
  check_rhs(p_->n, nrhs, b, ldb, "b", "ldb");
  check_rhs(p_->n, nrhs, x, ldx, "x", "ldx");
  return p_->refine(nrhs, b, ldb, x, ldx, max_refine, nullptr);
}

refine_report stripe_lu::solve_refined(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx,
                                       const double* a0, i64 lda0, int max_refine) const {
  const st::rows_view given{a0, lda0};
  p_->check_given(&given, "solve_refined");
  check_rhs(p_->n, nrhs, b, ldb, "b", "ldb");
  check_rhs(p_->n, nrhs, x, ldx, "x", "ldx");
  return p_->refine(nrhs, b, ldb, x, ldx, max_refine, &given);
}

refine_report stripe_lu::solve_stored(std::vector<double>& x, int max_refine) const {
  if (!p_->store) throw invalid_argument("solve_stored", "needs a stripe_lu made from a work directory");
  const i64 n = p_->n, nrhs = p_->store->info().nrhs;
  std::vector<double> b(std::size_t(n * nrhs));
  if (n > 0 && nrhs > 0) p_->store->read_rhs(b.data(), n);
  x.assign(std::size_t(n * nrhs), 0.0);
  if (n == 0 || nrhs == 0) return {};
  return p_->refine(nrhs, b.data(), n, x.data(), n, max_refine, nullptr);
}

double stripe_lu::backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx) const {
  return p_->checked_backward_error(nrhs, b, ldb, x, ldx, nullptr);
}

double stripe_lu::backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                                 const double* a0, i64 lda0) const {
  const st::rows_view given{a0, lda0};
  return p_->checked_backward_error(nrhs, b, ldb, x, ldx, &given);
}

double stripe_lu::impl::checked_backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                                               const st::rows_view* given) const {
  check_given(given, "backward_error");
  check_rhs(n, nrhs, b, ldb, "b", "ldb");
  check_rhs(n, nrhs, x, ldx, "x", "ldx");
  std::vector<double> r(std::size_t(n * nrhs));
  residual(nrhs, b, ldb, x, ldx, r.data(), given);
  return backward_error(nrhs, b, ldb, x, ldx, r.data());
}

}  // namespace exala
