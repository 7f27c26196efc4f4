// stripe/driver_common.cpp - the parts both stripe LU drivers share
// (driver_common.hpp).
#include "driver_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "cache.hpp"
#include "exala/blas1.hpp"
#include "exala/detail/exec.hpp"
#include "exala/error.hpp"
#include "store.hpp"

namespace exala::detail::stripe {

using i64 = std::int64_t;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void check_stripe_options(const stripe_lu_options& o) {
  if (o.stripe < 0) throw invalid_argument("stripe", "must be >= 0 (0 chooses), got " + std::to_string(o.stripe));
  if (o.substripe < 0)
    throw invalid_argument("substripe", "must be >= 0 (0 chooses), got " + std::to_string(o.substripe));
  if (o.meta < 0) throw invalid_argument("meta", "must be >= 0 (0 chooses), got " + std::to_string(o.meta));
  if (o.meta > 1 && o.order != stripe_order::meta_zigzag)
    throw invalid_argument("meta", "groups of " + std::to_string(o.meta) +
                                       " stripes need the meta-zigzag order");
  detail::check_threads(o.threads);  // 0..max_threads, as every exec
  if (o.io_threads < 0 || o.io_threads > 64)
    throw invalid_argument("io_threads", "must be in 0..64, got " + std::to_string(o.io_threads));
  if (!(o.pivot_threshold < 0) && !(o.pivot_threshold >= 0 && std::isfinite(o.pivot_threshold)))
    throw invalid_argument("pivot_threshold", "must be a finite number (< 0 chooses)");
  if (!(o.checkpoint_interval_s >= 0))
    throw invalid_argument("checkpoint_interval_s", "must be >= 0");
  if (!(o.progress_interval_s >= 0))
    throw invalid_argument("progress_interval_s", "must be >= 0");
  if (o.engine != "cpu" && o.engine != "cuda")
    throw invalid_argument("engine", "must be 'cpu' or 'cuda' (got '" + o.engine + "')");
}

stripe_sizes choose_stripe_sizes(i64 n, const stripe_lu_options& opt, i64 file_stripe,
                                 bool out_of_core) {
  stripe_sizes z;
  i64 S = opt.stripe;
  if (S == 0) {
    S = default_stripe_height(n);
    if (out_of_core && opt.cache_bytes != 0) {
      // At least 8 stripes' worth of active parts in the cache.
      const double per_row = 8.0 * double(n);
      S = std::clamp<i64>(i64(double(opt.cache_bytes) / 8.0 / per_row), std::min<i64>(16, S), S);
    }
    // A multiple of the stored stripe height reads whole orig_ files (one
    // read per column range, no staging copy).
    if (out_of_core && file_stripe > 0 && S >= file_stripe) S = S / file_stripe * file_stripe;
  }
  const i64 chosen = std::max<i64>(1, S);  // before the clamp to n
  S = std::max<i64>(1, std::min(S, std::max<i64>(n, 1)));
  i64 Sp = opt.substripe == 0 ? std::min(S, default_substripe) : opt.substripe;
  if (Sp > chosen)
    throw invalid_argument("substripe", std::to_string(Sp) + " exceeds the stripe height " +
                                            std::to_string(chosen));
  // A system shorter than the stripe is one stripe of n rows, whose
  // substripes hold at most n (n = 0 or n < S' with valid options is no
  // error; sizes that worked before are unchanged).
  Sp = std::min(Sp, S);
  const i64 N = n == 0 ? 0 : (n + S - 1) / S;
  i64 m = 1;
  if (opt.order == stripe_order::meta_zigzag) {
    m = opt.meta;
    if (m == 0) {
      m = 4;
      if (out_of_core && opt.cache_bytes != 0) {
        const double stripe_bytes = 8.0 * double(S) * double(n);
        // As many pivots as leave room for the stripe in use and two loads
        // ahead: the I/O volume falls as 1/(S m) (n = 30000, 1 GiB: m = 3
        // -> 5 cut the traffic from 91 GB to ~55 GB).
        const i64 fit = i64(double(opt.cache_bytes) / stripe_bytes);
        m = std::max<i64>(1, fit - 3);
      }
    }
    m = std::max<i64>(1, std::min(m, std::max<i64>(N, 1)));
  }
  z.S = S, z.Sp = Sp, z.m = m, z.N = N;
  z.G = N == 0 ? 0 : (N + m - 1) / m;
  return z;
}

double lu_flops(i64 n) { return 2.0 / 3.0 * double(n) * double(n) * double(n); }

double elim_flops(i64 n, i64 r0, i64 s, i64 rows) {
  return double(rows) * double(s) * double(s) + 2.0 * double(rows) * double(s) * double(n - r0 - s);
}

double factor_flops(i64 n, i64 r0, i64 rows) {
  const double w = double(n - r0), r = double(rows);
  return r * r * w - r * r * r / 3.0;
}

progress_meter::progress_meter(const stripe_lu_options& o, std::string ph, double tot, i64 nsteps,
                               io_counters* c)
    : opt(o), phase(std::move(ph)), total(tot), steps(nsteps), io(c) {
  if (io) read0 = io->bytes_read, written0 = io->bytes_written;
}

void progress_meter::report(i64 step, const cache_stats* cs, bool force) {
  if (!opt.on_progress) return;
  const auto now = clock_type::now();
  if (!force && std::chrono::duration<double>(now - last).count() < opt.progress_interval_s) return;
  last = now;
  stripe_lu_progress p;
  p.phase = phase;
  p.step = step;
  p.steps = steps;
  p.fraction = total > 0 ? std::min(1.0, done / total) : 1.0;
  p.elapsed_s = seconds_since(t0);
  const double did = done - start_done;
  p.gflops = p.elapsed_s > 0 ? did / p.elapsed_s * 1e-9 : 0;
  p.eta_s = did > 0 ? p.elapsed_s * (total - done) / did : -1;
  if (io && p.elapsed_s > 0) {
    p.io_read_mbs = double(io->bytes_read - read0) / p.elapsed_s * 1e-6;
    p.io_write_mbs = double(io->bytes_written - written0) / p.elapsed_s * 1e-6;
  }
  if (cs) p.cache_hits = cs->hits, p.cache_misses = cs->misses + cs->prefetched;
  opt.on_progress(p);
}

void progress_meter::report_or_keep(i64 step, const cache_stats* cs, bool force, std::exception_ptr& kept) {
  if (kept) return;
  try {
    report(step, cs, force);
  } catch (...) {
    kept = std::current_exception();
  }
}

double max_abs_col(i64 n, const double* x, i64 ldx, i64 c) {
  double m = 0;
  for (i64 i = 0; i < n; ++i) {
    const double v = std::fabs(x[i + c * ldx]);
    if (std::isnan(v)) return v;  // std::max would skip it
    m = std::max(m, v);
  }
  return m;
}

int scale_exponent(double m) {
  if (!(m > 0) || !std::isfinite(m)) return 0;
  if (m >= std::ldexp(1.0, -safe_exponent) && m <= std::ldexp(1.0, safe_exponent)) return 0;
  return std::ilogb(m);
}

void matrix_scale::set_max(double max_abs_of_a) {
  max_abs = max_abs_of_a;
  exp = scale_exponent(max_abs_of_a);
  max_scaled = std::ldexp(max_abs_of_a, -exp);
}

double pivot_threshold(const stripe_lu_options& opt, i64 n, const matrix_scale& s) {
  return opt.pivot_threshold >= 0 ? std::ldexp(opt.pivot_threshold, -s.exp)
                                  : double(n) * unit_roundoff * s.max_scaled;
}

void factor_in_units_of_a(const matrix_scale& s, double thr, const std::function<void()>& factor) {
  try {
    factor();
  } catch (const singular_pivot& e) {
    if (s.exp == 0) throw;
    throw unscaled_pivot_error(e, s.exp, thr);
  }
}

void scale_block(i64 rows, i64 cols, double* a, i64 lda, int k) {
  if (k == 0) return;
  for (i64 j = 0; j < cols; ++j)
    for (i64 i = 0; i < rows; ++i) a[i + j * lda] = std::ldexp(a[i + j * lda], -k);
}

void add_row_sums(i64 rows, i64 n, const double* a, i64 lda, int k, double* rowsum) {
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < rows; ++i) {
      const double v = a[i + j * lda];
      rowsum[i] += std::fabs(k == 0 ? v : std::ldexp(v, -k));
    }
}

double stored_row_norm(const store& sto, i64 n, i64 row0, i64 rows, int k) {
  double norm = 0;
  if (n == 0 || rows == 0) return norm;
  const i64 chunk = std::clamp<i64>((i64(1) << 20) / n, 1, rows);
  std::vector<double> a(static_cast<std::size_t>(chunk * n));
  for (i64 r0 = row0; r0 < row0 + rows; r0 += chunk) {
    const i64 r = std::min(chunk, row0 + rows - r0);
    sto.read_original(r0, r, 0, n, a.data(), r);
    scale_block(r, n, a.data(), r, k);
    for (i64 i = 0; i < r; ++i) norm = std::max(norm, asum(n, a.data() + i, r));
  }
  return norm;
}

std::uint64_t block_checksum(i64 rows, i64 cols, const double* a, i64 ld, std::uint64_t seed) {
  if (rows <= 0 || a == nullptr) return seed;
  for (i64 j = 0; j < cols; ++j) seed = checksum64(a + j * ld, std::size_t(rows) * sizeof(double), seed);
  return seed;
}

void check_residual_source(bool in_place, bool given, const char* routine, const char* arg,
                           const char* how) {
  if (in_place && !given)
    throw invalid_argument(routine, std::string("this stripe_lu factored its matrix in place and keeps no copy "
                                                "of A: pass ") + how);
  if (!in_place && given)
    throw invalid_argument(arg, std::string("this stripe_lu keeps its own copy of A: call ") + routine +
                                    " without " + arg);
}

copy_scan copy_and_scan(i64 rows, i64 n, const double* a, i64 lda, double* dst, i64 ld_dst, double* dst2,
                        i64 ld_dst2, double* rowsum) {
  copy_scan c;
  // One column: the scan, and the copy when `copy` (a constant per call, so
  // the scan-only loop carries no store).
  auto column = [&](i64 j, auto copy) {
    const double* col = a + j * lda;
    for (i64 i = 0; i < rows; ++i) {
      const double v = col[i];
      if (!std::isfinite(v)) {
        c.bad_row = i, c.bad_col = j;
        return false;
      }
      if constexpr (decltype(copy)::value) dst[i + j * ld_dst] = v;
      rowsum[i] += std::fabs(v);
      c.max_abs = std::max(c.max_abs, std::fabs(v));
    }
    if (dst2 != nullptr) std::memcpy(dst2 + j * ld_dst2, col, std::size_t(rows) * sizeof(double));
    return true;
  };
  for (i64 j = 0; j < n; ++j) {
    const bool ok = dst != nullptr ? column(j, std::true_type{}) : column(j, std::false_type{});
    if (!ok) break;
  }
  return c;
}

double scale_copy(i64 rows, i64 n, const double* a0, i64 ld0, double* lu, i64 ldlu, int k) {
  scale_block(rows, n, lu, ldlu, k);
  std::vector<double> rowsum(static_cast<std::size_t>(rows), 0.0);
  add_row_sums(rows, n, a0, ld0, a0 == lu ? 0 : k, rowsum.data());
  double norm = 0;
  for (double v : rowsum) norm = std::max(norm, v);
  return norm;
}

bool scaled_solve(i64 n, i64 nrhs, double* y, i64 ldy, const matrix_scale& s, const solve_fn& raw,
                  bool check) {
  if (n == 0 || nrhs == 0) return true;
  std::vector<int> t(static_cast<std::size_t>(nrhs), 0);
  std::vector<double> ymax(static_cast<std::size_t>(nrhs), 0.0);
  std::vector<char> finite(static_cast<std::size_t>(nrhs), 1);
  bool scaled = s.exp != 0;
  for (i64 c = 0; c < nrhs; ++c) {
    double m = 0;
    for (i64 i = 0; i < n; ++i) {
      const double v = std::fabs(y[i + c * ldy]);
      if (!std::isfinite(v)) finite[std::size_t(c)] = 0;
      else m = std::max(m, v);
    }
    ymax[std::size_t(c)] = m;
    const int tc = finite[std::size_t(c)] ? scale_exponent(m) : 0;
    t[std::size_t(c)] = tc;
    if (tc != 0) {
      scaled = true;
      scale_block(n, 1, y + c * ldy, ldy, tc);
    }
  }
  raw(nrhs, y, ldy);
  if (scaled)
    for (i64 c = 0; c < nrhs; ++c) scale_block(n, 1, y + c * ldy, ldy, s.exp - t[std::size_t(c)]);
  for (i64 c = 0; c < nrhs; ++c) {
    if (!finite[std::size_t(c)]) continue;
    for (i64 i = 0; i < n; ++i)
      if (!std::isfinite(y[i + c * ldy])) {
        if (!check) return false;
        throw solution_overflow(c, i, ymax[std::size_t(c)], s.max_abs);
      }
  }
  return true;
}

double backward_error(i64 n, i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx,
                      const double* r, double norm_inf, int norm_exp) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double tiny = std::numeric_limits<double>::min();  // smallest normal
  double worst = 0;
  for (i64 c = 0; c < nrhs; ++c) {
    const double rn = max_abs_col(n, r, n, c), xn = max_abs_col(n, x, ldx, c),
                 bn = max_abs_col(n, b, ldb, c);
    if (std::isnan(rn) || std::isnan(xn) || std::isnan(bn) || std::isnan(norm_inf))
      return std::numeric_limits<double>::quiet_NaN();
    double eta = 0;
    if (rn == 0) {
      eta = 0;
    } else if (std::isinf(rn) || std::isinf(xn) || std::isinf(bn) || std::isinf(norm_inf)) {
      eta = inf;  // x (or the data) is not finite: no finite backward error
    } else {
      // As written, where every intermediate is a normal double (the bits
      // ordinary data always had) ...
      const double ax = norm_inf * xn, den = ax + bn;
      const double q = den > 0 ? rn / den : inf;
      const bool normal = norm_exp == 0 && (ax == 0 || ax >= tiny) && den >= tiny &&
                          den <= std::numeric_limits<double>::max() && q >= tiny &&
                          q <= std::numeric_limits<double>::max();
      if (normal) {
        eta = q;
      } else {
        // ... otherwise by exponents and mantissas: rn = mr 2^er, and the
        // denominator mx ma 2^(ex + ea + norm_exp) + mb 2^eb brought to
        // [1/4, 2] by 2^-E, so that no step overflows or underflows.
        int er = 0, ex = 0, ea = 0, eb = 0;
        const double mr = std::frexp(rn, &er), mx = std::frexp(xn, &ex),
                     ma = std::frexp(norm_inf, &ea), mb = std::frexp(bn, &eb);
        const double p = ma * mx;  // in [1/4, 1), or 0
        const long e1 = long(ex) + long(ea) + long(norm_exp);
        if (p == 0 && mb == 0) {
          eta = inf;
        } else {
          const long E = p == 0 ? long(eb) : (mb == 0 ? e1 : std::max(e1, long(eb)));
          // Each term is 2^-E times its value: at most 2; a term far below
          // the other rounds to 0 or a subnormal, below half an ulp of the sum.
          const auto shifted = [](double m, long e) {
            return e < -2200 ? 0.0 : std::ldexp(m, int(e));
          };
          const double d = (p == 0 ? 0.0 : shifted(p, e1 - E)) + (mb == 0 ? 0.0 : shifted(mb, long(eb) - E));
          const long e = long(er) - E;  // eta = (mr / d) 2^e
          const double m = mr / d;      // in [1/4, 4]
          if (e > 2100) eta = inf;
          else if (e < -2100) eta = std::numeric_limits<double>::denorm_min();
          else eta = std::ldexp(m, int(e));
          // A nonzero residual is never reported as a zero backward error.
          if (eta == 0) eta = std::numeric_limits<double>::denorm_min();
        }
      }
    }
    worst = std::max(worst, eta);
  }
  return worst;
}

std::string pivot_why(const std::string& what) {
  static const std::string head = "exala: stripe LU: ", tail = " pivot at column ";
  if (what.compare(0, head.size(), head) != 0) return {};
  const auto at = what.find(tail, head.size());
  return at == std::string::npos ? std::string() : what.substr(head.size(), at - head.size());
}

singular_pivot unscaled_pivot_error(const singular_pivot& e, int k, double thr) {
  if (k == 0) return e;
  std::string why = pivot_why(e.what());
  if (why.empty()) why = "bad";
  return singular_pivot(e.column(), std::ldexp(e.value(), k), std::ldexp(thr, k), why);
}

refine_report refine_loop(std::int64_t n, std::int64_t nrhs, const double* b, std::int64_t ldb,
                          double* x, std::int64_t ldx, int max_refine, const refine_ops& ops,
                          const stripe_lu_options& opt, io_counters* io) {
  using i64 = std::int64_t;
  auto eta_of = [&](const double* xx, i64 ldxx, const double* r) {
    return backward_error(n, nrhs, b, ldb, xx, ldxx, r, ops.scale.norm, ops.scale.exp);
  };
  refine_report rr;
  const auto t0 = clock_type::now();
  for (i64 c = 0; c < nrhs; ++c)
    for (i64 i = 0; i < n; ++i) x[i + c * ldx] = b[i + c * ldb];
  scaled_solve(n, nrhs, x, ldx, ops.scale, ops.solve, true);
  std::vector<double> r(std::size_t(n * nrhs)), xn(std::size_t(n * nrhs));
  ops.residual(x, ldx, r.data());
  double eta = eta_of(x, ldx, r.data());
  rr.backward_error_before = eta;
  progress_meter pm(opt, "refine", double(max_refine), max_refine, io);
  for (int step = 0; step < max_refine; ++step) {
    if (!(eta > unit_roundoff)) {  // also stops on NaN
      rr.converged = !std::isnan(eta);
      break;
    }
    // The correction d; one that is not finite (an overflow in the solve of
    // a residual) cannot improve x: stop with the x we have.
    if (!scaled_solve(n, nrhs, r.data(), n, ops.scale, ops.solve, false)) break;
    bool changed = false;
    for (i64 c = 0; c < nrhs; ++c)
      for (i64 i = 0; i < n; ++i) {
        const double v = x[i + c * ldx] + r[std::size_t(i + c * n)];
        xn[std::size_t(i + c * n)] = v;
        changed |= std::memcmp(&v, &x[i + c * ldx], sizeof v) != 0;
      }
    if (!changed) {
      // A fixed point: x is what these factors give; converged only when
      // its backward error is at the level of a correctly rounded x.
      rr.converged = eta <= 2 * unit_roundoff;
      ops.residual(x, ldx, r.data());
      break;
    }
    std::vector<double> rn(std::size_t(n * nrhs));
    ops.residual(xn.data(), n, rn.data());
    const double eta_n = eta_of(xn.data(), n, rn.data());
    if (!(eta_n < eta)) break;  // no progress: keep the better x
    for (i64 c = 0; c < nrhs; ++c)
      for (i64 i = 0; i < n; ++i) x[i + c * ldx] = xn[std::size_t(i + c * n)];
    r.swap(rn);
    const bool stalled = eta_n > 0.5 * eta;
    eta = eta_n;
    ++rr.steps;
    pm.done = rr.steps;
    ops.agree([&] { pm.report(rr.steps, nullptr, false); });
    if (stalled) {
      rr.converged = eta <= 2 * unit_roundoff;
      break;
    }
  }
  if (!(eta > unit_roundoff) && !std::isnan(eta)) rr.converged = true;
  rr.backward_error_after = eta;
  rr.seconds = seconds_since(t0);
  return rr;
}

}  // namespace exala::detail::stripe

// n = 8000 on the 2-core machine (bench/README.md, MPI section, "The default
// stripe height"):
// one process in core, S = 768 and 1024 within noise of each other against
// dgetrf; two MPI ranks, S = 768 gives 4.15-4.25 s for the factorization
// loop against 4.50-4.52 s with 1024 (n = 4000: S = 512, 0.63-0.66 s
// against 0.72-0.74 s with 1024).
std::int64_t exala::default_stripe_height(std::int64_t n) noexcept {
  constexpr std::int64_t cap = 1024, floor = 512, unit = 128;
  const std::int64_t s = n >= 10 * cap ? cap : std::max(floor, n / 10 / unit * unit);
  return std::max<std::int64_t>(1, std::min(s, n));
}
