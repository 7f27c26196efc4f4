// exala/stripe_lu.hpp - the stripe LU: an out-of-core dense solver.
//
// Gauss elimination by stripes of rows, after M. Carcenac ("From tile
// algorithm to stripe algorithm: a CUBLAS-based parallel implementation on
// GPUs of Gauss method for the resolution of extremely large dense linear
// systems stored on an array of solid state devices", J. Supercomputing 2014):
// the matrix lives as stripe files on one or more disks (the disk tier), a
// byte-budgeted host cache holds the stripes in use (the host tier), and a
// dense_engine does the arithmetic: "cpu" over the system BLAS, or "cuda"
// (exala/cuda.hpp: cuBLAS/cuSOLVER, the current pivot group in device
// memory, the later stripes streamed through it; the solve phase and the
// refinement stay on the CPU). Pivot stripes are factored by substripes of S' rows with local
// partial pivoting (pivot search within the substripe, as in the seed) or,
// in core, with ordinary partial pivoting; the L and U factors are kept, so
// further right-hand sides need no refactoring.
//
// Guarantees:
// - Reproducible: the factors and the solution depend only on the matrix,
//   the right-hand sides, (S, S', pivoting) and the engine (its BLAS and the
//   kernels that BLAS picks for the CPU - OpenBLAS gives other bits on an
//   AVX-512 CPU than on an AVX2 one - or the GPU model and CUDA library
//   versions) - never on
//   the thread count, the cache size, the traversal order, the meta-stripe
//   count, the number of I/O threads, or on a run having been killed and
//   resumed (tests check bit equality across all of these). The unrefined
//   solution of several right-hand sides solved together may also depend on
//   their number and on a column's position among them (the BLAS's trsm and
//   gemm kernels treat column blocks differently); solve one column per
//   call where column-independent bits matter.
// - Refinement (refine = true): each residual r = b - A x is computed exactly
//   and rounded once per entry (exala::gemv, A streamed from the original
//   stripes), then x += (LU)^-1 r; it stops when the normwise backward error
//   ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) stops decreasing or
//   reaches u, a correction no longer changes x (or is not finite), or after
//   max_refine steps. The report gives the backward error before and after
//   and the steps; converged is true only if the final backward error is at
//   most 2u, whichever rule stopped it (a refinement that stalls above that,
//   e.g. with factors that do not belong to A, is not converged).
// - Safe: a killed run (kill -9 at any moment) resumes with the same bits:
//   finished pivot groups are never recomputed, and the other stripes restart
//   from their last write-back (eviction, or the checkpoint every
//   checkpoint_interval_s), so a kill loses at most that much sweep work and
//   the current group. The solve/refine passes are not checkpointed.
//   I/O failures, full disks, truncated or corrupted files throw
//   exala::storage_error naming the stripe and the file, and keep the
//   previous state; a zero or numerically singular pivot throws
//   exala::singular_pivot naming the column.
// - Range: any finite A and b whose solution is a finite double give it
//   (not NaN or inf from an overflow on the way), as LAPACK's equilibration
//   would, by power-of-two scalings that cannot change a bit of ordinary data:
//   * the matrix: when max |a_ij| lies outside [2^-511, 2^511], the stripes
//     are factored as A' = 2^-k A with k = ilogb(max |a_ij|) (so max |a'_ij|
//     is in [1, 2)), scaled where the original stripes enter the
//     factorization (in core, out of core, on every engine and in the
//     distributed driver); k is a function of max |a_ij| alone (computed in
//     core, the manifest's out of core), so a resumed run, the solves and
//     every rank agree on it. The default pivot threshold n u max |a'_ij|
//     (and a given one, times 2^-k) scales with it; report().matrix_scale
//     is k. The factors of A' are exactly 2^-k times those of A wherever the
//     unscaled factorization does not over- or underflow, so such matrices
//     keep their bits up to the factor 2^-k; entries below 2^(k-1022) are
//     rounded to subnormals (relatively below 2^-1022: normwise negligible);
//   * each right-hand side (every solve, of b and of the refinement's
//     residuals): a column whose largest magnitude m lies outside [2^-511,
//     2^511] is scaled by 2^-t, t = ilogb(m), before the triangular solves,
//     and the result by 2^(t-k) after them (one rounding per entry, which
//     only matters where x itself is subnormal); a column in the range and
//     k = 0 keeps exactly the bits it always had;
//   * a solution that is still not finite (it exceeds the double range, or
//     the solve overflowed on the way) throws exala::solution_overflow;
//     NaN or inf in b gives NaN or inf in x as IEEE arithmetic does;
//   * backward errors are computed scaled (by exponents) where a norm or a
//     product of norms would over- or underflow: never NaN or inf for finite
//     data, never 0 for a nonzero residual.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exala/error.hpp"

namespace exala {

// A stripe file that cannot be read or written, is truncated, or fails its
// checksum; or a work directory that is not what the call needs.
// stripe() is -1 when the problem is not with one stripe.
class storage_error : public error {
 public:
  storage_error(std::int64_t stripe, const std::string& path, const std::string& what)
      : error("exala: " + (stripe >= 0 ? "stripe " + std::to_string(stripe) + ": " : std::string()) +
              (path.empty() ? std::string() : "file '" + path + "': ") + what),
        stripe_(stripe),
        path_(path) {}
  std::int64_t stripe() const noexcept { return stripe_; }
  const std::string& path() const noexcept { return path_; }

 private:
  std::int64_t stripe_;
  std::string path_;
};

// A pivot that is exactly zero, not finite, or not above the threshold.
class singular_pivot : public error {
 public:
  singular_pivot(std::int64_t column, double value, double threshold, const std::string& why)
      : error("exala: stripe LU: " + why + " pivot at column " + std::to_string(column) +
              " (0-based): |u| = " + number(value) +
              (threshold > 0 && why != "non-finite" ? " <= threshold " + number(threshold)
                                                     : std::string()) +
              (why == "non-finite"
                   ? " (the elimination overflowed: element growth beyond the double range; "
                     "try pivoting::partial in core or a larger substripe)"
                   : " (the matrix is numerically singular, or local pivoting met a tiny pivot: "
                     "try pivoting::partial in core or a larger substripe)")),
        column_(column),
        value_(value) {}
  std::int64_t column() const noexcept { return column_; }
  double value() const noexcept { return value_; }

 private:
  static std::string number(double v) {
    char t[32];
    std::snprintf(t, sizeof t, "%.6g", v);
    return t;
  }
  std::int64_t column_;
  double value_;
};

// Finite right-hand sides whose solution is not finite: the solution of
// column() (0-based) exceeds the double range at row() (0-based), or an
// intermediate of its triangular solves does, even with A and b scaled by
// powers of two (see "Range" above). A result known to be wrong is never
// returned as NaN or inf.
class solution_overflow : public error {
 public:
  solution_overflow(std::int64_t column, std::int64_t row, double max_b, double max_a)
      : error("exala: stripe LU: the solution of right-hand side " + std::to_string(column) +
              " (0-based) is not finite at row " + std::to_string(row) +
              " (0-based): it exceeds the double range, or an intermediate of the triangular "
              "solves does, even with A and b scaled by powers of two (max |b| = " +
              number(max_b) + ", max |a_ij| = " + number(max_a) +
              "); the system's solution is not representable, or the matrix is too "
              "ill-conditioned"),
        column_(column),
        row_(row) {}
  std::int64_t column() const noexcept { return column_; }
  std::int64_t row() const noexcept { return row_; }

 private:
  static std::string number(double v) {
    char t[32];
    std::snprintf(t, sizeof t, "%.6g", v);
    return t;
  }
  std::int64_t column_, row_;
};

enum class stripe_order { basic, zigzag, meta_zigzag };
enum class pivoting { local, partial };

// A snapshot for progress displays (called from the computing thread).
struct stripe_lu_progress {
  std::string phase;               // "factor", "solve", "refine"
  std::int64_t step = 0;           // pivot groups finished (factor) / passes (solve, refine)
  std::int64_t steps = 0;
  double fraction = 0;             // of the phase's flops (factor) or passes
  double elapsed_s = 0;            // since the phase began
  double eta_s = -1;               // < 0: unknown
  double gflops = 0;               // factor: this run's rate so far
  double io_read_mbs = 0;          // since the phase began
  double io_write_mbs = 0;
  std::int64_t cache_hits = 0;     // stripe requests served from memory
  std::int64_t cache_misses = 0;   // stripe loads from disk (on demand or prefetched)
};

struct stripe_lu_options {
  std::int64_t stripe = 0;         // S rows per stripe; 0: default_stripe_height(n), or less so
                                   // that the cache holds 8
  std::int64_t substripe = 0;      // S' rows; 0: min(S, 128)
  std::int64_t meta = 0;           // stripes per meta-stripe (meta_zigzag); 0: chosen
  stripe_order order = stripe_order::zigzag;
  pivoting pivot = pivoting::local;
  std::uint64_t cache_bytes = 0;   // host cache budget; 0: unlimited (everything cached)
  int threads = 0;                 // engine threads; 0: all
  int io_threads = 2;
  bool sync = false;               // fsync before every rename (power-loss safety)
  bool drop_page_cache = false;    // keep stripe files out of the OS page cache (reads bypass it
                                   // with O_DIRECT where the file system allows; written files
                                   // are dropped after I/O)
  bool resume = true;              // continue a matching partial run in the work directory
  double pivot_threshold = -1;     // < 0: n * u * max|a_ij|; 0: exact zeros only
  // Out of core: at most every this many seconds (at a pivot-group boundary)
  // the stripes modified in the cache are written behind, which bounds the
  // work a killed run loses; 0: after every group.
  double checkpoint_interval_s = 30;
  // "cpu" (the system BLAS), or "cuda" (cuBLAS/cuSOLVER: needs a build with
  // CUDA and a program linking exala::gpu_cuda, see exala/cuda.hpp).
  std::string engine = "cpu";
  // Progress reports; an exception from it ends the factorization or the
  // refinement and reaches the caller (exala::mpi::stripe_lu: on every rank,
  // see exala/mpi.hpp), and it is not called again.
  std::function<void(const stripe_lu_progress&)> on_progress;
  double progress_interval_s = 0.5;
};

struct stripe_lu_report {
  std::int64_t n = 0, stripe = 0, substripe = 0, meta = 1;
  std::string order, pivot, engine;
  bool in_core = false;
  bool resumed = false;              // the factorization continued a partial run
  std::int64_t groups_resumed = 0;   // pivot groups found finished on disk
  double factor_seconds = 0;
  double factor_gflops = 0;          // (2/3 n^3 - the resumed part) / factor_seconds
  std::int64_t bytes_read = 0, bytes_written = 0;
  std::int64_t cache_hits = 0;       // stripe requests served from memory
  std::int64_t cache_misses = 0;     // stripe loads from disk (on demand or prefetched)
  std::uint64_t peak_cache_bytes = 0;
  double min_pivot_ratio = 0;        // min |u_jj| / max|a_ij| (both of the factored, scaled A')
  int matrix_scale = 0;              // k: A was factored as 2^-k A (0: as given; see "Range")
  double io_wait_seconds = 0;        // compute thread waiting for stripes or lu_ writes
  double pin_seconds = 0;            // in core on a device engine: pinning host memory (not in factor_seconds)
  std::string device;                // the device of a device engine ("" for cpu)
  // Lookahead: pivot stripes factored while the previous step's sweep still
  // runs: 1 in memory on the CPU engine (stripe J + 1 during the sweep of J);
  // out of core with more than one rank, the members of each pivot group
  // factored during the previous group's sweep (as many as the cache leaves
  // room for, up to meta); 0 otherwise.
  std::int64_t lookahead = 0;
};

struct refine_report {
  int steps = 0;                      // corrections applied
  bool converged = false;             // only if backward_error_after <= 2u (see "Refinement")
  double backward_error_before = 0;   // max over right-hand sides, unrefined x
  double backward_error_after = 0;    // max over right-hand sides, returned x
  double seconds = 0;
};

class stripe_lu {
 public:
  // In core: factors the n x n column-major matrix a (lda); a is copied
  // twice (the factors, and A for refinement and backward errors).
  stripe_lu(std::int64_t n, const double* a, std::int64_t lda, const stripe_lu_options& opt = {});
  // In core, in place (as LAPACK's dgetrf): factors a where it is, with the
  // same checks, factors and bits as the constructor above (the bits do not
  // depend on lda). No copy of A is made or kept: a holds the factors
  // afterwards and must outlive the object (its solves read them), and
  // solve_refined / backward_error need A again - the overloads with a0,
  // lda0, a copy the caller kept, checked against a checksum of A taken
  // before the factorization (invalid_argument naming a0 if it differs).
  // A bad argument or a non-finite entry throws before a is written; a
  // singular pivot throws with a partly factored (as dgetrf leaves it).
  static stripe_lu in_place(std::int64_t n, double* a, std::int64_t lda,
                            const stripe_lu_options& opt = {});
  // Out of core: factors the system stored in the work directory set (dirs[0]
  // holds the manifest; see `exala generate` / `exala import`), resuming a
  // partial run with the same parameters when opt.resume.
  stripe_lu(const std::vector<std::string>& workdirs, const stripe_lu_options& opt = {});
  ~stripe_lu();
  stripe_lu(stripe_lu&&) noexcept;
  stripe_lu& operator=(stripe_lu&&) noexcept;

  std::int64_t n() const noexcept;
  const stripe_lu_report& report() const noexcept;

  // x := A^-1 b for nrhs right-hand sides (n x nrhs, ldb), with the factors.
  void solve(std::int64_t nrhs, double* b, std::int64_t ldb) const;
  // x := solution of A x = b refined against the exact residual (A read from
  // the in-core copy or streamed from the original stripes). x (n x nrhs,
  // ldx) may alias nothing else. max_refine in 0..100.
  refine_report solve_refined(std::int64_t nrhs, const double* b, std::int64_t ldb, double* x,
                              std::int64_t ldx, int max_refine = 10) const;
  // For an object made by in_place: A from the caller's copy a0 (n x n,
  // lda0). Other objects refuse a0 (invalid_argument), in_place objects the
  // overloads without it.
  refine_report solve_refined(std::int64_t nrhs, const double* b, std::int64_t ldb, double* x,
                              std::int64_t ldx, const double* a0, std::int64_t lda0,
                              int max_refine = 10) const;
  // The work directory's right-hand sides solved (and refined when
  // max_refine > 0); out-of-core objects only. x is n x nrhs (ld = n).
  refine_report solve_stored(std::vector<double>& x, int max_refine) const;

  // Normwise backward error of x for A x = b (exact residual, max over
  // columns), computed scaled: never 0 for a nonzero residual, +inf for an x
  // with an infinite entry, NaN for NaN in x or b.
  double backward_error(std::int64_t nrhs, const double* b, std::int64_t ldb, const double* x,
                        std::int64_t ldx) const;
  double backward_error(std::int64_t nrhs, const double* b, std::int64_t ldb, const double* x,
                        std::int64_t ldx, const double* a0, std::int64_t lda0) const;

 private:
  struct impl;
  explicit stripe_lu(std::unique_ptr<impl> p);
  std::unique_ptr<impl> p_;
};

// Writes a system into a new work directory set, stripe by stripe (the
// matrix never needs to fit in memory). Each stripe once, in any order; the
// manifest is written by finish(), so an interrupted writer leaves a set that
// open() rejects. ||A||_inf and max|a_ij| are computed from the stripes.
class stripe_system_writer {
 public:
  stripe_system_writer(const std::vector<std::string>& workdirs, std::int64_t n, std::int64_t nrhs,
                       std::int64_t stripe, bool overwrite = false);
  ~stripe_system_writer();
  std::int64_t stripes() const noexcept;
  std::int64_t stripe_rows(std::int64_t index) const;
  // Stripe `index`: rows [index*stripe, ...) x all n columns, column-major, ld.
  void write_stripe(std::int64_t index, const double* data, std::int64_t ld);
  void write_rhs(const double* b, std::int64_t ldb);      // n x nrhs
  void write_xtrue(const double* x, std::int64_t ldx);    // optional, n x nrhs
  void finish(const std::string& source);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

// Reads a stored system back (any rows, any order; checksums verified):
// for exports, checks and in-core comparisons.
class stripe_system_reader {
 public:
  explicit stripe_system_reader(const std::vector<std::string>& workdirs);
  ~stripe_system_reader();
  std::int64_t n() const noexcept;
  std::int64_t nrhs() const noexcept;
  std::int64_t stripe() const noexcept;   // rows per stored stripe file
  double norm_inf() const noexcept;       // ||A||_inf as stored (rounded upward)
  const std::string& source() const noexcept;
  // Rows [row0, row0 + rows) of A, all n columns, column-major into dst (ld >= rows).
  void read_rows(std::int64_t row0, std::int64_t rows, double* dst, std::int64_t ld) const;
  // Rows [row0, row0 + rows) x columns [col0, col0 + cols) of A, column-major
  // into dst (ld >= rows): a panel of columns without reading whole stripes
  // (the stripe files are checksummed by chunks).
  void read_block(std::int64_t row0, std::int64_t rows, std::int64_t col0, std::int64_t cols,
                  double* dst, std::int64_t ld) const;
  void read_rhs(double* b, std::int64_t ldb) const;     // n x nrhs
  bool read_xtrue(double* x, std::int64_t ldx) const;   // false: none stored
  // The solution stored by store_stripe_solution (n x nrhs); false: none
  // stored since the system was written.
  bool read_solution(double* x, std::int64_t ldx) const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

// Stores x (n x nrhs, ldx) as the solution of the system in the work
// directory set (the file solution.bin in workdirs[0], written to a
// temporary and renamed over the previous one, with the system's identity:
// storage_error on failure, the previous one kept). It stays until the
// next store_stripe_solution or until a new system replaces the set (its
// factorization may be redone meanwhile: the stored solution still solves
// the stored system). `exala solve --workdir` stores each solution it
// accepts; stripe_system_reader::read_solution and `exala export solution`
// read it back with the same bits.
void store_stripe_solution(const std::vector<std::string>& workdirs, const double* x,
                           std::int64_t ldx);

// A random test system written straight to stripes. cond == 0: entries
// uniform in [-0.5, 0.5] (the seed's matrices); cond >= 1: A = (I - 2uu^T)
// diag(sigma) (I - 2vv^T) with sigma geometric from 1 to 1/cond and random
// unit u, v (2-norm condition ~ cond). x_true has entries uniform in
// [-0.5, 0.5]; B = A x_true rounded once per entry (exact gemv). Entries are
// a function of (seed, i, j) only: the same system for any stripe height.
void generate_dense_system(const std::vector<std::string>& workdirs, std::int64_t n,
                           std::int64_t nrhs, std::uint64_t seed, std::int64_t stripe, double cond,
                           bool overwrite = false);

// The stripe height that stripe = 0 gives for order n (in core, or out of
// core with an unlimited cache; a cache budget may lower it): 1024 from
// n = 10240 on, below that about n / 10 in multiples of 128 and at least
// 512, and at most n. A function of n only, never of the rank count or the
// threads, so that the bits do not depend on them; about ten stripes give
// each of a few MPI ranks several stripes to eliminate while one factors.
std::int64_t default_stripe_height(std::int64_t n) noexcept;

std::string_view to_string(stripe_order o) noexcept;
std::string_view to_string(pivoting p) noexcept;
stripe_order parse_stripe_order(std::string_view s, const std::string& arg = "order");
pivoting parse_pivoting(std::string_view s, const std::string& arg = "pivot");

}  // namespace exala
