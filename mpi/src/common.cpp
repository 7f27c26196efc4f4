// mpi/src/common.cpp - agreement on errors across the ranks of a collective
// call, and communicator queries (exala/mpi.hpp).
#include <climits>
#include <exception>
#include <string>

#include "exala/mpi.hpp"

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

// Every rank runs its part; one MPI_Allreduce(MIN) finds the lowest failing
// rank (size when none failed); that rank then broadcasts its message so the
// others can say what went wrong where.
void agree(MPI_Comm comm, const std::function<void()>& check) {
  const int rank = rank_of(comm), size = size_of(comm);
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
  int failing = mine ? rank : size, lowest = size;
  MPI_Allreduce(&failing, &lowest, 1, MPI_INT, MPI_MIN, comm);
  if (lowest == size) return;
  int len = rank == lowest ? int(std::min<std::size_t>(message.size(), INT_MAX / 2)) : 0;
  MPI_Bcast(&len, 1, MPI_INT, lowest, comm);
  std::string text(std::size_t(len), '\0');
  if (rank == lowest) text = message.substr(0, std::size_t(len));
  if (len > 0) MPI_Bcast(text.data(), len, MPI_CHAR, lowest, comm);
  if (mine) std::rethrow_exception(mine);
  throw remote_error(lowest, text);
}

}  // namespace exala::mpi::detail
