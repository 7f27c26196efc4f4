// mpi/src/common.cpp - agreement on errors and on global arguments across
// the ranks of a collective call, communicator queries, and the identity of
// an input file (exala/mpi.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "exala/mpi.hpp"
#include "stripe/store.hpp"

namespace exala::mpi::detail {

int rank_of(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw invalid_argument("comm", "is MPI_COMM_NULL");
  int r = 0;
  if (MPI_Comm_rank(comm, &r) != MPI_SUCCESS)
    throw invalid_argument("comm", "is not a valid communicator (MPI_Comm_rank failed)");
  return r;
}

int size_of(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw invalid_argument("comm", "is MPI_COMM_NULL");
  int p = 0;
  if (MPI_Comm_size(comm, &p) != MPI_SUCCESS)
    throw invalid_argument("comm", "is not a valid communicator (MPI_Comm_size failed)");
  return p;
}

namespace {

std::string operation_name(std::int64_t v) {
  switch (static_cast<operation>(v)) {
    case operation::none: return "no routine of exala/mpi.hpp";
    case operation::sum: return "exala::mpi::sum";
    case operation::asum: return "exala::mpi::asum";
    case operation::dot: return "exala::mpi::dot";
    case operation::nrm2: return "exala::mpi::nrm2";
    case operation::allreduce: return "exala::mpi::allreduce";
    case operation::gemv_row_block: return "exala::mpi::gemv_row_block";
    case operation::gemv_col_block: return "exala::mpi::gemv_col_block";
    case operation::trsv_block_cyclic: return "exala::mpi::trsv_block_cyclic";
    case operation::stripe_lu_in_memory: return "exala::mpi::stripe_lu (in memory)";
    case operation::stripe_lu_out_of_core: return "exala::mpi::stripe_lu (out of core)";
    case operation::stripe_lu_solve: return "exala::mpi::stripe_lu::solve";
    case operation::stripe_lu_solve_refined: return "exala::mpi::stripe_lu::solve_refined";
    case operation::stripe_lu_solve_stored: return "exala::mpi::stripe_lu::solve_stored";
    case operation::stripe_lu_backward_error: return "exala::mpi::stripe_lu::backward_error";
  }
  return "operation " + std::to_string(v);
}

// The lowest failing rank broadcasts its message; every rank then throws:
// `mine` (its own exception) where there is one, else remote_error.
[[noreturn]] void share_failure(MPI_Comm comm, int rank, int lowest, std::exception_ptr mine,
                                const std::string& message) {
  int len = rank == lowest ? int(std::min<std::size_t>(message.size(), INT_MAX / 2)) : 0;
  MPI_Bcast(&len, 1, MPI_INT, lowest, comm);
  std::string text(std::size_t(len), '\0');
  if (rank == lowest) text = message.substr(0, std::size_t(len));
  if (len > 0) MPI_Bcast(text.data(), len, MPI_CHAR, lowest, comm);
  if (mine) std::rethrow_exception(mine);
  throw remote_error(lowest, text);
}

}  // namespace

std::string show_rounding(std::int64_t mode) {
  switch (static_cast<rounding>(mode)) {
    case rounding::to_nearest_even: return "to_nearest_even";
    case rounding::toward_zero: return "toward_zero";
    case rounding::upward: return "upward";
    case rounding::downward: return "downward";
  }
  return "rounding " + std::to_string(mode);
}

same_value same_operation(operation op) {
  return {"operation", static_cast<std::int64_t>(op), &operation_name};
}

// Every rank runs its part; one MPI_Allreduce(MIN) of a fixed-size record
// finds the lowest failing rank (size when none failed) and, for each same
// value v, min(v) and min(~v) = ~max(v). Every rank sees the same record and
// so takes the same branch: on a failure the failing rank broadcasts its
// message; on a mismatch (min != max) one MPI_Allgather of that value finds
// the lowest rank that differs from rank 0, which then broadcasts its
// message in the same way.
void agree(MPI_Comm comm, const std::function<void()>& check,
           std::initializer_list<same_value> same) {
  const int rank = rank_of(comm), size = size_of(comm);
  if (same.size() > max_same_values)
    throw error("exala: mpi: internal: more than " + std::to_string(max_same_values) +
                " same values in one agreement");
  std::exception_ptr mine;
  std::string message;
  try {
    check();
  } catch (const std::exception& e) {
    mine = std::current_exception();
    message = e.what();
  } catch (...) {
    mine = std::current_exception();
    message = "an unknown exception";
  }
  // [failing rank, v_0, ~v_0, v_1, ~v_1, ...]; absent values are 0.
  constexpr std::size_t words = 1 + 2 * max_same_values;
  std::array<std::int64_t, words> in{}, out{};
  in[0] = mine ? rank : size;
  const same_value* values = same.begin();
  for (std::size_t f = 0; f < max_same_values; ++f) {
    const std::int64_t v = f < same.size() ? values[f].value : 0;
    in[1 + 2 * f] = v;
    in[2 + 2 * f] = ~v;
  }
  MPI_Allreduce(in.data(), out.data(), int(words), MPI_INT64_T, MPI_MIN, comm);
  const int lowest = int(out[0]);
  if (lowest < size) share_failure(comm, rank, lowest, mine, message);
  for (std::size_t f = 0; f < max_same_values; ++f) {
    if (out[1 + 2 * f] == ~out[2 + 2 * f]) continue;  // min == max
    const std::int64_t here = in[1 + 2 * f];
    std::vector<std::int64_t> all(static_cast<std::size_t>(size));
    MPI_Allgather(&here, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm);
    int q = 1;
    while (q < size && all[std::size_t(q)] == all[0]) ++q;  // exists: min != max
    std::exception_ptr bad;
    std::string text;
    if (rank == q) {
      const same_value none{"arguments", 0, nullptr};
      const same_value& s = f < same.size() ? values[f] : none;
      auto show = [&](std::int64_t v) { return s.show ? s.show(v) : std::to_string(v); };
      const invalid_argument e(s.name, "must be the same on every rank: " + show(here) +
                                           " here on rank " + std::to_string(rank) + ", " +
                                           show(all[0]) + " on rank 0");
      bad = std::make_exception_ptr(e);
      text = e.what();
    }
    share_failure(comm, rank, q, bad, text);
  }
}

// ------------------------------------------------------------ file identity

// Guarantee: two files get the same identity when their bytes are the same;
// files of different sizes never do, and files of one size that differ do
// with a probability of about 2^-64 (a 64-bit checksum).
file_identity identify_file(const std::string& path) {
  file_identity id;
  errno = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    id.reason = std::strerror(errno);
    return id;
  }
  constexpr std::size_t piece = std::size_t{1} << 20;
  std::vector<unsigned char> buf(piece);
  std::uint64_t h = 0x6578616c612d6d6dull;  // "exala-mm"
  std::uint64_t total = 0;
  std::size_t fill = 0;
  while (true) {
    const ssize_t got = ::read(fd, buf.data() + fill, piece - fill);
    if (got < 0) {
      if (errno == EINTR) continue;
      id.reason = std::strerror(errno);
      ::close(fd);
      return id;
    }
    fill += std::size_t(got);
    total += std::uint64_t(got);
    if (got == 0 || fill == piece) {  // a whole piece (or the last one)
      if (fill > 0) h = exala::detail::stripe::checksum64(buf.data(), fill, h);
      fill = 0;
      if (got == 0) break;
    }
  }
  ::close(fd);
  id.readable = true;
  id.bytes = total;
  id.checksum = h;
  return id;
}

}  // namespace exala::mpi::detail
