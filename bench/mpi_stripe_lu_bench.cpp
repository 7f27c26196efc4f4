// mpi_stripe_lu_bench.cpp - exala-bench-mpi-lu: the distributed stripe LU
// (exala::mpi::stripe_lu) against ScaLAPACK pdgesv (Debian's
// libscalapack-openmpi over OpenBLAS) on the same matrix, in the same run.
//
//   mpirun -np P exala-bench-mpi-lu [--n N] [--reps R] [--nb NB] [--grid RxC]
//                                   [--stripe S] [--substripe S'] [--threads T]
//                                   [--max-refine K] [--seed S] [--only ours|pdgesv]
//                                   [--check] [--verbose]
//
// Assumptions and method, stated once:
// - A (n x n) and b (n) are functions of (seed, i, j) and (seed, i) only
//   (SplitMix64 hash, entries uniform in [-0.5, 0.5)), so every rank makes
//   its own part of them, for either distribution, without communication.
// - Ours: exala::mpi::stripe_lu, in-memory constructor, engine cpu with T
//   threads per rank (default 1), local pivoting, stripe S (default: the
//   library's), then solve() of the one right-hand side. Its row_source copies
//   from rows each rank generated before the timing (the stripes it owns for
//   the height it will use; a request outside them is generated on the spot
//   and counted, and a warning is printed). Timed: the constructor (the copy
//   of the rows into the stripes, and the factorization) plus the solve.
//   Then, untimed in that figure, solve_refined() (exact residuals) with up to
//   K steps (default 10), timed on its own: "ours-refined" is the constructor
//   plus solve_refined. "ours-factor" is the factorization loop alone as the
//   solver clocks it (report().factor_seconds, the slowest rank's): without
//   the constructor's allocation, copy-in and checks of the stripes, and
//   without the solve.
// - Ours in place ("ours-in-place", "ours-in-place-refined"): the same
//   solver through its in-place constructor (exala::mpi::local_stripes): the
//   rank's stripes are allocated and filled from the saved rows outside the
//   timing, as pdgesv's local matrix is, and factored where they are (no
//   copy of A made or kept). Timed: the constructor plus the solve; the
//   refinement takes A's rows from the saved rows again (row_source). Its
//   bits must be those of the copying constructor.
// - pdgesv: A distributed 2D block-cyclic with NB x NB blocks (default 128)
//   over an R x C process grid (default: the near-square one, R <= C; 1 x P
//   for prime P), b in the same grid's first process column; OpenBLAS with T
//   threads per rank. Timed: pdgesv_ alone (the copy of the saved local
//   matrix into its work array is outside the timing).
// - Each repetition times ours and pdgesv (alternating which goes first), each
//   after an MPI_Barrier; a time is the maximum over the ranks (MPI_Reduce
//   MAX). Medians over R repetitions (default 3). GFLOP/s counts 2/3 n^3.
// - Backward errors ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), each
//   residual entry computed exactly (superaccumulator) and rounded once, here
//   in the bench (not by the solver under test), for our unrefined and refined
//   solutions and for pdgesv's (gathered on every rank).
// - x_hash: FNV-1a of the solution's bytes, so that runs at different rank
//   counts can be compared bit for bit. --check: rank 0 also factors the whole
//   matrix with the single-process exala::stripe_lu (same S, S', pivoting,
//   engine, threads) and requires the same bits for the unrefined and refined
//   solutions (keep n small with --check). --verbose: each rank's times of
//   each repetition on stderr (constructor, factorization, solve, refinement).
// Output (rank 0, CSV on stdout):
//   ranks,n,solver,config,threads,reps,median_s,min_s,max_s,gflops,
//   gflops_ratio,backward_error,refine_steps,x_hash
// gflops_ratio = this row's GFLOP/s / pdgesv's (higher is better).
// Exit status: 0 success, 1 check failure, 2 bad arguments, 3 other failure.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/error.hpp"
#include "exala/mpi.hpp"
#include "exala/stripe_lu.hpp"
#include "exala/superaccumulator.hpp"

// ScaLAPACK, BLACS (C interface) and OpenBLAS, declared here: Debian ships no
// C header for them.
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int icontxt);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca,
             int* ipiv, double* b, const int* ib, const int* jb, const int* descb, int* info);
void openblas_set_num_threads(int);
}

namespace {

using i64 = std::int64_t;
using clk = std::chrono::steady_clock;

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct args {
  i64 n = 4000;
  int reps = 3, nb = 128, grid_r = 0, grid_c = 0, threads = 1, max_refine = 10;
  i64 stripe = 0, substripe = 0;
  std::uint64_t seed = 7;
  bool ours = true, pdgesv = true, check = false, verbose = false;
};

i64 parse_count(std::string_view name, const char* v, i64 lo, i64 hi) {
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(d >= double(lo) && d <= double(hi)) || d != std::floor(d))
    throw usage_error("bad value for " + std::string(name) + ": '" + v + "' (an integer in [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + "])");
  return i64(d);
}

args parse(int argc, char** argv, int ranks) {
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string_view k = argv[i];
    if (k == "--check") {
      a.check = true;
      continue;
    }
    if (k == "--verbose") {
      a.verbose = true;
      continue;
    }
    if (i + 1 >= argc) throw usage_error("missing value after " + std::string(k));
    const char* v = argv[++i];
    if (k == "--n") a.n = parse_count(k, v, 1, 46340);  // n^2 fits ScaLAPACK's int sizes
    else if (k == "--reps") a.reps = int(parse_count(k, v, 1, 1000));
    else if (k == "--nb") a.nb = int(parse_count(k, v, 1, 4096));
    else if (k == "--stripe") a.stripe = parse_count(k, v, 1, 46340);
    else if (k == "--substripe") a.substripe = parse_count(k, v, 1, 46340);
    else if (k == "--threads") a.threads = int(parse_count(k, v, 1, 1024));
    else if (k == "--max-refine") a.max_refine = int(parse_count(k, v, 0, 100));
    else if (k == "--seed") a.seed = std::uint64_t(parse_count(k, v, 0, i64(1) << 52));
    else if (k == "--only") {
      const std::string_view s = v;
      if (s == "ours") a.pdgesv = false;
      else if (s == "pdgesv") a.ours = false;
      else throw usage_error(std::string("bad value for --only: '") + v + "' (ours or pdgesv)");
    } else if (k == "--grid") {
      int r = 0, c = 0;
      char tail = 0;
      if (std::sscanf(v, "%dx%d%c", &r, &c, &tail) != 2 || r < 1 || c < 1)
        throw usage_error(std::string("bad value for --grid: '") + v + "' (RxC, e.g. 1x4)");
      a.grid_r = r;
      a.grid_c = c;
    } else {
      throw usage_error("unknown option '" + std::string(k) + "'");
    }
  }
  if (a.grid_r == 0) {  // near-square, R <= C
    a.grid_r = 1;
    for (int r = 1; r * r <= ranks; ++r)
      if (ranks % r == 0) a.grid_r = r;
    a.grid_c = ranks / a.grid_r;
  }
  if (a.grid_r * a.grid_c != ranks)
    throw usage_error("--grid " + std::to_string(a.grid_r) + "x" + std::to_string(a.grid_c) +
                      " does not have " + std::to_string(ranks) + " processes");
  if (a.check && !a.ours) throw usage_error("--check needs our solver (not --only pdgesv)");
  return a;
}

// ------------------------------------------------------------ the system

std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

double uniform_half(std::uint64_t h) { return double(h >> 11) * 0x1p-53 - 0.5; }  // [-0.5, 0.5), exact

struct system_def {
  i64 n;
  std::uint64_t ka, kb;
  system_def(i64 n_, std::uint64_t seed) : n(n_), ka(splitmix(seed * 2)), kb(splitmix(seed * 2 + 1)) {}
  double a(i64 i, i64 j) const { return uniform_half(splitmix(ka ^ std::uint64_t(i * n + j))); }
  double b(i64 i) const { return uniform_half(splitmix(kb ^ std::uint64_t(i))); }
  // Rows [r0, r0 + rows), all columns, column-major with leading dimension ld.
  void rows(i64 r0, i64 rows, double* dst, i64 ld) const {
    for (i64 j = 0; j < n; ++j)
      for (i64 i = 0; i < rows; ++i) dst[j * ld + i] = a(r0 + i, j);
  }
};

// The rows this rank owns for stripe height s (stripe J on rank J % P),
// generated once; serves the row_source, and the residuals.
struct owned_rows {
  struct block {
    i64 r0, rows;
    std::vector<double> data;  // rows x n, column-major, ld = rows
  };
  std::vector<block> blocks;
  i64 generated_on_demand = 0;  // rows that the row_source had to generate

  owned_rows(const system_def& sys, i64 s, int rank, int ranks) {
    for (i64 J = rank; J * s < sys.n; J += ranks) {
      block b{J * s, std::min(s, sys.n - J * s), {}};
      b.data.resize(std::size_t(b.rows * sys.n));
      sys.rows(b.r0, b.rows, b.data.data(), b.rows);
      blocks.push_back(std::move(b));
    }
  }
  void fill(const system_def& sys, i64 r0, i64 rows, double* dst, i64 ld) {
    for (const block& b : blocks)
      if (r0 >= b.r0 && r0 + rows <= b.r0 + b.rows) {
        for (i64 j = 0; j < sys.n; ++j)
          std::memcpy(dst + j * ld, b.data.data() + j * b.rows + (r0 - b.r0), std::size_t(rows) * 8);
        return;
      }
    generated_on_demand += rows;
    sys.rows(r0, rows, dst, ld);
  }
};

// Normwise backward error of x (replicated) for the whole system: each rank
// takes the rows it holds in `own`; r_i = b_i - sum_j a_ij x_j exactly, rounded
// once; ||A||_inf from correctly rounded row sums of |a_ij|.
double backward_error(MPI_Comm comm, const system_def& sys, const owned_rows& own,
                      const std::vector<double>& x) {
  double loc[2] = {0, 0};  // max |r_i|, max row asum
  for (const auto& b : own.blocks)
    for (i64 i = 0; i < b.rows; ++i) {
      const double* row = b.data.data() + i;
      exala::superaccumulator acc;
      exala::dot_into(acc, sys.n, row, b.rows, x.data(), 1);
      acc.add(-sys.b(b.r0 + i));
      loc[0] = std::max(loc[0], std::fabs(acc.round()));
      loc[1] = std::max(loc[1], exala::asum(sys.n, row, b.rows));
    }
  double glob[2];
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, comm);
  double xn = 0, bn = 0;
  for (i64 i = 0; i < sys.n; ++i) {
    xn = std::max(xn, std::fabs(x[std::size_t(i)]));
    bn = std::max(bn, std::fabs(sys.b(i)));
  }
  return glob[0] / (glob[1] * xn + bn);
}

std::uint64_t fnv1a(const std::vector<double>& v) {
  std::uint64_t h = 0xcbf29ce484222325u;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * 8; ++i) h = (h ^ p[i]) * 0x100000001b3u;
  return h;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 8) == 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size();
  if (m == 0) return 0;
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

double gflops(i64 n, double s) { return s > 0 ? 2.0 / 3.0 * double(n) * double(n) * double(n) / s * 1e-9 : 0; }

double seconds_since(clk::time_point t0) { return std::chrono::duration<double>(clk::now() - t0).count(); }

double max_over_ranks(MPI_Comm comm, double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

// ------------------------------------------------------------ ScaLAPACK

struct scalapack {
  int ctxt = -1, pr = 1, pc = 1, myr = 0, myc = 0, nb = 128, n = 0;
  int mloc = 0, nloc = 0, lld = 1;
  int desca[9]{}, descb[9]{};
  std::vector<double> a0, a, b0, b;
  std::vector<int> ipiv;

  scalapack(const system_def& sys, const args& ar) : nb(ar.nb), n(int(sys.n)) {
    int me = 0, np = 0;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", ar.grid_r, ar.grid_c);
    Cblacs_gridinfo(ctxt, &pr, &pc, &myr, &myc);
    const int zero = 0, one = 1;
    mloc = numroc_(&n, &nb, &myr, &zero, &pr);
    nloc = numroc_(&n, &nb, &myc, &zero, &pc);
    lld = std::max(1, mloc);
    int info = 0;
    descinit_(desca, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    if (info != 0) throw exala::error("descinit_ (A) failed: info = " + std::to_string(info));
    descinit_(descb, &n, &one, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    if (info != 0) throw exala::error("descinit_ (b) failed: info = " + std::to_string(info));
    a0.resize(std::size_t(lld) * std::size_t(std::max(nloc, 1)));
    for (int lj = 0; lj < nloc; ++lj) {
      const i64 gj = i64((lj / nb) * pc + myc) * nb + lj % nb;
      for (int li = 0; li < mloc; ++li) {
        const i64 gi = i64((li / nb) * pr + myr) * nb + li % nb;
        a0[std::size_t(lj) * std::size_t(lld) + std::size_t(li)] = sys.a(gi, gj);
      }
    }
    b0.assign(std::size_t(lld), 0.0);
    if (myc == 0)
      for (int li = 0; li < mloc; ++li) b0[std::size_t(li)] = sys.b(i64((li / nb) * pr + myr) * nb + li % nb);
    ipiv.resize(std::size_t(mloc + nb));
  }
  ~scalapack() {
    if (ctxt >= 0) Cblacs_gridexit(ctxt);
  }
  scalapack(const scalapack&) = delete;
  scalapack& operator=(const scalapack&) = delete;

  void reset() {
    a = a0;
    b = b0;
  }
  // Returns info (0: solved).
  int solve() {
    const int one = 1;
    int info = 0;
    pdgesv_(&n, &one, a.data(), &one, &one, desca, ipiv.data(), b.data(), &one, &one, descb, &info);
    return info;
  }
  // The solution, replicated on every rank (each entry held by one rank of
  // process column 0; the others add exact zeros).
  std::vector<double> gather_x(MPI_Comm comm) const {
    std::vector<double> part(std::size_t(n), 0.0), x(std::size_t(n), 0.0);
    if (myc == 0)
      for (int li = 0; li < mloc; ++li) part[std::size_t(i64((li / nb) * pr + myr) * nb + li % nb)] = b[std::size_t(li)];
    MPI_Allreduce(part.data(), x.data(), n, MPI_DOUBLE, MPI_SUM, comm);
    return x;
  }
};

// ------------------------------------------------------------ the run

struct series {
  std::vector<double> t;
  double be = 0;
  int steps = -1;
  std::uint64_t hash = 0;
};

int run(const args& ar) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const system_def sys(ar.n, ar.seed);
  const i64 n = ar.n;

  exala::stripe_lu_options opt;
  opt.stripe = ar.stripe;
  opt.substripe = ar.substripe;
  opt.threads = ar.threads;
  opt.engine = "cpu";
  opt.pivot = exala::pivoting::local;

  // The library's default stripe height in memory
  // (exala::default_stripe_height); the first factorization tells the
  // truth, and the rows are made again if it differs.
  i64 s_guess = ar.stripe > 0 ? ar.stripe : exala::default_stripe_height(n);
  auto own = std::make_unique<owned_rows>(sys, s_guess, rank, ranks);
  std::vector<double> bvec(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) bvec[std::size_t(i)] = sys.b(i);

  std::unique_ptr<scalapack> sl;
  if (ar.pdgesv) sl = std::make_unique<scalapack>(sys, ar);

  series ours, ours_ref, inplace, inplace_ref, base;
  std::vector<double> fact_s;
  double lib_be[2] = {0, 0};  // the solver's own refine_report figures (last repetition)
  std::vector<double> x_ours, x_ref, x_base;
  i64 s_used = 0, sp_used = 0;
  bool bits_stable = true;
  std::string ours_config;

  const exala::mpi::row_source source = [&](i64 r0, i64 rows, double* dst, i64 ld) {
    own->fill(sys, r0, rows, dst, ld);
  };
  // One repetition of ours: the copying constructor, or (in_place) the
  // rank's stripes filled before the clock starts and factored where they are.
  auto run_ours = [&](int rep, bool in_place) {
    std::optional<exala::mpi::local_stripes> a;
    if (in_place) {  // the caller's matrix: untimed, as pdgesv's
      a.emplace(comm, n, opt);
      a->fill(source);
    }
    openblas_set_num_threads(ar.threads);
    MPI_Barrier(comm);
    const auto t0 = clk::now();
    const exala::mpi::stripe_lu lu =
        in_place ? exala::mpi::stripe_lu(comm, std::move(*a), opt) : exala::mpi::stripe_lu(comm, n, source, opt);
    const double t_factor = seconds_since(t0);
    std::vector<double> x = bvec;
    lu.solve(1, x.data(), n);
    const double t_solve = seconds_since(t0);
    std::vector<double> xr(static_cast<std::size_t>(n));
    MPI_Barrier(comm);
    const auto t1 = clk::now();
    const exala::refine_report rr = in_place
                                        ? lu.solve_refined(1, bvec.data(), n, xr.data(), n, source, ar.max_refine)
                                        : lu.solve_refined(1, bvec.data(), n, xr.data(), n, ar.max_refine);
    const double t_ref = seconds_since(t1);
    if (ar.verbose)
      std::fprintf(stderr,
                   "exala-bench-mpi-lu: rank %d rep %d: %sconstructor %.4f s (report().factor_seconds %.4f s), "
                   "solve %.4f s, solve_refined %.4f s\n",
                   rank, rep, in_place ? "in place: " : "", t_factor, lu.report().factor_seconds,
                   t_solve - t_factor, t_ref);
    (in_place ? inplace : ours).t.push_back(max_over_ranks(comm, t_solve));
    series& refined = in_place ? inplace_ref : ours_ref;
    refined.t.push_back(max_over_ranks(comm, t_factor + t_ref));
    refined.steps = rr.steps;
    if (in_place) {  // the copying constructor's bits (its repetition 0 ran first)
      if (!same_bits(x, x_ours) || !same_bits(xr, x_ref)) bits_stable = false;
      return;
    }
    fact_s.push_back(lu.report().factor_seconds);
    lib_be[0] = rr.backward_error_before;
    lib_be[1] = rr.backward_error_after;
    if (rep > 0 && (!same_bits(x, x_ours) || !same_bits(xr, x_ref))) bits_stable = false;
    x_ours = std::move(x);
    x_ref = std::move(xr);
    s_used = lu.stripe_height();
    sp_used = lu.report().substripe;
    ours_config = "S=" + std::to_string(s_used) + " S'=" + std::to_string(sp_used) + " local pivoting";
  };
  auto run_base = [&]() {
    sl->reset();
    openblas_set_num_threads(ar.threads);
    MPI_Barrier(comm);
    const auto t0 = clk::now();
    const int info = sl->solve();
    const double t = seconds_since(t0);
    int worst = info == 0 ? 0 : 1;
    int any = 0;
    MPI_Allreduce(&worst, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) throw exala::error("pdgesv_ failed: info = " + std::to_string(info) + " on rank " + std::to_string(rank));
    base.t.push_back(max_over_ranks(comm, t));
    std::vector<double> x = sl->gather_x(comm);
    if (!x_base.empty() && !same_bits(x, x_base)) bits_stable = false;
    x_base = std::move(x);
  };

  for (int r = 0; r < ar.reps; ++r) {
    if (r % 2 == 0) {
      if (ar.ours) run_ours(r, false);
      if (ar.ours) run_ours(r, true);
      if (ar.pdgesv) run_base();
    } else {
      if (ar.pdgesv) run_base();
      if (ar.ours) run_ours(r, true);
      if (ar.ours) run_ours(r, false);
    }
    if (ar.ours && r == 0 && s_used != s_guess) {  // the rows again, for the real height
      s_guess = s_used;
      own = std::make_unique<owned_rows>(sys, s_guess, rank, ranks);
    }
  }
  if (own->generated_on_demand > 0 && rank == 0)
    std::fprintf(stderr, "exala-bench-mpi-lu: warning: %lld rows were generated inside the timing\n",
                 (long long)own->generated_on_demand);

  // The solutions are replicated: every rank must hold the same bits.
  for (const auto* v : {&x_ours, &x_ref, &x_base}) {
    const std::uint64_t h = v->empty() ? 0 : fnv1a(*v);
    std::uint64_t lo = 0, hi = 0;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
    if (lo != hi) bits_stable = false;
  }
  int stable = bits_stable ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &stable, 1, MPI_INT, MPI_MIN, comm);
  int status = 0;
  if (!stable) {
    if (rank == 0) std::fprintf(stderr, "exala-bench-mpi-lu: a solver gave other bits on another repetition or another rank\n");
    status = 1;
  }
  if (ar.ours) {
    ours.be = backward_error(comm, sys, *own, x_ours);
    ours_ref.be = backward_error(comm, sys, *own, x_ref);
    ours.hash = fnv1a(x_ours);
    ours_ref.hash = fnv1a(x_ref);
  }
  if (ar.pdgesv) {
    base.be = backward_error(comm, sys, *own, x_base);
    base.hash = fnv1a(x_base);
  }

  if (ar.check) {  // the single-process stripe LU on rank 0
    int ok = 1;
    if (rank == 0) {
      std::vector<double> a(std::size_t(n * n));
      sys.rows(0, n, a.data(), n);
      exala::stripe_lu_options o1 = opt;
      o1.stripe = s_used;
      o1.substripe = sp_used;
      exala::stripe_lu lu1(n, a.data(), n, o1);
      std::vector<double> x = bvec, xr(static_cast<std::size_t>(n));
      lu1.solve(1, x.data(), n);
      lu1.solve_refined(1, bvec.data(), n, xr.data(), n, ar.max_refine);
      ok = same_bits(x, x_ours) && same_bits(xr, x_ref);
      std::fprintf(stderr, "exala-bench-mpi-lu: check against exala::stripe_lu (one process, %s): %s\n",
                   ours_config.c_str(), ok ? "same bits (unrefined and refined)" : "DIFFERENT BITS");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) status = 1;
  }

  if (rank == 0) {
    const double mb = ar.pdgesv ? median(base.t) : 0, gb = gflops(n, mb);
    std::printf("ranks,n,solver,config,threads,reps,median_s,min_s,max_s,gflops,gflops_ratio,"
                "backward_error,refine_steps,x_hash\n");
    auto row = [&](const char* name, const std::string& config, const series& s) {
      const double m = median(s.t), g = gflops(n, m);
      const auto [lo, hi] = std::minmax_element(s.t.begin(), s.t.end());
      std::printf("%d,%lld,%s,%s,%d,%d,%.4f,%.4f,%.4f,%.2f,%.3f,%.3e,%d,%016llx\n", ranks, (long long)n, name,
                  config.c_str(), ar.threads, ar.reps, m, *lo, *hi, g, gb > 0 ? g / gb : 0.0, s.be,
                  s.steps, (unsigned long long)s.hash);
    };
    if (ar.ours) {
      series fact;
      fact.t = fact_s;
      fact.be = ours.be;
      fact.hash = ours.hash;
      row("ours-factor", ours_config + " (factorization loop only)", fact);
      row("ours", ours_config, ours);
      row("ours-refined", ours_config + " max_refine=" + std::to_string(ar.max_refine), ours_ref);
      inplace.be = ours.be, inplace.hash = ours.hash;  // (the same bits: checked above)
      inplace_ref.be = ours_ref.be, inplace_ref.hash = ours_ref.hash;
      row("ours-in-place", ours_config + " in place", inplace);
      row("ours-in-place-refined", ours_config + " in place max_refine=" + std::to_string(ar.max_refine),
          inplace_ref);
    }
    if (ar.pdgesv)
      row("pdgesv", "grid " + std::to_string(ar.grid_r) + "x" + std::to_string(ar.grid_c) + " nb " +
                        std::to_string(ar.nb),
          base);
    std::fflush(stdout);
    if (ar.ours)
      std::fprintf(stderr, "exala-bench-mpi-lu: solve_refined's own backward errors: %.3e before, %.3e after\n",
                   lib_be[0], lib_be[1]);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 0;
  try {
    status = run(parse(argc, argv, ranks));  // every rank parses the same arguments
  } catch (const usage_error& e) {
    if (rank == 0) std::fprintf(stderr, "exala-bench-mpi-lu: %s\n", e.what());
    status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exala-bench-mpi-lu: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);  // the other ranks may be inside a collective
  }
  MPI_Finalize();
  return status;
}
