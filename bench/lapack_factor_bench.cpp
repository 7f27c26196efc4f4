// lapack_factor_bench.cpp - exala-bench-lapack: one LAPACK driver routine of
// the system LAPACK (whichever liblapack.so.3 the dynamic linker finds:
// LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/lapack selects Debian's reference
// LAPACK), timed, and the backward error of its result computed with ExaLA's
// correctly rounded gemv/gemm (statically linked here, so they are not the
// BLAS the LAPACK calls, preloaded or not).
//
//   exala-bench-lapack ROUTINE N [--reps R] [--seed S]
//     ROUTINE: gesv (dgesv, one right-hand side), posv (dpotrf then dpotrs,
//     timed together), geqrf (dgeqrf), syev (dsyev with eigenvectors, 'V' 'L')
//
// Prints one CSV line on stdout:
//   routine,n,reps,median_s,min_s,berr,orth,blas,lapack
// median_s / min_s over R repetitions (each on a fresh copy of the same
// matrix; the copy is not timed). berr:
//   gesv, posv: ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), the
//               residual b - A x correctly rounded per entry (exala::gemv);
//   geqrf:      ||A - Q R||_1 / ||A||_1, Q formed by dorgqr after the timing,
//               A - Q R correctly rounded per entry (one exala::gemm);
//   syev:       ||A V - V diag(w)||_1 / ||A||_1, correctly rounded per entry
//               (one exala::gemm of [A V] by [V; -diag(w)]).
// orth: ||Q^T Q - I||_1 (geqrf) or ||V^T V - I||_1 (syev), correctly rounded
// per entry (exala::gemm); empty for gesv/posv. blas / lapack: the files that
// define dgemm_ and dgetrf_ in this process's global scope, links resolved
// (dgemm_ is libexala_blas.so when it is preloaded), so the CSV says which
// BLAS and LAPACK ran.
// Exit status 1 when LAPACK reports INFO != 0 or a result is not finite; 2
// on a bad argument.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "exala/blas2.hpp"
#include "exala/blas3.hpp"

extern "C" {
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
            const int* ldb, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda,
             double* b, const int* ldb, int* info, std::size_t);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda,
             const double* tau, double* work, const int* lwork, int* info);
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda,
            double* w, double* work, const int* lwork, int* info, std::size_t, std::size_t);
}

namespace {

using clock_type = std::chrono::steady_clock;
using mat = std::vector<double>;

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "exala-bench-lapack: %s\nusage: exala-bench-lapack gesv|posv|geqrf|syev N "
               "[--reps R] [--seed S]\n",
               why.c_str());
  std::exit(2);
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "exala-bench-lapack: %s\n", why.c_str());
  std::exit(1);
}

long parse_long(const char* s, long lo, long hi, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi)
    usage(std::string(what) + " must be an integer in " + std::to_string(lo) + ".." +
          std::to_string(hi) + ", got '" + s + "'");
  return v;
}

// The file that defines `name` in the global scope ("-" when none).
std::string defining_file(const char* name) {
  void* p = dlsym(RTLD_DEFAULT, name);
  Dl_info info{};
  if (p == nullptr || dladdr(p, &info) == 0 || info.dli_fname == nullptr) return "-";
  char* real = realpath(info.dli_fname, nullptr);  // the file behind the alternatives' links
  std::string file = real != nullptr ? real : info.dli_fname;
  std::free(real);
  return file;
}

// Column-major n x n helpers.
double norm_inf(const mat& a, int n) {
  double best = 0.0;
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += std::fabs(a[static_cast<std::size_t>(j) * n + i]);
    best = std::max(best, s);
  }
  return best;
}
double norm_1(const mat& a, int rows, int cols) {
  double best = 0.0;
  for (int j = 0; j < cols; ++j) {
    double s = 0.0;
    for (int i = 0; i < rows; ++i) s += std::fabs(a[static_cast<std::size_t>(j) * rows + i]);
    best = std::max(best, s);
  }
  return best;
}
double vec_inf(const std::vector<double>& x) {
  double best = 0.0;
  for (double v : x) best = std::max(best, std::fabs(v));
  return best;
}

// ||Q^T Q - I||_1 for n x n Q, each entry correctly rounded (exala::gemm).
double orthogonality(const mat& q, int n) {
  mat c(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) c[static_cast<std::size_t>(i) * n + i] = 1.0;
  exala::gemm(exala::layout::col_major, exala::transpose::trans, exala::transpose::none, n, n, n,
              1.0, q.data(), n, q.data(), n, -1.0, c.data(), n);
  return norm_1(c, n, n);
}

struct outcome {
  double berr = NAN;
  double orth = NAN;  // NaN: not applicable
};

// The problem: A (n x n) and b, from the seed; SPD for posv, symmetric for syev.
struct problem {
  int n;
  mat a;
  std::vector<double> b;
};

problem make_problem(std::string_view routine, int n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  problem p{n, mat(static_cast<std::size_t>(n) * n), std::vector<double>(n)};
  auto at = [&](int i, int j) -> double& { return p.a[static_cast<std::size_t>(j) * n + i]; };
  for (double& v : p.a) v = u(gen);
  for (double& v : p.b) v = u(gen);
  if (routine == "posv" || routine == "syev") {
    for (int j = 0; j < n; ++j)
      for (int i = j + 1; i < n; ++i) at(j, i) = at(i, j);  // symmetric (lower copied up)
  }
  if (routine == "posv") {
    // Diagonally dominant: a_ii > sum_j |a_ij| (Gershgorin), so SPD.
    for (int i = 0; i < n; ++i) at(i, i) = 0.5 * n + 1.0 + std::fabs(at(i, i));
  }
  return p;
}

// The normwise backward error of x for A x = b, with b - A x correctly
// rounded per entry.
double solve_berr(const problem& p, const std::vector<double>& x) {
  std::vector<double> r = p.b;
  exala::gemv(exala::layout::col_major, exala::transpose::none, p.n, p.n, -1.0, p.a.data(), p.n,
              x.data(), 1, 1.0, r.data(), 1);
  return vec_inf(r) / (norm_inf(p.a, p.n) * vec_inf(x) + vec_inf(p.b));
}

void check_info(const char* what, int info) {
  if (info != 0) fail(std::string(what) + " returned INFO = " + std::to_string(info));
}

int optimal_lwork(double query) { return std::max(1, static_cast<int>(query)); }

// Runs the routine once on fresh copies; returns the seconds taken and, when
// `result` is given, the outcome.
double run_once(std::string_view routine, const problem& p, outcome* result) {
  const int n = p.n, one = 1;
  int info = 0;
  mat a = p.a;
  if (routine == "gesv") {
    std::vector<double> x = p.b;
    std::vector<int> ipiv(n);
    const auto t0 = clock_type::now();
    dgesv_(&n, &one, a.data(), &n, ipiv.data(), x.data(), &n, &info);
    const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
    check_info("dgesv", info);
    if (result) result->berr = solve_berr(p, x);
    return s;
  }
  if (routine == "posv") {
    std::vector<double> x = p.b;
    const auto t0 = clock_type::now();
    dpotrf_("L", &n, a.data(), &n, &info, 1);
    if (info == 0) dpotrs_("L", &n, &one, a.data(), &n, x.data(), &n, &info, 1);
    const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
    check_info("dpotrf/dpotrs", info);
    if (result) result->berr = solve_berr(p, x);
    return s;
  }
  if (routine == "geqrf") {
    std::vector<double> tau(n);
    double query = 0.0;
    int lwork = -1;
    dgeqrf_(&n, &n, a.data(), &n, tau.data(), &query, &lwork, &info);
    check_info("dgeqrf (workspace query)", info);
    lwork = optimal_lwork(query);
    std::vector<double> work(lwork);
    const auto t0 = clock_type::now();
    dgeqrf_(&n, &n, a.data(), &n, tau.data(), work.data(), &lwork, &info);
    const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
    check_info("dgeqrf", info);
    if (result) {
      mat r(static_cast<std::size_t>(n) * n, 0.0);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i)
          r[static_cast<std::size_t>(j) * n + i] = a[static_cast<std::size_t>(j) * n + i];
      lwork = -1;
      dorgqr_(&n, &n, &n, a.data(), &n, tau.data(), &query, &lwork, &info);
      check_info("dorgqr (workspace query)", info);
      lwork = optimal_lwork(query);
      work.assign(lwork, 0.0);
      dorgqr_(&n, &n, &n, a.data(), &n, tau.data(), work.data(), &lwork, &info);
      check_info("dorgqr", info);
      mat c = p.a;  // A - Q R, one rounding per entry
      exala::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, n, n,
                  n, -1.0, a.data(), n, r.data(), n, 1.0, c.data(), n);
      result->berr = norm_1(c, n, n) / norm_1(p.a, n, n);
      result->orth = orthogonality(a, n);
    }
    return s;
  }
  // syev
  std::vector<double> w(n);
  double query = 0.0;
  int lwork = -1;
  dsyev_("V", "L", &n, a.data(), &n, w.data(), &query, &lwork, &info, 1, 1);
  check_info("dsyev (workspace query)", info);
  lwork = optimal_lwork(query);
  std::vector<double> work(lwork);
  const auto t0 = clock_type::now();
  dsyev_("V", "L", &n, a.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
  const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
  check_info("dsyev", info);
  if (result) {
    // A V - V diag(w) = [A V] [V; -diag(w)]: one exact product, one rounding.
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    mat left(2 * nn), right(2 * nn, 0.0), c(nn, 0.0);
    std::copy(p.a.begin(), p.a.end(), left.begin());  // n x 2n, columns of A then of V
    std::copy(a.begin(), a.end(), left.begin() + static_cast<std::ptrdiff_t>(nn));
    for (int j = 0; j < n; ++j) {  // 2n x n: V above, -diag(w) below
      for (int i = 0; i < n; ++i)
        right[static_cast<std::size_t>(j) * 2 * n + i] = a[static_cast<std::size_t>(j) * n + i];
      right[static_cast<std::size_t>(j) * 2 * n + n + j] = -w[j];
    }
    exala::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, n, n,
                2 * n, 1.0, left.data(), n, right.data(), 2 * n, 0.0, c.data(), n);
    result->berr = norm_1(c, n, n) / norm_1(p.a, n, n);
    result->orth = orthogonality(a, n);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) usage("needs ROUTINE and N");
  const std::string_view routine = argv[1];
  if (routine != "gesv" && routine != "posv" && routine != "geqrf" && routine != "syev")
    usage("unknown routine '" + std::string(routine) + "'");
  const int n = static_cast<int>(parse_long(argv[2], 1, 20000, "N"));
  long reps = 3, seed = 1;
  for (int i = 3; i < argc; ++i) {
    const std::string_view opt = argv[i];
    if (i + 1 == argc) usage("option '" + std::string(opt) + "' needs a value");
    if (opt == "--reps") reps = parse_long(argv[++i], 1, 1000, "--reps");
    else if (opt == "--seed") seed = parse_long(argv[++i], 0, 1L << 30, "--seed");
    else usage("unknown option '" + std::string(opt) + "'");
  }
  const problem p = make_problem(routine, n, static_cast<unsigned>(seed));
  std::vector<double> times;
  outcome out;
  for (long r = 0; r < reps; ++r) times.push_back(run_once(routine, p, r == 0 ? &out : nullptr));
  std::sort(times.begin(), times.end());
  const double median = times.size() % 2 == 1
                            ? times[times.size() / 2]
                            : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  if (!std::isfinite(out.berr) || (!std::isnan(out.orth) && !std::isfinite(out.orth)))
    fail("the backward error is not finite");
  char orth[32] = "";
  if (!std::isnan(out.orth)) std::snprintf(orth, sizeof orth, "%.3e", out.orth);
  std::printf("%s,%d,%ld,%.6f,%.6f,%.3e,%s,%s,%s\n", std::string(routine).c_str(), n, reps, median,
              times.front(), out.berr, orth, defining_file("dgemm_").c_str(),
              defining_file("dgetrf_").c_str());
  return 0;
}
