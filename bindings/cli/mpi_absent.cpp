// mpi_absent.cpp - `--backend mpi` in a build without MPI: the entry points
// of mpi_commands.hpp, each failing with exala::not_compiled_in (CMake
// compiles this file where exala::mpi is not built, mpi_commands.cpp where it
// is). The tool asks mpi_compiled_in() before it would start MPI, and
// rejects '--backend mpi' while it parses the command line, so that the
// others are never reached; they are here so that the tool links without
// MPI, its one guard being that choice of file.
#include "mpi_commands.hpp"

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "exala/error.hpp"

namespace exala::cli {

namespace {

[[noreturn]] void absent() { throw exala::not_compiled_in("backend 'mpi'"); }

}  // namespace

bool mpi_compiled_in() noexcept { return false; }

mpi_session::mpi_session(int*, char***) { absent(); }
mpi_session::~mpi_session() = default;
std::string mpi_session::settle(std::exception_ptr) { absent(); }

double mpi_reduce(mpi_session&, std::string_view, const std::vector<std::string>&,
                  const exala::exec&) {
  absent();
}
solution mpi_gemv(mpi_session&, const mpi_gemv_args&, const exala::exec&) { absent(); }
solution mpi_trsv(mpi_session&, const mpi_trsv_args&, const exala::exec&) { absent(); }
solution mpi_solve(mpi_session&, const stripe_request&) { absent(); }

}  // namespace exala::cli
