// stripe_lu.cpp - the stripe LU (exala/stripe_lu.hpp) for C: options and
// reports converted field by field, the progress callback adapted from the
// C++ std::function to a C function pointer, and the handle.
#include <algorithm>
#include <memory>
#include <optional>

#include "capi.hpp"
#include "exala/checked.hpp"

struct exala_stripe_lu {
  exala::stripe_lu lu;
};

using namespace exala::capi;

namespace {

// The C++ options of *o (the C++ defaults for NULL). The C++ constructor
// checks the numeric fields (naming them); the enums are checked here.
exala::stripe_lu_options options_of(const exala_stripe_lu_options* o) {
  exala::stripe_lu_options r;
  if (o == nullptr) return r;
  r.stripe = o->stripe;
  r.substripe = o->substripe;
  r.meta = o->meta;
  r.order = from_c(o->order, "opt->order", stripe_orders);
  r.pivot = from_c(o->pivot, "opt->pivot", pivotings);
  r.cache_bytes = o->cache_bytes;
  r.threads = o->threads;
  r.io_threads = o->io_threads;
  r.sync = o->sync != 0;
  r.drop_page_cache = o->drop_page_cache != 0;
  r.resume = o->resume != 0;
  r.pivot_threshold = o->pivot_threshold;
  r.checkpoint_interval_s = o->checkpoint_interval_s;
  r.engine = o->engine != nullptr ? o->engine : "cpu";
  if (o->on_progress != nullptr) {
    // The C callback sees a C struct whose phase points into the C++
    // snapshot, valid for the duration of the call.
    r.on_progress = [fn = o->on_progress, user = o->user](const exala::stripe_lu_progress& p) {
      const exala_stripe_lu_progress c{p.phase.c_str(), p.step,        p.steps,
                                       p.fraction,      p.elapsed_s,   p.eta_s,
                                       p.gflops,        p.io_read_mbs, p.io_write_mbs,
                                       p.cache_hits,    p.cache_misses};
      fn(&c, user);
    };
  }
  r.progress_interval_s = o->progress_interval_s;
  return r;
}

void report_to_c(const exala::refine_report& r, exala_refine_report* out) {
  if (out == nullptr) return;
  *out = exala_refine_report{r.steps, r.converged ? 1 : 0, r.backward_error_before,
                             r.backward_error_after, r.seconds};
}

// A new handle made by `make` (stored in *lu only on success).
template <class Make>
exala_status new_handle(exala_stripe_lu** lu, Make&& make) {
  return guard([&] {
    exala_stripe_lu*& out = output(lu, "lu");
    auto h = std::make_unique<exala_stripe_lu>(exala_stripe_lu{make()});
    out = h.release();
  });
}

const exala::stripe_lu& lu_of(const exala_stripe_lu* lu) { return require(lu, "lu")->lu; }

// The extent of an n x cols column-major operand with leading dimension ld:
// element count and address span within 2^60 - 1 (exala/checked.hpp), so
// that no address is formed from a size that overflows (n = lda = 2^32 is
// 2^64 entries). Negative sizes and ld < max(1, n) are left to the C++
// checks, which name them with the bound.
void check_extent(const char* name, const char* ld_name, int64_t n, int64_t cols, int64_t ld) {
  if (n < 0 || cols < 0 || ld < std::max<int64_t>(1, n)) return;
  exala::detail::check_matrix_extent(name, ld_name, false, n, cols, ld);
}

}  // namespace

exala_status exala_stripe_lu_options_init(exala_stripe_lu_options* opt) {
  return guard([&] {
    exala_stripe_lu_options& out = output(opt, "opt");
    const exala::stripe_lu_options d;
    out = exala_stripe_lu_options{};
    out.stripe = d.stripe;
    out.substripe = d.substripe;
    out.meta = d.meta;
    out.order = to_c(d.order, stripe_orders);
    out.pivot = to_c(d.pivot, pivotings);
    out.cache_bytes = d.cache_bytes;
    out.threads = d.threads;
    out.io_threads = d.io_threads;
    out.sync = d.sync ? 1 : 0;
    out.drop_page_cache = d.drop_page_cache ? 1 : 0;
    out.resume = d.resume ? 1 : 0;
    out.pivot_threshold = d.pivot_threshold;
    out.checkpoint_interval_s = d.checkpoint_interval_s;
    out.engine = "cpu";
    out.on_progress = nullptr;
    out.user = nullptr;
    out.progress_interval_s = d.progress_interval_s;
  });
}

// Reproducible: factors independent of threads, cache, order and resume.
exala_status exala_stripe_lu_factor(int64_t n, const double* a, int64_t lda,
                                    const exala_stripe_lu_options* opt, exala_stripe_lu** lu) {
  return new_handle(lu, [&] {
    check_extent("a", "lda", n, n, lda);
    return exala::stripe_lu(n, a, lda, options_of(opt));
  });
}

// Reproducible, also across a killed and resumed run.
exala_status exala_stripe_lu_open(const char* const* dirs, int ndirs,
                                  const exala_stripe_lu_options* opt, exala_stripe_lu** lu) {
  return new_handle(lu, [&] {
    const std::vector<std::string> d = dirs_of(dirs, ndirs);
    return exala::stripe_lu(d, options_of(opt));
  });
}

void exala_stripe_lu_destroy(exala_stripe_lu* lu) { delete lu; }

exala_status exala_stripe_lu_n(const exala_stripe_lu* lu, int64_t* n) {
  return guard([&] {
    int64_t& out = output(n, "n");
    out = lu_of(lu).n();
  });
}

exala_status exala_stripe_lu_get_report(const exala_stripe_lu* lu, exala_stripe_lu_report* report) {
  return guard([&] {
    exala_stripe_lu_report& out = output(report, "report");
    const exala::stripe_lu_report& r = lu_of(lu).report();
    out = exala_stripe_lu_report{r.n,
                                 r.stripe,
                                 r.substripe,
                                 r.meta,
                                 r.in_core ? 1 : 0,
                                 r.resumed ? 1 : 0,
                                 r.groups_resumed,
                                 r.factor_seconds,
                                 r.factor_gflops,
                                 r.bytes_read,
                                 r.bytes_written,
                                 r.cache_hits,
                                 r.cache_misses,
                                 r.peak_cache_bytes,
                                 r.min_pivot_ratio,
                                 r.io_wait_seconds};
  });
}

// Reproducible: b := A^-1 b with the stored factors.
exala_status exala_stripe_lu_solve(const exala_stripe_lu* lu, int64_t nrhs, double* b,
                                   int64_t ldb) {
  return guard([&] {
    const exala::stripe_lu& f = lu_of(lu);
    check_extent("b", "ldb", f.n(), nrhs, ldb);
    f.solve(nrhs, b, ldb);
  });
}

// Reproducible: the solution refined against the exact residual.
exala_status exala_stripe_lu_solve_refined(const exala_stripe_lu* lu, int64_t nrhs,
                                           const double* b, int64_t ldb, double* x, int64_t ldx,
                                           int max_refine, exala_refine_report* report) {
  return guard([&] {
    const exala::stripe_lu& f = lu_of(lu);
    check_extent("b", "ldb", f.n(), nrhs, ldb);
    check_extent("x", "ldx", f.n(), nrhs, ldx);
    const exala::refine_report r = f.solve_refined(nrhs, b, ldb, x, ldx, max_refine);
    report_to_c(r, report);
  });
}

// Reproducible: the stored right-hand sides solved (and refined).
exala_status exala_stripe_lu_solve_stored(const exala_stripe_lu* lu, double* x, int64_t size,
                                          int max_refine, int64_t* nrhs,
                                          exala_refine_report* report) {
  return guard([&] {
    const exala::stripe_lu& f = lu_of(lu);
    require(x, "x");
    if (size < 0) throw exala::invalid_argument("size", "must be >= 0, got " + std::to_string(size));
    std::vector<double> v;
    const exala::refine_report r = f.solve_stored(v, max_refine);
    if (static_cast<std::uint64_t>(size) < v.size())
      throw exala::invalid_argument("size", "is " + std::to_string(size) + " doubles, but the " +
                                                "solution has n x nrhs = " +
                                                std::to_string(v.size()));
    std::copy(v.begin(), v.end(), x);
    if (nrhs != nullptr) *nrhs = f.n() > 0 ? static_cast<int64_t>(v.size()) / f.n() : 0;
    report_to_c(r, report);
  });
}

// Normwise backward error from the exact residual.
exala_status exala_stripe_lu_backward_error(const exala_stripe_lu* lu, int64_t nrhs,
                                            const double* b, int64_t ldb, const double* x,
                                            int64_t ldx, double* result) {
  return guard([&] {
    double& out = output(result, "result");
    const exala::stripe_lu& f = lu_of(lu);
    check_extent("b", "ldb", f.n(), nrhs, ldb);
    check_extent("x", "ldx", f.n(), nrhs, ldx);
    out = f.backward_error(nrhs, b, ldb, x, ldx);
  });
}

exala_status exala_generate_dense_system(const char* const* dirs, int ndirs, int64_t n,
                                         int64_t nrhs, uint64_t seed, int64_t stripe, double cond,
                                         int overwrite) {
  return guard([&] {
    const std::vector<std::string> d = dirs_of(dirs, ndirs);
    exala::generate_dense_system(d, n, nrhs, seed, stripe, cond, overwrite != 0);
  });
}
