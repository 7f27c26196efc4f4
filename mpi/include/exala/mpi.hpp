// exala/mpi.hpp - the MPI layer: distributed exact reductions, gemv, trsv
// and the distributed stripe LU, bit-identical to the single-process results
// for any number of ranks and any distribution of the data.
//
// The layer sits over the others (DESIGN: "mpi: a layer over the others"):
// each rank does its local part with the single-process routines and any
// local backend (`local` below: reference, simd, omp, opencl), and the partial
// results travel as serialized superaccumulators, combined by a commutative
// MPI_Op that merges them exactly. An exact sum does not depend on the order
// of its terms, so neither the rank count, nor the distribution, nor the
// reduction tree MPI picks can change a bit. After Collange, Defour, Graillat,
// Iakymchuk, "Numerical reproducibility for the parallel reduction on
// multi- and many-core architectures" (ParCo 2015), whose ExBLAS reduces
// superaccumulators across nodes the same way.
//
// Conventions:
// - Every function here is collective over `comm`: all ranks call it, with
//   the same global arguments (sizes, options, op, alpha, ...). Local sizes
//   may differ between ranks and may be 0 (a rank that holds no data).
// - Bad input never hangs the other ranks: arguments are checked on every
//   rank, then the ranks agree (one small MPI_Allreduce) before any data
//   moves. The rank whose argument is wrong throws the usual
//   exala::invalid_argument naming it; the other ranks throw exala::mpi::remote_error
//   carrying that rank and its message. The global arguments are part of
//   that agreement, and so is the routine itself: a rank that passes
//   another value (a rounding mode, a block size that decides how many
//   messages are sent, ...) or calls another routine of this header is named
//   the same way, where it would otherwise hang or get another result. Errors found during the computation
//   (an I/O error on a rank's disk, an exception from the stripe LU's
//   progress callback, which may differ between ranks: a user cancelling the
//   run on one rank) are shared the same way at the next agreement point
//   or step; a singular pivot or a singular triangular matrix is
//   thrown on every rank as the single-process routine throws it
//   (exala::singular_pivot, exala::singular_matrix, with its column or row).
// - The communicator must have been created by an initialized MPI (the
//   caller owns MPI_Init/MPI_Finalize). Every MPI call is made from the
//   calling thread (MPI_THREAD_FUNNELED use; plain MPI_Init is enough with
//   Open MPI and MPICH): the routines' own threads (OpenMP, the stripe
//   LU's I/O threads, and the in-memory stripe LU's second thread, which
//   sweeps while the calling thread moves the lookahead broadcast) never
//   call MPI.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "exala/backend.hpp"
#include "exala/blas2.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "exala/superaccumulator.hpp"

namespace exala::mpi {

// Thrown on the ranks whose own arguments were fine when another rank of the
// same collective call failed: rank() is the lowest failing rank, and what()
// includes its message.
class remote_error : public error {
 public:
  remote_error(int rank, const std::string& message)
      : error("exala: mpi: rank " + std::to_string(rank) + " failed: " + message), rank_(rank) {}
  int rank() const noexcept { return rank_; }

 private:
  int rank_;
};

// ------------------------------------------------------------ reductions

// The MPI datatype of one serialized superaccumulator
// (superaccumulator::serialized_size bytes) and the commutative MPI_Op that
// merges such elements exactly (element-wise for count > 1). Created on first
// use and freed by an MPI_Finalize hook; usable in the caller's own
// MPI_Allreduce / MPI_Reduce / MPI_Reduce_scatter calls.
MPI_Datatype superaccumulator_type();
MPI_Op superaccumulator_op();

// acc := the exact sum of every rank's acc, on every rank (MPI_Allreduce).
void allreduce(MPI_Comm comm, superaccumulator& acc);
// Element-wise: accs[i] := sum over ranks of accs[i]; every rank passes the
// same count (agreed first: a rank with another count is named).
void allreduce(MPI_Comm comm, std::span<superaccumulator> accs);

// Correctly rounded sum, asum, dot and nrm2 of a vector distributed in any
// way over the ranks: each rank passes its local part (n_local elements, any
// n_local >= 0, strides as in exala/blas1.hpp). Every rank gets the result of
// the whole vector rounded once (local.mode), bit-identical to
// exala::sum/asum/dot/nrm2 of the concatenated vector with the reference
// backend. n_local and the increments are the rank's own (a negative one
// reverses the rank's part, as in BLAS); so are local.backend, threads and
// block, which choose how the rank accumulates its part. local.mode is
// global: a rank with another mode is named (it would round to another
// result).
double sum(MPI_Comm comm, std::int64_t n_local, const double* x, std::int64_t incx,
           const exec& local = {});
double asum(MPI_Comm comm, std::int64_t n_local, const double* x, std::int64_t incx,
            const exec& local = {});
double dot(MPI_Comm comm, std::int64_t n_local, const double* x, std::int64_t incx,
           const double* y, std::int64_t incy, const exec& local = {});
double nrm2(MPI_Comm comm, std::int64_t n_local, const double* x, std::int64_t incx,
            const exec& local = {});

// ------------------------------------------------------------ gemv, trsv
//
// Common to gemv_row_block, gemv_col_block and trsv_block_cyclic:
// - every rank passes the same global arguments as rank 0 (sizes, layout,
//   alpha, beta, uplo/trans/diag, nb, rounding), and a replicated vector (x of
//   the row-block gemv, y of the column-block gemv when beta != 0, b of trsv)
//   must have the same bits on every rank: it is hashed and compared, and a
//   rank that differs throws invalid_argument naming it;
// - exec.block sets the batch / chunk widths (results never depend on it);
//   in gemv_col_block and trsv_block_cyclic it also sets how many messages
//   are exchanged, so there it is a global argument too (compared as above);
// - the local backend: gemv_row_block hands `local` to exala::gemv; the other
//   two run the SIMD kernels on the calling thread for every backend but
//   reference (omp and opencl add no threads or devices there yet).
// A transposed gemv needs no routine of its own: A^T in row-major is A in
// column-major, so the row-block and column-block routines with the other
// layout cover it.

// y = alpha * A x + beta * y with A (m x n) distributed by blocks of rows:
// this rank holds rows [row_offset, row_offset + m_local) of A (m_local x n in
// `lay`, lda) and the same rows of y; x (n entries) is replicated. The row
// blocks of the ranks are contiguous in rank order (rank 0 first) and may be
// empty. Each y_i is rounded once from the exact value, the same bits as
// exala::gemv on the whole matrix. Collective (it checks the blocks tile 0..m).
void gemv_row_block(MPI_Comm comm, layout lay, std::int64_t m_local, std::int64_t n, double alpha,
                    const double* a, std::int64_t lda, const double* x, std::int64_t incx,
                    double beta, double* y, std::int64_t incy, const exec& local = {});

// y = alpha * A x + beta * y with A (m x n) distributed by blocks of columns:
// this rank holds columns [col_offset, col_offset + n_local) of A (m x n_local
// in `lay`, lda) and the same entries of x; y (m entries) is replicated on
// entry and on exit. Each rank accumulates its columns' exact partial sums
// per row, the superaccumulators (1104 bytes each, up to 1024 rows at a time)
// are combined with superaccumulator_op, and each y_i is rounded once: the
// same bits as exala::gemv on the whole matrix.
void gemv_col_block(MPI_Comm comm, layout lay, std::int64_t m, std::int64_t n_local, double alpha,
                    const double* a, std::int64_t lda, const double* x, std::int64_t incx,
                    double beta, double* y, std::int64_t incy, const exec& local = {});

// The rows of a block-row cyclic distribution: block b (rows [b*nb,
// min(n, (b+1)*nb))) lives on rank b % P, and a rank stores its blocks one
// after the other in increasing b (local row = (b / P) * nb + i).
struct block_cyclic {
  std::int64_t n = 0;   // global rows
  std::int64_t nb = 0;  // rows per block (> 0)
  int ranks = 1;
  // owner and blocks assume nb > 0 and ranks > 0 (local_rows and
  // global_row check them and throw invalid_argument).
  int owner(std::int64_t block) const { return int(block % ranks); }
  std::int64_t blocks() const { return n == 0 ? 0 : (n + nb - 1) / nb; }
  // Rows held by `rank` (the height of its local array).
  std::int64_t local_rows(int rank) const;
  // Global row of local row `i` on `rank`.
  std::int64_t global_row(int rank, std::int64_t i) const;
};

// Solves op(A) x = b for a triangular n x n A distributed by block-row cyclic
// blocks of nb rows (this rank: dist.local_rows(rank) x n in `lay`, lda; only
// the `ul` triangle is read, not the diagonal with diag::unit); x (n entries)
// holds b on entry and the solution on exit, on every rank. Each x_i is the
// correctly rounded quotient of its exact numerator, the same bits as
// exala::trsv on the whole matrix (exala/blas2.hpp), whatever the rank count
// and nb. An exact zero on the diagonal throws exala::singular_matrix naming
// the row on every rank.
void trsv_block_cyclic(MPI_Comm comm, layout lay, uplo ul, transpose trans, diag dg,
                       std::int64_t n, std::int64_t nb, const double* a, std::int64_t lda,
                       double* x, std::int64_t incx, const exec& local = {});

// ------------------------------------------------------------ stripe LU

// Fills rows [row0, row0 + rows) x all n columns of A, column-major into dst
// with leading dimension ld (>= rows).
using row_source = std::function<void(std::int64_t row0, std::int64_t rows, double* dst,
                                      std::int64_t ld)>;

// The stripe LU (exala/stripe_lu.hpp) with its stripes distributed cyclically
// over the ranks of comm: stripe J (rows [J*S, ...)) is owned by rank J % P,
// which keeps it in its own cache, on its own disk and works on it with its
// own engine. When pivot stripe J is factored, its owner broadcasts it (the
// factored rows, columns [J*S, n); local pivoting keeps the row interchanges
// inside the stripe, so only the owner needs them); every rank eliminates it from
// the later stripes it owns. In memory on the CPU engine this runs with
// lookahead: the owner of stripe J + 1 eliminates J from it and factors it
// first, and its broadcast travels while every rank sweeps J through its
// other stripes, with no barrier between steps. Out of core on the CPU engine
// the first members of each pivot group are factored the same way during the
// previous group's sweep, when the cache has room for them beside all of the
// rank's stripes (report().lookahead says how many). Each stripe therefore receives the same
// sequence of engine calls as in the single-process stripe LU, and the
// factors, the solution and the refined solution have the same bits as
// exala::stripe_lu with the same (S, S', pivoting, engine), for any rank count.
// The solve phase runs stripe by stripe on the owners (the partial solution
// broadcast as it grows), and refinement computes the exact residual with
// the distributed row-block gemv: each rank its own stripes' rows.
//
// Local pivoting only (global partial pivoting would need the whole matrix on
// one rank). Right-hand sides and solutions are replicated on every rank.
//
// Engines: "cpu", or "cuda" (a program linking exala::gpu_cuda): each rank
// makes its own device engine; one rank per GPU is the intended layout
// (CUDA_VISIBLE_DEVICES per rank), and every rank must report the same GPU
// model (cuBLAS/cuSOLVER bits depend on it). In memory on "cuda", pivot
// stripes go to the device in groups of up to `meta` (default max(1, N/(4P)));
// report().meta gives the size used. The "cuda" path has been checked here
// against a host-memory fake device only (no GPU was available); its bit
// equality with the single-process cuda run is tested by the `cuda`-labelled
// test_mpi_stripe_cuda, still to be run on a GPU.
class local_stripes;

class stripe_lu {
 public:
  // In memory: every rank calls `rows` for the stripes it owns only. The
  // rank keeps two copies of its stripes: the one it factors and A itself,
  // for refinement and backward errors.
  stripe_lu(MPI_Comm comm, std::int64_t n, const row_source& rows,
            const stripe_lu_options& opt = {});
  // In memory, in place: factors the stripes the caller filled in `a`
  // (local_stripes below) where they are, as ScaLAPACK's pdgesv factors the
  // caller's local matrix: no copy of A is made or kept, so solve_refined and
  // backward_error take A's rows again from a row_source. The same checks,
  // factors and bits as the constructor above with the same rows. `a` must
  // have been made for this comm's rank and size, n, and stripe height
  // (opt's); it is consumed (empty afterwards, also when the call throws:
  // a bad argument or entry before any stripe is written, a singular pivot
  // with the stripes partly factored).
  stripe_lu(MPI_Comm comm, local_stripes&& a, const stripe_lu_options& opt = {});
  // Out of core: `system` is a work directory set written by `exala generate`
  // or `exala import` (or stripe_system_writer), readable by every rank; each
  // rank reads only its stripes' rows from it. `rank_workdir` is this rank's
  // own directory (made if missing, one per rank, each on the rank's own
  // disk): it holds the rank's copy of its stripes and its factorization files,
  // and a killed run resumes from it (opt.resume) with the same bits.
  stripe_lu(MPI_Comm comm, const std::vector<std::string>& system,
            const std::string& rank_workdir, const stripe_lu_options& opt = {});
  ~stripe_lu();
  stripe_lu(stripe_lu&&) noexcept;
  stripe_lu& operator=(stripe_lu&&) noexcept;

  std::int64_t n() const noexcept;
  std::int64_t stripe_height() const noexcept;  // S
  int owner(std::int64_t stripe) const noexcept;
  // This rank's report; factor_seconds/gflops are of the whole factorization,
  // bytes and cache counts are this rank's.
  const stripe_lu_report& report() const noexcept;

  // Collective; b, x are n x nrhs, replicated (same values on every rank).
  void solve(std::int64_t nrhs, double* b, std::int64_t ldb) const;
  refine_report solve_refined(std::int64_t nrhs, const double* b, std::int64_t ldb, double* x,
                              std::int64_t ldx, int max_refine = 10) const;
  // For an object factored in place: A's rows from `a` (each rank is asked
  // for its own stripes, one at a time, and each stripe must have the bits
  // that were factored: a checksum taken before the factorization is
  // compared, and a mismatch throws invalid_argument naming `a`). Objects
  // that keep A refuse `a` (invalid_argument): call the overloads without it.
  // backward_error likewise.
  refine_report solve_refined(std::int64_t nrhs, const double* b, std::int64_t ldb, double* x,
                              std::int64_t ldx, const row_source& a, int max_refine = 10) const;
  // The stored system's right-hand sides (out-of-core objects): x (n x nrhs,
  // ld n) on every rank.
  refine_report solve_stored(std::vector<double>& x, int max_refine) const;
  double backward_error(std::int64_t nrhs, const double* b, std::int64_t ldb, const double* x,
                        std::int64_t ldx) const;
  double backward_error(std::int64_t nrhs, const double* b, std::int64_t ldb, const double* x,
                        std::int64_t ldx, const row_source& a) const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

// This rank's stripes of an n x n matrix, allocated (zero-filled) in the
// layout the distributed stripe LU works in, for its in-place constructor:
// the caller writes A into them and hands them over, and nothing is copied.
// Stripe J holds rows [J*S, J*S + rows) and all n columns, column-major with
// leading dimension rows; this rank owns J = rank, rank + P, ... (the k-th
// of them is stripe rank + k P). S is the in-memory constructor's height for
// (n, opt): opt.stripe, or default_stripe_height(n) when it is 0, at most n
// (only the rank and the size of comm enter the layout). Not
// collective. Throws invalid_argument for a bad n or option, std::bad_alloc
// when the stripes do not fit in memory.
class local_stripes {
 public:
  local_stripes(MPI_Comm comm, std::int64_t n, const stripe_lu_options& opt = {});
  ~local_stripes();
  local_stripes(local_stripes&&) noexcept;
  local_stripes& operator=(local_stripes&&) noexcept;

  std::int64_t n() const noexcept;
  std::int64_t stripe_height() const noexcept;  // S
  std::int64_t count() const noexcept;          // stripes this rank owns (0 once moved from)
  // Own stripe k (0 <= k < count(); otherwise std::out_of_range): its index
  // J, first row J*S, its rows, and its storage (rows(k) x n, ld rows(k)).
  std::int64_t index(std::int64_t k) const;
  std::int64_t first_row(std::int64_t k) const;
  std::int64_t rows(std::int64_t k) const;
  double* data(std::int64_t k);
  const double* data(std::int64_t k) const;
  // Fills every own stripe from `rows` (a row_source as above).
  void fill(const row_source& rows);

 private:
  friend class stripe_lu;
  struct impl;
  std::unique_ptr<impl> p_;
};

// ------------------------------------------------------------ helpers

namespace detail {
// A value that every rank of a collective call must pass alike (a global
// argument): `name` is the argument a mismatch names, `show` formats a
// value for the message (nullptr: the decimal value).
struct same_value {
  const char* name = nullptr;
  std::int64_t value = 0;
  std::string (*show)(std::int64_t) = nullptr;
};
// The collective calls of the layer: the first agreement of each passes its
// own as the same_value "operation", so that ranks that call different
// routines (a programming error) fail there instead of pairing unrelated
// collectives.
enum class operation : std::int64_t {
  none = 0,
  sum,
  asum,
  dot,
  nrm2,
  allreduce,
  gemv_row_block,
  gemv_col_block,
  trsv_block_cyclic,
  // stripe_lu's constructors and collective members (for its own
  // agreements: mpi/src/stripe_lu.cpp, stripe_ooc.cpp).
  stripe_lu_in_memory,
  stripe_lu_out_of_core,
  stripe_lu_solve,
  stripe_lu_solve_refined,
  stripe_lu_solve_stored,
  stripe_lu_backward_error,
};
same_value same_operation(operation op);
// A rounding mode (exala::rounding as an integer) for a message.
std::string show_rounding(std::int64_t mode);
// At most this many same_values an agreement.
constexpr std::size_t max_same_values = 4;

// Runs `check` (argument checks, or a local phase that may throw) on every
// rank, then agrees: if any rank threw, every rank throws - the failing ranks
// their own exception, the others remote_error with the lowest failing rank's
// message. Otherwise, if a value of `same` is not the same on every rank,
// the lowest rank whose value differs from rank 0's throws
// invalid_argument(name, "must be the same on every rank: ...") and the
// others remote_error carrying it. One MPI_Allreduce of a fixed size (so
// that every agreement of every routine matches every other) when nothing
// failed; a failure or mismatch costs one or two more small collectives.
void agree(MPI_Comm comm, const std::function<void()>& check,
           std::initializer_list<same_value> same = {});
// The rank and size of comm (throws exala::invalid_argument("comm") for
// MPI_COMM_NULL or a communicator MPI rejects).
int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);
// allreduce() in two steps, for routines that agree on the count in an
// agreement of their own: prepare_allreduce (may throw: call it inside that
// agreement) registers the MPI_Op and sizes `work` for up to `count`
// elements on comm; allreduce_agreed then reduces with no agreement, allocation or
// throw of its own on one rank only.
void prepare_allreduce(MPI_Comm comm, std::size_t count, std::vector<std::byte>& work);
void allreduce_agreed(MPI_Comm comm, std::span<superaccumulator> accs, std::vector<std::byte>& work);

// The identity of a file's bytes as this rank reads them, for agreeing that
// every rank sees the same input (the exala CLI's first agreement): its size
// and a 64-bit checksum of its contents (the stripe store's checksum64, the
// XXH64 construction, chained over 1 MiB pieces). A file that cannot be
// read gives readable == false and the reason, never an exception.
struct file_identity {
  bool readable = false;
  std::string reason;  // when !readable: the system's message
  std::uint64_t bytes = 0;
  std::uint64_t checksum = 0;
};
file_identity identify_file(const std::string& path);
}  // namespace detail

}  // namespace exala::mpi
