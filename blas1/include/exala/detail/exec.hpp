// exala/detail/exec.hpp - the checks of an exec and the one rule that turns
// it into a thread count, shared by every layer, the C API and the CLI (each
// used to write its own, with its own copy of max_threads).
#pragma once

#include <string>

#include "exala/backend.hpp"

namespace exala::detail {

// Throws exala::invalid_argument naming `arg` unless 0 <= threads <=
// max_threads ("must be in [0, 1024], got ...").
void check_threads(long long threads, const std::string& arg = "threads");

// The threads a routine may use under `ex`: ex.threads (0: OpenMP's default,
// omp_get_max_threads()) for backend::omp in a build with OpenMP, else 1.
// Callers cap it further by the work they have; the result bits never depend
// on it.
int threads_of(const exec& ex) noexcept;

// The checks of the blocked level-2/3 routines: threads (check_threads),
// block >= 0, and the backend compiled in (else exala::not_compiled_in).
void check_exec(const exec& ex);

}  // namespace exala::detail
