// mpi/src/blas.cpp - distributed gemv (row and column blocks) and the
// block-row cyclic trsv (contract in exala/mpi.hpp).
//
// Every result entry is rounded once from an exact value that does not
// depend on where its terms were added: the local parts of the sums go into
// superaccumulators (exact), partial accumulators travel serialized and are
// merged exactly (superaccumulator_op), and the final rounding is the one of
// the single-process routine (exala::round_axpby for gemv, exala::round_div /
// round for trsv). So the bits are those of exala::gemv / exala::trsv on the
// whole matrix, for any rank count, distribution, block size and backend.
//
// Sign of an exact zero: the result's sign then comes from the term flags
// (has_term and the zero signs of the terms). The SIMD kernels may leave
// those incomplete, so a partial accumulator that leaves its rank has its
// flags completed first (a scan of its products that stops at the first
// nonzero one); accumulators that stay on one rank are completed only when
// the result is zero, as the single-process routines do.
//
// Argument checking, on every rank, in three steps before any data moves:
// 1. agree on the rank-local checks (sizes, pointers, strides, exec) - the
//    rank whose argument is bad throws exala::invalid_argument naming it,
//    the others exala::mpi::remote_error;
// 2. one MPI_Allgather of the global arguments (and of a hash of the
//    replicated vector, so that a vector that is not the same everywhere is
//    reported instead of giving different results on different ranks);
// 3. agree on their consistency with rank 0 (and on the workspace
//    allocations and the SIMD kernel choice, which may throw).
// After that nothing throws (a singular trsv diagonal is found with one more
// MPI_Allreduce and thrown on every rank).
//
// Local backends: `reference` adds products one by one; every other backend
// uses the SIMD dot kernel of the active kernel set on the calling thread
// (exala_mpi is not built with OpenMP, so omp runs like simd here, and
// opencl runs the host SIMD path in gemv_col_block and trsv_block_cyclic;
// gemv_row_block passes `local` to exala::gemv unchanged). Bits never
// depend on the choice.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/detail/exec.hpp"
#include "exala/exact_ops.hpp"
#include "exala/mpi.hpp"

namespace exala::mpi {

using i64 = std::int64_t;

// ------------------------------------------------------------ block_cyclic

std::int64_t block_cyclic::local_rows(int rank) const {
  if (nb <= 0) throw invalid_argument("nb", "must be > 0, got " + std::to_string(nb));
  if (ranks <= 0) throw invalid_argument("ranks", "must be > 0, got " + std::to_string(ranks));
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  if (rank < 0 || rank >= ranks)
    throw invalid_argument("rank", "must be in [0, " + std::to_string(ranks) + "), got " +
                                       std::to_string(rank));
  const i64 nblk = blocks();
  if (nblk <= rank) return 0;
  const i64 mine = (nblk - rank + ranks - 1) / ranks;  // blocks rank, rank+P, ...
  const i64 last = rank + (mine - 1) * ranks;
  const i64 last_rows = last == nblk - 1 ? n - last * nb : nb;
  return (mine - 1) * nb + last_rows;
}

std::int64_t block_cyclic::global_row(int rank, std::int64_t i) const {
  const i64 rows = local_rows(rank);  // checks nb, ranks, n, rank
  if (i < 0 || i >= rows)
    throw invalid_argument("i", "must be in [0, " + std::to_string(rows) + ") on rank " +
                                    std::to_string(rank) + ", got " + std::to_string(i));
  const i64 q = i / nb;  // the rank's q-th block is block rank + q*P
  return (rank + q * ranks) * nb + i % nb;
}

namespace {

constexpr std::size_t acc_bytes = superaccumulator::serialized_size;

// ------------------------------------------------------------ argument checks

void check_nonneg(const char* name, i64 v) {
  if (v < 0) throw invalid_argument(name, "must be >= 0, got " + std::to_string(v));
}
void check_ptr(const char* name, const void* p, i64 count) {
  if (count > 0 && p == nullptr)
    throw invalid_argument(name, "is a null pointer with " + std::to_string(count) + " elements");
}
void check_ld(const char* name, i64 ld, i64 min_rows) {
  const i64 need = std::max<i64>(1, min_rows);
  if (ld < need)
    throw invalid_argument(name, "must be >= " + std::to_string(need) + ", got " + std::to_string(ld));
}
void check_written_inc(const char* name, i64 inc, i64 n) {
  if (inc == 0 && n > 1)
    throw invalid_argument(name, "is 0 for a written vector of " + std::to_string(n) + " elements");
}
using exala::detail::check_exec;  // threads, block, backend compiled in

// BLAS vector indexing: logical element i of a vector of n elements.
i64 vec_index(i64 i, i64 n, i64 inc) { return inc >= 0 ? i * inc : (n - 1 - i) * -inc; }

std::vector<double> gather(const double* x, i64 n, i64 inc) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) v[std::size_t(i)] = x[vec_index(i, n, inc)];
  return v;
}

i64 bits_of(double v) { return std::bit_cast<i64>(v); }

// A hash of the bits of a vector's n logical elements (splitmix64 chain):
// tells whether a vector said to be replicated is the same on every rank.
i64 hash_vector(const double* x, i64 n, i64 inc) {
  std::uint64_t h = 0x9e3779b97f4a7c15u ^ static_cast<std::uint64_t>(n);
  for (i64 i = 0; i < n; ++i) {
    h += std::bit_cast<std::uint64_t>(x[vec_index(i, n, inc)]) + 0x9e3779b97f4a7c15u;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    h ^= h >> 31;
  }
  return static_cast<i64>(h);
}

// The global arguments of every rank: `mine` (the same count on every rank)
// gathered into a ranks x count table.
struct arg_table {
  std::vector<i64> v;
  std::size_t count = 0;
  int ranks = 0;
  i64 at(int rank, std::size_t field) const { return v[std::size_t(rank) * count + field]; }
};

arg_table gather_args(MPI_Comm comm, const std::vector<i64>& mine) {
  arg_table t;
  t.count = mine.size();
  t.ranks = detail::size_of(comm);
  t.v.resize(t.count * std::size_t(t.ranks));
  if (MPI_Allgather(mine.data(), int(t.count), MPI_INT64_T, t.v.data(), int(t.count), MPI_INT64_T,
                    comm) != MPI_SUCCESS)
    throw error("exala: mpi: MPI_Allgather of the arguments failed");
  return t;
}

// Throws invalid_argument(name) on this rank when its value of `field`
// differs from rank 0's (`show` formats a value for the message).
template <class Show>
void check_same(const arg_table& t, int rank, std::size_t field, const char* name, Show show) {
  const i64 here = t.at(rank, field), there = t.at(0, field);
  if (here != there)
    throw invalid_argument(name, "must be the same on every rank: " + show(here) + " here on rank " +
                                     std::to_string(rank) + ", " + show(there) + " on rank 0");
}
std::string show_int(i64 v) { return std::to_string(v); }
std::string show_double(i64 v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", std::bit_cast<double>(v));
  return buf;
}
// A double field: NaNs compare equal whatever their payloads.
i64 double_field(double v) { return std::isnan(v) ? bits_of(std::numeric_limits<double>::quiet_NaN()) : bits_of(v); }

// The replicated vector's hash (field h, present when field has != 0) must
// be the same as on the lowest rank that has one.
void check_same_vector(const arg_table& t, int rank, std::size_t has, std::size_t h,
                       const char* name, const char* what) {
  if (t.at(rank, has) == 0) return;
  for (int r = 0; r < t.ranks; ++r)
    if (t.at(r, has) != 0) {
      if (t.at(r, h) != t.at(rank, h))
        throw invalid_argument(name, std::string("differs between ranks (") + what +
                                         " must be replicated): its elements on rank " +
                                         std::to_string(rank) + " are not those on rank " +
                                         std::to_string(r));
      return;
    }
}

// ------------------------------------------------------------ exact products

// add_products packs groups of pack_group rows x pack_chunk columns.
constexpr i64 pack_group = 16, pack_chunk = 2048;

// Sizes add_products' packing buffer for rows of up to `len` columns, so
// that it never allocates (and so never throws on one rank alone) between
// collectives; called inside an agreement.
void reserve_packing(std::vector<double>& buf, i64 len) {
  const std::size_t need = std::size_t(pack_group * (std::min(pack_chunk, len) + 8));
  if (buf.size() < need) buf.resize(need);
}

// acc[k] += sum_{t < len} U(k, t) * v[t] exactly, for k < count, where
// U(k, t) = base[k*ks + t*ts]. Reference (or short rows): product by
// product, with complete term flags. Otherwise the SIMD dot kernel, straight
// on rows with ts == 1, on packed copies (groups of rows x chunks of
// columns) otherwise; the term flags may then be incomplete.
void add_products(superaccumulator* acc, i64 count, const double* base, i64 ks, i64 ts,
                  const double* v, i64 len, bool kernels, std::vector<double>& buf) {
  if (count <= 0 || len <= 0) return;
  if (!kernels || len < 24) {  // ~250 ns a kernel call, ~13 ns a product
    for (i64 k = 0; k < count; ++k) {
      const double* u = base + k * ks;
      for (i64 t = 0; t < len; ++t) acc[k].add_product(u[t * ts], v[t]);
    }
    return;
  }
  if (ts == 1) {
    for (i64 k = 0; k < count; ++k)
      exala::detail::dot_contiguous(acc[k], base + k * ks, v, static_cast<std::size_t>(len));
    return;
  }
  // Packed rows of `c` values, `ld` apart: ld is c plus one cache line, so
  // that the transposing writes of a group do not all fall into one L1 set
  // (a power-of-two stride would make them conflict).
  constexpr i64 group = pack_group, chunk = pack_chunk;
  const i64 ld = std::min(chunk, len) + 8;
  if (buf.size() < std::size_t(group * ld)) buf.resize(std::size_t(group * ld));
  for (i64 k0 = 0; k0 < count; k0 += group) {
    const i64 g = std::min(group, count - k0);
    for (i64 t0 = 0; t0 < len; t0 += chunk) {
      const i64 c = std::min(chunk, len - t0);
      if (ks == 1) {  // read along k (contiguous), write transposed
        for (i64 t = 0; t < c; ++t) {
          const double* col = base + k0 + (t0 + t) * ts;
          for (i64 k = 0; k < g; ++k) buf[std::size_t(k * ld + t)] = col[k];
        }
      } else {
        for (i64 k = 0; k < g; ++k) {
          const double* row = base + (k0 + k) * ks + t0 * ts;
          for (i64 t = 0; t < c; ++t) buf[std::size_t(k * ld + t)] = row[t * ts];
        }
      }
      for (i64 k = 0; k < g; ++k)
        exala::detail::dot_contiguous(acc[k0 + k], buf.data() + k * ld, v + t0, static_cast<std::size_t>(c));
    }
  }
}

// The term flags of the products u[t*ts] * v[t], t < len: both zero-sign
// flags at the first nonzero product, else the signs of the zero products
// (the superaccumulator's add_product rule).
std::uint32_t product_flags(const double* u, i64 ts, const double* v, i64 len) {
  std::uint32_t f = 0;
  for (i64 t = 0; t < len; ++t) {
    const double a = u[t * ts], b = v[t];
    if (a != 0.0 && b != 0.0)
      return superaccumulator::flag_not_negzero | superaccumulator::flag_not_poszero;
    f |= std::signbit(a) != std::signbit(b) ? superaccumulator::flag_not_poszero
                                            : superaccumulator::flag_not_negzero;
  }
  return f;
}

// Completes the term flags of acc[k] after add_products(..., kernels) over
// a nonempty range: has_term and the zero signs (the special-value flags are
// always set by the kernels).
void complete_flags(superaccumulator* acc, i64 count, const double* base, i64 ks, i64 ts,
                    const double* v, i64 len) {
  if (len <= 0) return;
  for (i64 k = 0; k < count; ++k)
    acc[k].or_flags(superaccumulator::flag_has_term | product_flags(base + k * ks, ts, v, len));
}

// ------------------------------------------------------------ transfers

void bcast_doubles(MPI_Comm comm, double* p, i64 count, int root) {
  constexpr i64 step = i64{1} << 27;  // bytes per call stay below INT_MAX
  for (i64 i = 0; i < count; i += step) {
    const i64 c = std::min(step, count - i);
    if (MPI_Bcast(p + i, int(c * 8), MPI_BYTE, root, comm) != MPI_SUCCESS)
      throw error("exala: mpi: MPI_Bcast of a solution block failed");
  }
}

// accs[k] := sum over ranks of accs[k], on `root` (MPI_Reduce with the
// exact op; the other ranks' accs are left as they were).
constexpr i64 reduce_step = 1024;  // accumulators per MPI_Reduce

void reduce_to(MPI_Comm comm, superaccumulator* accs, i64 count, int root, int rank,
               std::vector<std::byte>& send, std::vector<std::byte>& recv) {
  constexpr i64 step = reduce_step;
  const MPI_Datatype type = superaccumulator_type();
  const MPI_Op op = superaccumulator_op();
  for (i64 k0 = 0; k0 < count; k0 += step) {
    const i64 c = std::min(step, count - k0);
    send.resize(std::size_t(c) * acc_bytes);
    recv.resize(rank == root ? send.size() : 0);
    for (i64 k = 0; k < c; ++k)
      accs[k0 + k].serialize(std::span<std::byte, acc_bytes>(send.data() + k * acc_bytes, acc_bytes));
    if (MPI_Reduce(send.data(), rank == root ? recv.data() : nullptr, int(c), type, op, root, comm) !=
        MPI_SUCCESS)
      throw error("exala: mpi: MPI_Reduce of superaccumulators failed");
    if (rank == root)
      for (i64 k = 0; k < c; ++k)
        accs[k0 + k] = superaccumulator::deserialize({recv.data() + k * acc_bytes, acc_bytes});
  }
}

// ------------------------------------------------------------ gemv helpers

// round(beta * y) alone (an empty or alpha == 0 sum), beta == 0 not reading
// y: exala::gemv's convention.
double scale_only(double beta, double y, rounding mode) {
  if (beta == 0.0) return 0.0;
  superaccumulator t;
  t.add_product(beta, y);
  return t.round(mode);
}

// round(alpha * S + beta * y), beta == 0 not reading y (exala::gemv).
double finish_entry(double alpha, const superaccumulator& s, double beta, double y, rounding mode) {
  if (beta == 0.0) return round_axpby(alpha, s, 0.0, 0.0, mode);
  return round_axpby(alpha, s, beta, y, mode);
}

}  // namespace

// ------------------------------------------------------------ gemv_row_block

// Correctly rounded: each y_i = round(alpha * sum_j A_ij x_j + beta * y_i)
// from its exact value (exala::gemv on this rank's rows), the same bits as
// exala::gemv on the whole matrix for any row split.
void gemv_row_block(MPI_Comm comm, layout lay, std::int64_t m_local, std::int64_t n, double alpha,
                    const double* a, std::int64_t lda, const double* x, std::int64_t incx,
                    double beta, double* y, std::int64_t incy, const exec& local) {
  const int rank = detail::rank_of(comm);
  const bool reads_x = alpha != 0.0 && m_local > 0 && n > 0;
  detail::agree(
      comm,
      [&] {
        check_nonneg("m_local", m_local);
        check_nonneg("n", n);
        check_ld("lda", lda, lay == layout::row_major ? n : m_local);
        check_exec(local);
        if (reads_x) {
          check_ptr("a", a, m_local * n);
          check_ptr("x", x, n);
        }
        check_ptr("y", y, m_local);
        check_written_inc("incy", incy, m_local);
      },
      {detail::same_operation(detail::operation::gemv_row_block)});
  enum : std::size_t { f_m, f_n, f_alpha, f_beta, f_lay, f_mode, f_has_x, f_x, f_count };
  std::vector<i64> mine(f_count);
  mine[f_m] = m_local;
  mine[f_n] = n;
  mine[f_alpha] = double_field(alpha);
  mine[f_beta] = double_field(beta);
  mine[f_lay] = i64(lay);
  mine[f_mode] = i64(local.mode);
  mine[f_has_x] = reads_x;
  mine[f_x] = reads_x ? hash_vector(x, n, incx) : 0;
  const arg_table t = gather_args(comm, mine);
  detail::agree(comm, [&] {
    check_same(t, rank, f_n, "n", show_int);
    check_same(t, rank, f_alpha, "alpha", show_double);
    check_same(t, rank, f_beta, "beta", show_double);
    check_same(t, rank, f_lay, "lay", show_int);
    check_same(t, rank, f_mode, "mode", detail::show_rounding);
    i64 m = 0;  // the blocks tile [0, m): offsets are the prefix sums
    for (int r = 0; r < t.ranks; ++r) {
      if (t.at(r, f_m) > std::numeric_limits<i64>::max() - m)
        throw invalid_argument("m_local", "sums to more than 2^63 - 1 rows over the ranks");
      m += t.at(r, f_m);
    }
    if (alpha != 0.0 && n > 0 && m > 0) check_same_vector(t, rank, f_has_x, f_x, "x", "x");
    if (local.backend != backend::reference) active_kernel_set();
  });
  // The local rows are exactly rows of the whole product: exala::gemv on
  // them gives the whole gemv's bits. Anything it still throws is shared.
  detail::agree(comm, [&] {
    gemv(lay, transpose::none, m_local, n, alpha, a, lda, x, incx, beta, y, incy, local);
  });
}

// ------------------------------------------------------------ gemv_col_block

// Correctly rounded: each y_i = round(alpha * S_i + beta * y_i) of the exact
// S_i = sum_j A_ij x_j, whose column parts are summed exactly per rank and
// merged exactly across ranks: the bits of exala::gemv on the whole matrix.
// Workspace: one superaccumulator (~1.1 kB) per row of a chunk of
// exec.block rows (default 1024; one allreduce per chunk), plus the
// serialization buffers of the allreduce.
void gemv_col_block(MPI_Comm comm, layout lay, std::int64_t m, std::int64_t n_local, double alpha,
                    const double* a, std::int64_t lda, const double* x, std::int64_t incx,
                    double beta, double* y, std::int64_t incy, const exec& local) {
  const int rank = detail::rank_of(comm);
  const bool reads_local = alpha != 0.0 && m > 0 && n_local > 0;
  detail::agree(
      comm,
      [&] {
        check_nonneg("m", m);
        check_nonneg("n_local", n_local);
        check_ld("lda", lda, lay == layout::row_major ? n_local : m);
        check_exec(local);
        if (reads_local) {
          check_ptr("a", a, m * n_local);
          check_ptr("x", x, n_local);
        }
        check_ptr("y", y, m);
        check_written_inc("incy", incy, m);
      },
      {detail::same_operation(detail::operation::gemv_col_block)});
  // exec.block is global here: it sets the rows per allreduce, so ranks
  // with different values would pair different numbers of them.
  enum : std::size_t { f_m, f_n, f_alpha, f_beta, f_lay, f_mode, f_block, f_has_y, f_y, f_count };
  const bool reads_y = beta != 0.0 && m > 0;
  std::vector<i64> mine(f_count);
  mine[f_m] = m;
  mine[f_n] = n_local;
  mine[f_alpha] = double_field(alpha);
  mine[f_beta] = double_field(beta);
  mine[f_lay] = i64(lay);
  mine[f_mode] = i64(local.mode);
  mine[f_block] = i64(local.block);
  mine[f_has_y] = reads_y;
  mine[f_y] = reads_y ? hash_vector(y, m, incy) : 0;
  const arg_table t = gather_args(comm, mine);
  // Rows per allreduce: exec.block, or 1024 (results never depend on it).
  const i64 chunk = local.block > 0 ? i64(local.block) : 1024;
  std::vector<superaccumulator> acc;
  std::vector<double> xl, buf;
  std::vector<std::byte> work;
  i64 n = 0;
  detail::agree(comm, [&] {
    check_same(t, rank, f_m, "m", show_int);
    check_same(t, rank, f_alpha, "alpha", show_double);
    check_same(t, rank, f_beta, "beta", show_double);
    check_same(t, rank, f_lay, "lay", show_int);
    check_same(t, rank, f_mode, "mode", detail::show_rounding);
    check_same(t, rank, f_block, "block", show_int);
    check_same_vector(t, rank, f_has_y, f_y, "y", "y");
    for (int r = 0; r < t.ranks; ++r) {
      if (t.at(r, f_n) > std::numeric_limits<i64>::max() - n)
        throw invalid_argument("n_local", "sums to more than 2^63 - 1 columns over the ranks");
      n += t.at(r, f_n);
    }
    if (alpha != 0.0 && m > 0 && n > 0) {
      acc.resize(std::size_t(std::min(chunk, m)));
      detail::prepare_allreduce(comm, acc.size(), work);
      if (reads_local) xl = gather(x, n_local, incx);
      if (local.backend != backend::reference) {
        active_kernel_set();
        if (reads_local) reserve_packing(buf, n_local);
      }
    }
  });
  if (m == 0) return;
  if (alpha == 0.0 || n == 0) {  // A and x not read: y_i = round(beta * y_i)
    for (i64 i = 0; i < m; ++i) {
      double& yi = y[vec_index(i, m, incy)];
      yi = scale_only(beta, yi, local.mode);
    }
    return;
  }
  // Row i of the local columns: element (i, j) at a[i*rs + j*cs].
  const i64 rs = lay == layout::row_major ? lda : 1, cs = lay == layout::row_major ? 1 : lda;
  const bool kernels = local.backend != backend::reference;
  for (i64 i0 = 0; i0 < m; i0 += chunk) {
    const i64 rows = std::min(chunk, m - i0);
    for (i64 k = 0; k < rows; ++k) acc[std::size_t(k)].clear();
    if (reads_local) {
      add_products(acc.data(), rows, a + i0 * rs, rs, cs, xl.data(), n_local, kernels, buf);
      if (kernels) complete_flags(acc.data(), rows, a + i0 * rs, rs, cs, xl.data(), n_local);
    }
    detail::allreduce_agreed(comm, std::span(acc.data(), std::size_t(rows)), work);
    for (i64 k = 0; k < rows; ++k) {
      double& yi = y[vec_index(i0 + k, m, incy)];
      yi = finish_entry(alpha, acc[std::size_t(k)], beta, yi, local.mode);
    }
  }
}

// ------------------------------------------------------------ trsv_block_cyclic

// Correctly rounded: each x_i = round(N_i / op(A)_ii) (unit diagonal:
// round(N_i)) of the exact numerator N_i = b_i - sum_j op(A)_ij x_j, the
// same bits as exala::trsv on the whole matrix for any rank count and nb.
//
// trans == none: the owner of a block holds its rows whole, and the
// solution of the earlier blocks is replicated. When n exceeds the batch
// width (max(nb, exec.block), by default 2048 with P > 1 and n with P == 1)
// every rank keeps one accumulator per local row (~1.1 kB each) holding b_i
// and the products with the solutions known so far: as solution blocks
// arrive (MPI_Bcast from their owners) every rank adds them to its pending
// rows a batch of columns at a time, so the O(n^2) products are shared by
// the ranks. The owner of the next block brings that block up to date,
// solves it row by row and broadcasts it. Otherwise only the block being
// solved has accumulators (nb of them).
// trans == trans: x_i needs column i of A, spread over every rank. For each
// block in solve order, every rank adds the products of its already solved
// rows with that block's columns into one accumulator per row of the block
// (exec.block or 1024 rows at a time), the partial accumulators are merged
// exactly on the owner (MPI_Reduce), which adds b_i and the in-block
// products, solves and broadcasts.
void trsv_block_cyclic(MPI_Comm comm, layout lay, uplo ul, transpose trans, diag dg,
                       std::int64_t n, std::int64_t nb, const double* a, std::int64_t lda,
                       double* x, std::int64_t incx, const exec& local) {
  const int rank = detail::rank_of(comm), P = detail::size_of(comm);
  i64 L = 0;  // local rows
  detail::agree(
      comm,
      [&] {
        check_nonneg("n", n);
        if (nb <= 0) throw invalid_argument("nb", "must be > 0, got " + std::to_string(nb));
        L = block_cyclic{n, nb, P}.local_rows(rank);
        check_ld("lda", lda, lay == layout::row_major ? n : L);
        check_exec(local);
        check_ptr("x", x, n);
        check_written_inc("incx", incx, n);
        if (n > 0) check_ptr("a", a, L * n);
      },
      {detail::same_operation(detail::operation::trsv_block_cyclic)});
  // exec.block is global here: with trans it sets the rows per reduction,
  // so ranks with different values would pair different numbers of them.
  enum : std::size_t { f_n, f_nb, f_lay, f_ul, f_trans, f_dg, f_mode, f_block, f_has_x, f_x, f_count };
  std::vector<i64> mine(f_count);
  mine[f_n] = n;
  mine[f_nb] = nb;
  mine[f_lay] = i64(lay);
  mine[f_ul] = i64(ul);
  mine[f_trans] = i64(trans);
  mine[f_dg] = i64(dg);
  mine[f_mode] = i64(local.mode);
  mine[f_block] = i64(local.block);
  mine[f_has_x] = n > 0;
  mine[f_x] = n > 0 ? hash_vector(x, n, incx) : 0;
  const arg_table t = gather_args(comm, mine);

  const bool forward = (ul == uplo::lower) == (trans == transpose::none);
  const bool none = trans == transpose::none, unit = dg == diag::unit;
  const bool kernels = local.backend != backend::reference;
  const i64 rs = lay == layout::row_major ? lda : 1, cs = lay == layout::row_major ? 1 : lda;
  const i64 nblocks = n == 0 ? 0 : (n + nb - 1) / nb;
  // exec.block (results never depend on it) or a default: trans == none,
  // the columns per batched update of the pending rows (at least nb; by
  // default 2048, long enough for the kernels to run near full speed, and
  // no batches on one rank, where nobody else could share the work);
  // trans, the rows per reduction.
  const i64 batch = local.block > 0 ? std::max<i64>(i64(local.block), nb)
                                    : P == 1 ? std::max<i64>(n, 1) : std::max<i64>(2048, nb);
  const i64 reduce_rows = local.block > 0 ? i64(local.block) : 1024;
  // trans == none with batched updates keeps an accumulator per local row;
  // without (batch >= n), only the block being solved needs them.
  const bool eager = none && batch < n;
  std::vector<double> xs, xneg, xneg_local, buf;
  std::vector<superaccumulator> acc;
  std::vector<std::byte> send, recv;  // reduce_to's (trans)
  detail::agree(comm, [&] {
    check_same(t, rank, f_n, "n", show_int);
    check_same(t, rank, f_nb, "nb", show_int);
    check_same(t, rank, f_lay, "lay", show_int);
    check_same(t, rank, f_ul, "ul", show_int);
    check_same(t, rank, f_trans, "trans", show_int);
    check_same(t, rank, f_dg, "dg", show_int);
    check_same(t, rank, f_mode, "mode", detail::show_rounding);
    check_same(t, rank, f_block, "block", show_int);
    check_same_vector(t, rank, f_has_x, f_x, "x", "b");
    if (n == 0) return;
    xs = gather(x, n, incx);  // b, then the solution as it is found
    xneg.assign(std::size_t(n), 0.0);
    if (none) {
      acc.resize(std::size_t(eager ? L : std::min(nb, L)));
    } else {
      acc.resize(std::size_t(std::min(reduce_rows, nb)));
      xneg_local.assign(std::size_t(L), 0.0);
      if (P > 1) {  // reduce_to's staging buffers, for its largest step
        const std::size_t most = std::size_t(std::min(reduce_step, std::min(reduce_rows, nb))) * acc_bytes;
        send.reserve(most);
        recv.reserve(most);
        (void)superaccumulator_op();  // registers the op and the type (may throw)
      }
    }
    if (kernels) {
      active_kernel_set();
      reserve_packing(buf, n);
    }
  });
  if (n == 0) return;

  // Local row of global row g on its owner, and the diagonal of local row l.
  auto local_row = [&](i64 g) { return ((g / nb) / P) * nb + g % nb; };
  if (!unit) {  // the lowest zero diagonal over all ranks, as exala::trsv finds it
    i64 zero = n, lowest = n;
    for (i64 l = 0; l < L && zero == n; ++l) {
      const i64 g = ((rank + (l / nb) * P) * nb) + l % nb;
      if (a[l * rs + g * cs] == 0.0) zero = g;
    }
    if (P > 1) {
      if (MPI_Allreduce(&zero, &lowest, 1, MPI_INT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        throw error("exala: mpi: MPI_Allreduce of the singular rows failed");
    } else {
      lowest = zero;
    }
    if (lowest < n) throw singular_matrix("mpi::trsv_block_cyclic", lowest);
  }
  // My blocks with index < b, and with index <= b.
  auto mine_below = [&](i64 b) { return b > rank ? (b - rank + P - 1) / P : i64{0}; };
  auto mine_upto = [&](i64 b) { return b >= rank ? (b - rank) / P + 1 : i64{0}; };
  // x_i from its accumulator, the term flags of `rescan` completed first
  // when the quotient is zero (only then do they matter).
  auto solve_row = [&](superaccumulator& ai, double diag_value, auto rescan) {
    auto q = [&] { return unit ? ai.round(local.mode) : round_div(ai, diag_value, local.mode); };
    double xi = q();
    if (xi == 0.0) {
      rescan(ai);
      xi = q();
    }
    return xi;
  };

  if (none) {
    // op(A) row i = local row; element (l, j) at a[l*rs + j*cs]. The
    // accumulators start with b_i (all at once when eager, else per block).
    auto start = [&](superaccumulator* acc0, i64 l0, i64 count) {
      for (i64 l = l0; l < l0 + count; ++l) {
        const i64 g = ((rank + (l / nb) * P) * nb) + l % nb;
        acc0[l - l0].clear();
        acc0[l - l0].add_product(1.0, xs[std::size_t(g)]);
      }
    };
    if (eager) start(acc.data(), 0, L);
    // The columns in every pending local row: [0, applied) forward,
    // [applied, n) backward.
    i64 applied = forward ? 0 : n;
    for (i64 s = 0; s < nblocks; ++s) {
      const i64 b = forward ? s : nblocks - 1 - s;
      const i64 i0 = b * nb, i1 = std::min(n, i0 + nb), rows = i1 - i0;
      const int owner = int(b % P);
      if (owner == rank) {
        const i64 l0 = local_row(i0);
        superaccumulator* blk = eager ? acc.data() + l0 : acc.data();
        if (!eager) start(blk, l0, rows);
        // Bring the block's rows up to the known columns.
        const i64 c0 = forward ? applied : i1, c1 = forward ? i0 : applied;
        add_products(blk, rows, a + l0 * rs + c0 * cs, rs, cs, xneg.data() + c0, c1 - c0, kernels, buf);
        for (i64 r = 0; r < rows; ++r) {
          const i64 i = forward ? i0 + r : i1 - 1 - r, l = l0 + (i - i0);
          superaccumulator& ai = blk[i - i0];
          const i64 j0 = forward ? i0 : i + 1, j1 = forward ? i : i1;  // in-block, known
          add_products(&ai, 1, a + l * rs + j0 * cs, 0, cs, xneg.data() + j0, j1 - j0, kernels, buf);
          const i64 k0 = forward ? 0 : i + 1, k1 = forward ? i : n;  // every known column
          const double xi = solve_row(ai, a[l * rs + i * cs], [&](superaccumulator& s2) {
            s2.or_flags(product_flags(a + l * rs + k0 * cs, cs, xneg.data() + k0, k1 - k0));
          });
          xs[std::size_t(i)] = xi;
          xneg[std::size_t(i)] = -xi;
        }
      }
      if (P > 1) {
        bcast_doubles(comm, xs.data() + i0, rows, owner);
        for (i64 i = i0; i < i1; ++i) xneg[std::size_t(i)] = -xs[std::size_t(i)];
      }
      // Batched update of the pending rows (blocks after b in solve order).
      const i64 known = forward ? i1 : i0;
      if (eager && (forward ? known - applied : applied - known) >= batch) {
        const i64 p0 = forward ? mine_upto(b) * nb : 0;
        const i64 p1 = forward ? L : mine_below(b) * nb;
        const i64 c0 = forward ? applied : known, c1 = forward ? known : applied;
        add_products(acc.data() + p0, p1 - p0, a + p0 * rs + c0 * cs, rs, cs, xneg.data() + c0,
                     c1 - c0, kernels, buf);
        applied = known;
      }
    }
  } else {
    // op(A)_ij = A_ji: row j of A is local row local_row(j) on its owner;
    // element (l, i) at a[l*rs + i*cs].
    for (i64 s = 0; s < nblocks; ++s) {
      const i64 b = forward ? s : nblocks - 1 - s;
      const i64 i0 = b * nb, i1 = std::min(n, i0 + nb);
      const int owner = int(b % P);
      // My solved local rows: forward the blocks before b, backward after.
      const i64 s0 = forward ? 0 : mine_upto(b) * nb, s1 = forward ? mine_below(b) * nb : L;
      const i64 lb0 = owner == rank ? local_row(i0) : 0;
      // Sub-blocks of at most reduce_rows rows, in solve order.
      for (i64 q = 0; q < i1 - i0; q += reduce_rows) {
        const i64 c = std::min(reduce_rows, i1 - i0 - q);
        const i64 r0 = forward ? i0 + q : i1 - q - c;  // rows [r0, r0 + c)
        for (i64 k = 0; k < c; ++k) acc[std::size_t(k)].clear();
        const double* base = a + s0 * rs + r0 * cs;
        add_products(acc.data(), c, base, cs, rs, xneg_local.data() + s0, s1 - s0, kernels, buf);
        if (P > 1) {
          if (kernels) complete_flags(acc.data(), c, base, cs, rs, xneg_local.data() + s0, s1 - s0);
          reduce_to(comm, acc.data(), c, owner, rank, send, recv);
        }
        if (owner != rank) continue;
        for (i64 r = 0; r < c; ++r) {
          const i64 i = forward ? r0 + r : r0 + c - 1 - r;
          superaccumulator& ai = acc[std::size_t(i - r0)];
          ai.add_product(1.0, xs[std::size_t(i)]);
          // In-block known rows j of A: forward [i0, i), backward (i, i1).
          const i64 j0 = forward ? i0 : i + 1, j1 = forward ? i : i1;
          const double* col = a + (lb0 + (j0 - i0)) * rs + i * cs;
          add_products(&ai, 1, col, 0, rs, xneg.data() + j0, j1 - j0, kernels, buf);
          const i64 k0 = forward ? 0 : i + 1, k1 = forward ? i : n;  // every known row
          const double xi = solve_row(ai, a[(lb0 + (i - i0)) * rs + i * cs], [&](superaccumulator& s2) {
            // P == 1: the panel's flags were not completed either.
            const i64 from = P > 1 ? j0 : k0, to = P > 1 ? j1 : k1;
            std::uint32_t f = 0;
            for (i64 j = from; j < to; ++j)
              f |= product_flags(a + local_row(j) * rs + i * cs, 0, xneg.data() + j, 1);
            s2.or_flags(f);
          });
          xs[std::size_t(i)] = xi;
          xneg[std::size_t(i)] = -xi;
        }
      }
      if (P > 1) {
        bcast_doubles(comm, xs.data() + i0, i1 - i0, owner);
        for (i64 i = i0; i < i1; ++i) xneg[std::size_t(i)] = -xs[std::size_t(i)];
      }
      if (owner == rank)
        for (i64 i = i0; i < i1; ++i) xneg_local[std::size_t(lb0 + (i - i0))] = xneg[std::size_t(i)];
    }
  }
  for (i64 i = 0; i < n; ++i) x[vec_index(i, n, incx)] = xs[std::size_t(i)];
}

}  // namespace exala::mpi
