// generate_system.cpp - writing a system into a work directory set, stripe by
// stripe: exala::stripe_system_writer, the random test systems of
// exala::generate_dense_system, and the names of the stripe LU's options.
//
// Guarantees.
// - stripe_system_writer: max|a_ij| is exact; ||A||_inf = max_i sum_j |a_ij|
//   is an upper bound that is as tight as a double allows: each row sum is
//   computed exactly and rounded once upward (exala::asum with
//   rounding::upward), so the stored value is the smallest double >= the
//   exact norm. Non-finite entries are refused (invalid_argument "data").
//   Every stripe must be written exactly once (and B when nrhs > 0) before
//   finish() writes the manifest; a second write of a stripe throws. Over an
//   existing set (overwrite) the new one is staged (store.hpp): the old set
//   stays whole and readable until finish() has written the new one
//   completely; a writer destroyed before finish(), or one that failed,
//   leaves the old set as it was.
// - generate_dense_system: every random number is a function of (seed, what,
//   index) only - splitmix64 (Steele, Lea, Flood, "Fast splittable
//   pseudorandom number generators", OOPSLA 2014) evaluated at position
//   index + 1 of a stream whose start is derived from the seed and `what`
//   (matrix, x_true, u, v) - so A_ij depends only on (seed, n, cond, i, j),
//   never on the stripe height or the order stripes are made in. Uniform
//   numbers are k 2^-53 - 1/2 for a 53-bit integer k: exact doubles in
//   [-0.5, 0.5). B = A x_true is computed stripe by stripe with the correctly
//   rounded exala::gemv (one rounding per entry), so B is independent of the
//   stripe height as well. Memory: one stripe (stripe x n doubles) plus
//   O(n nrhs) for x_true and B.
// - cond >= 1: A = (I - 2uu^T) diag(sigma) (I - 2vv^T), sigma_i =
//   cond^(-i/(n-1)), u and v random unit vectors. Expanding the product,
//     A_ij = [i == j] sigma_i - alpha_i v_j - beta_i q_j,
//     q_j = sigma_j u_j, beta_i = 2 u_i, alpha_i = 2 sigma_i v_i - 4 gamma u_i,
//     gamma = sum_k u_k sigma_k v_k (exala::dot, correctly rounded),
//   O(1) per entry from O(n) precomputed vectors. Each stored entry is the
//   exact one up to a few roundings of terms that are O(1/n) off the
//   diagonal (u, v are unit vectors), so ||A_stored - A||_F = O(u) and the
//   2-norm condition is cond (1 + O(cond u)): close to cond while cond << 1/u
//   (the tests measure it with LAPACK's SVD for cond up to 1e12).
//   sigma uses std::pow: the bits can differ between C libraries whose pow
//   rounds differently (not between runs, threads or stripe heights).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/checked.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "store.hpp"

namespace exala {

namespace {

using detail::stripe::store;
using i64 = std::int64_t;
using u64 = std::uint64_t;

std::string num(i64 v) { return std::to_string(v); }

// ---- row statistics of one stripe ------------------------------------------
struct stripe_stats {
  double max_abs = 0;
  double norm_inf = 0;
};

// max |a_ij| and max_i round_up(sum_j |a_ij|) of a rows x n column-major
// block; throws invalid_argument("data") on a non-finite entry.
stripe_stats stats_of(i64 index, i64 row0, i64 rows, i64 n, const double* a, i64 ld) {
  constexpr i64 R = 8;  // rows packed (row-major) per asum batch
  std::vector<double> t(static_cast<std::size_t>(std::min(R, rows) * n));
  exec ex;
  ex.mode = rounding::upward;
  stripe_stats s;
  for (i64 r0 = 0; r0 < rows; r0 += R) {
    const i64 rb = std::min(R, rows - r0);
    for (i64 j = 0; j < n; ++j) {
      const double* col = a + j * ld + r0;
      for (i64 r = 0; r < rb; ++r) {
        const double v = col[r];
        if (!std::isfinite(v))
          throw exala::invalid_argument(
              "data", "stripe " + num(index) + ": entry (" + num(row0 + r0 + r) + ", " + num(j) +
                          ") is " + std::to_string(v) + ": the matrix must be finite");
        s.max_abs = std::max(s.max_abs, std::fabs(v));
        t[static_cast<std::size_t>(r * n + j)] = v;
      }
    }
    for (i64 r = 0; r < rb; ++r)
      s.norm_inf = std::max(s.norm_inf, asum(n, t.data() + r * n, 1, ex));
  }
  return s;
}

// ---- counter-based random numbers ---------------------------------------
constexpr u64 kGolden = 0x9E3779B97F4A7C15ull;

constexpr u64 mix64(u64 z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

enum class stream : u64 { matrix = 1, xtrue = 2, u = 3, v = 4 };

// Start of the splitmix64 stream for (seed, what).
u64 stream_key(u64 seed, stream what) noexcept {
  return mix64(seed ^ mix64(static_cast<u64>(what) * kGolden + 0x632BE59BD9B4E019ull));
}

// Element `index` of the stream: splitmix64's output at position index + 1,
// mapped to the exact double k 2^-53 - 1/2, k in [0, 2^53).
inline double uniform(u64 key, u64 index) noexcept {
  const u64 r = mix64(key + (index + 1) * kGolden);
  return static_cast<double>(r >> 11) * 0x1p-53 - 0.5;
}

// The precomputed vectors of the cond >= 1 construction.
struct householder_pair {
  std::vector<double> sigma, v, alpha, beta, q;
};

householder_pair make_householder_pair(i64 n, u64 seed, double cond) {
  householder_pair h;
  const auto N = static_cast<std::size_t>(n);
  h.sigma.resize(N);
  std::vector<double> u(N);
  h.v.resize(N);
  const u64 ku = stream_key(seed, stream::u), kv = stream_key(seed, stream::v);
  for (i64 i = 0; i < n; ++i) {
    h.sigma[static_cast<std::size_t>(i)] =
        n == 1 ? 1.0 : std::pow(cond, -static_cast<double>(i) / static_cast<double>(n - 1));
    u[static_cast<std::size_t>(i)] = uniform(ku, static_cast<u64>(i));
    h.v[static_cast<std::size_t>(i)] = uniform(kv, static_cast<u64>(i));
  }
  auto normalize = [n](std::vector<double>& w) {
    const double s = nrm2(n, w.data(), 1);
    if (s == 0) {  // probability 2^-53n: any unit vector does
      w[0] = 1;
      return;
    }
    for (double& x : w) x /= s;
  };
  normalize(u);
  normalize(h.v);
  std::vector<double> sv(N);
  for (std::size_t i = 0; i < N; ++i) sv[i] = h.sigma[i] * h.v[i];
  const double gamma = dot(n, u.data(), 1, sv.data(), 1);
  h.alpha.resize(N);
  h.beta.resize(N);
  h.q.resize(N);
  for (std::size_t i = 0; i < N; ++i) {
    h.alpha[i] = 2 * sv[i] - 4 * gamma * u[i];
    h.beta[i] = 2 * u[i];
    h.q[i] = h.sigma[i] * u[i];
  }
  return h;
}

std::string format_double(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

}  // namespace

// ---------------------------------------------------------------------------
// stripe_system_writer
// ---------------------------------------------------------------------------
struct stripe_system_writer::impl {
  explicit impl(store&& s) : st(std::move(s)) {}
  store st;
  i64 n = 0, nrhs = 0, stripe = 0, count = 0;
  std::mutex mu;
  std::vector<unsigned char> state;  // 0 missing, 1 being written, 2 written
  i64 written = 0;
  bool rhs = false, finished = false;
  stripe_stats stats;

  void check_open(const char* what) const {
    if (finished)
      throw exala::error(std::string("exala: stripe_system_writer::") + what +
                         ": the system was already finished");
  }
};

stripe_system_writer::stripe_system_writer(const std::vector<std::string>& workdirs, i64 n,
                                           i64 nrhs, i64 stripe, bool overwrite) {
  // store::create validates workdirs, n, nrhs and stripe (naming them) and
  // makes the directories; then the space is checked before anything is written.
  p_ = std::make_unique<impl>(store::create(workdirs, n, nrhs, stripe, overwrite));
  detail::stripe::check_space_for_original(workdirs, n, nrhs, stripe);
  p_->n = n;
  p_->nrhs = nrhs;
  p_->stripe = p_->st.info().stripe;
  p_->count = (n + p_->stripe - 1) / p_->stripe;
  p_->state.assign(static_cast<std::size_t>(p_->count), 0);
}

stripe_system_writer::~stripe_system_writer() = default;

i64 stripe_system_writer::stripes() const noexcept { return p_->count; }

i64 stripe_system_writer::stripe_rows(i64 index) const {
  if (index < 0 || index >= p_->count)
    throw exala::invalid_argument("index", "must be in [0, " + num(p_->count) + ") (got " +
                                               num(index) + ")");
  return std::min(p_->stripe, p_->n - index * p_->stripe);
}

void stripe_system_writer::write_stripe(i64 index, const double* data, i64 ld) {
  impl& s = *p_;
  const i64 rows = stripe_rows(index);
  if (data == nullptr) throw exala::invalid_argument("data", "is null");
  if (ld < rows)
    throw exala::invalid_argument("ld", "must be >= the stripe's rows " + num(rows) + " (got " +
                                            num(ld) + ")");
  // Before stats_of reads data + j * ld: the last address must not overflow.
  detail::check_matrix_span("ld", s.n, rows, ld);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.check_open("write_stripe");
    unsigned char& st = s.state[static_cast<std::size_t>(index)];
    if (st != 0)
      throw exala::invalid_argument("index", "stripe " + num(index) + " was already written" +
                                                 (st == 1 ? " (a write is in progress)" : ""));
    st = 1;
  }
  try {
    const stripe_stats t = stats_of(index, index * s.stripe, rows, s.n, data, ld);
    s.st.write_original(index, data, ld);
    std::lock_guard<std::mutex> lk(s.mu);
    s.state[static_cast<std::size_t>(index)] = 2;
    ++s.written;
    s.stats.max_abs = std::max(s.stats.max_abs, t.max_abs);
    s.stats.norm_inf = std::max(s.stats.norm_inf, t.norm_inf);
  } catch (...) {
    std::lock_guard<std::mutex> lk(s.mu);
    s.state[static_cast<std::size_t>(index)] = 0;  // may be written again
    throw;
  }
}

void stripe_system_writer::write_rhs(const double* b, i64 ldb) {
  {
    std::lock_guard<std::mutex> lk(p_->mu);
    p_->check_open("write_rhs");
  }
  p_->st.write_rhs(b, ldb);
  std::lock_guard<std::mutex> lk(p_->mu);
  p_->rhs = true;
}

void stripe_system_writer::write_xtrue(const double* x, i64 ldx) {
  {
    std::lock_guard<std::mutex> lk(p_->mu);
    p_->check_open("write_xtrue");
  }
  p_->st.write_xtrue(x, ldx);
}

void stripe_system_writer::finish(const std::string& source) {
  impl& s = *p_;
  if (source.find_first_of("\r\n") != std::string::npos)
    throw exala::invalid_argument("source", "must be one line (it contains a line break)");
  std::lock_guard<std::mutex> lk(s.mu);
  s.check_open("finish");
  if (s.written != s.count) {
    std::string missing;
    int listed = 0;
    for (i64 i = 0; i < s.count && listed < 8; ++i)
      if (s.state[static_cast<std::size_t>(i)] != 2) {
        missing += (listed ? ", " : "") + num(i);
        ++listed;
      }
    if (s.count - s.written > listed) missing += ", ...";
    throw exala::error("exala: stripe_system_writer::finish: " + num(s.count - s.written) + " of " +
                       num(s.count) + " stripes not written (" + missing +
                       "): the manifest is not written");
  }
  if (s.nrhs > 0 && !s.rhs)
    throw exala::error(
        "exala: stripe_system_writer::finish: the right-hand sides (write_rhs) were not written: "
        "the manifest is not written");
  s.st.finish(s.stats.max_abs, s.stats.norm_inf, source);
  s.finished = true;
}

// ---------------------------------------------------------------------------
// generate_dense_system
// ---------------------------------------------------------------------------
void generate_dense_system(const std::vector<std::string>& workdirs, i64 n, i64 nrhs, u64 seed,
                           i64 stripe, double cond, bool overwrite) {
  if (workdirs.empty()) throw exala::invalid_argument("workdirs", "is empty: give at least one directory");
  if (n < 1) throw exala::invalid_argument("n", "must be >= 1 (got " + num(n) + ")");
  if (nrhs < 0) throw exala::invalid_argument("nrhs", "must be >= 0 (got " + num(nrhs) + ")");
  if (stripe < 1) throw exala::invalid_argument("stripe", "must be >= 1 (got " + num(stripe) + ")");
  if (!(cond == 0 || (cond >= 1 && std::isfinite(cond))))
    throw exala::invalid_argument("cond", "must be 0 (uniform entries) or a finite value >= 1 (got " +
                                              format_double(cond) + ")");
  stripe_system_writer w(workdirs, n, nrhs, stripe, overwrite);
  const i64 S = std::min(stripe, n);
  const auto N = static_cast<std::size_t>(n);

  std::vector<double> x(N * static_cast<std::size_t>(nrhs)), b(x.size());
  const u64 kx = stream_key(seed, stream::xtrue);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = uniform(kx, k);

  householder_pair h;
  if (cond >= 1) h = make_householder_pair(n, seed, cond);
  const u64 ka = stream_key(seed, stream::matrix);

  std::vector<double> a(static_cast<std::size_t>(S) * N);
  for (i64 I = 0; I < w.stripes(); ++I) {
    const i64 rows = w.stripe_rows(I), row0 = I * S;
#if defined(EXALA_SOLVERS_HAVE_OPENMP)
#pragma omp parallel for schedule(static)
#endif
    for (i64 j = 0; j < n; ++j) {
      double* col = a.data() + j * rows;
      if (cond >= 1) {
        const double vj = h.v[static_cast<std::size_t>(j)], qj = h.q[static_cast<std::size_t>(j)];
        for (i64 r = 0; r < rows; ++r) {
          const auto i = static_cast<std::size_t>(row0 + r);
          double t = (row0 + r == j) ? h.sigma[i] : 0.0;
          t -= h.alpha[i] * vj;
          t -= h.beta[i] * qj;
          col[r] = t;
        }
      } else {
        for (i64 r = 0; r < rows; ++r)
          col[r] = uniform(ka, static_cast<u64>(row0 + r) * static_cast<u64>(n) + static_cast<u64>(j));
      }
    }
    w.write_stripe(I, a.data(), rows);
    for (i64 c = 0; c < nrhs; ++c)
      gemv(layout::col_major, transpose::none, rows, n, 1.0, a.data(), rows, x.data() + c * n, 1,
           0.0, b.data() + c * n + row0, 1);
  }
  w.write_rhs(b.data(), n);
  w.write_xtrue(x.data(), n);
  std::string src = "generate_dense_system seed=" + std::to_string(seed) + " n=" + num(n) +
                    " nrhs=" + num(nrhs);
  src += cond >= 1 ? " cond=" + format_double(cond) + " (A = (I-2uu^T) diag(sigma) (I-2vv^T))"
                   : std::string(" entries uniform in [-0.5, 0.5]");
  src += ", x_true uniform in [-0.5, 0.5], B = A x_true (correctly rounded)";
  w.finish(src);
}

// ---------------------------------------------------------------------------
// option names
// ---------------------------------------------------------------------------
std::string_view to_string(stripe_order o) noexcept {
  switch (o) {
    case stripe_order::basic: return "basic";
    case stripe_order::zigzag: return "zigzag";
    case stripe_order::meta_zigzag: return "meta-zigzag";
  }
  return "unknown";
}

std::string_view to_string(pivoting p) noexcept {
  switch (p) {
    case pivoting::local: return "local";
    case pivoting::partial: return "partial";
  }
  return "unknown";
}

stripe_order parse_stripe_order(std::string_view s, const std::string& arg) {
  for (auto o : {stripe_order::basic, stripe_order::zigzag, stripe_order::meta_zigzag})
    if (s == to_string(o)) return o;
  throw exala::invalid_argument(arg, "is '" + std::string(s) +
                                         "': choose one of basic, zigzag, meta-zigzag");
}

pivoting parse_pivoting(std::string_view s, const std::string& arg) {
  for (auto p : {pivoting::local, pivoting::partial})
    if (s == to_string(p)) return p;
  throw exala::invalid_argument(arg, "is '" + std::string(s) + "': choose one of local, partial");
}

}  // namespace exala
