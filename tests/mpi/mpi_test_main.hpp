// mpi_test_main.hpp - Boost.Test with MPI: a global fixture initializes MPI
// before the first test case and finalizes it after the last; helpers that
// every MPI suite uses. Include once per test executable, after defining
// BOOST_TEST_MODULE.
//
// A collective call must be made by every rank in the same order, so test
// cases never BOOST_REQUIRE on a rank-local condition before a collective
// call (one rank would leave, the others would wait): they check, and use
// all_ranks() to combine a local verdict when it decides control flow.
#pragma once

#include <mpi.h>

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <random>
#include <vector>

namespace exala_mpi_test {

struct mpi_environment {
  mpi_environment() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
  }
  ~mpi_environment() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};

inline int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
// True on every rank when `ok` holds on every rank.
inline bool all_ranks(bool ok) {
  int v = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// Splits n items into size() contiguous blocks (rank order) of the given
// kind: 0 even, 1 uneven (rank r gets a share growing with r), 2 all on the
// last rank (the others empty), 3 all on rank 0, 4 random cut points drawn
// from `seed` (the same on every rank). Returns the block starts, size()+1
// entries.
inline std::vector<std::int64_t> split(std::int64_t n, int kind, std::uint64_t seed = 1) {
  const int p = size();
  std::vector<std::int64_t> cut(std::size_t(p) + 1, 0);
  cut[std::size_t(p)] = n;
  for (int r = 1; r < p; ++r) {
    std::int64_t c = 0;
    switch (kind) {
      case 0: c = n * r / p; break;
      case 1: c = n * (std::int64_t(r) * (r + 1) / 2) / (std::int64_t(p) * (p + 1) / 2); break;
      case 2: c = 0; break;
      case 3: c = n; break;
      default: {
        std::mt19937_64 g(seed * 7919 + std::uint64_t(r));
        c = n == 0 ? 0 : std::int64_t(g() % std::uint64_t(n + 1));
      }
    }
    cut[std::size_t(r)] = c;
  }
  if (kind >= 4)
    for (int r = 1; r <= p; ++r) cut[std::size_t(r)] = std::max(cut[std::size_t(r)], cut[std::size_t(r) - 1]);
  return cut;
}

}  // namespace exala_mpi_test

using exala_mpi_environment = exala_mpi_test::mpi_environment;
BOOST_TEST_GLOBAL_FIXTURE(exala_mpi_environment);
