// Backend names, and the checks and thread count of an exec
// (exala/detail/exec.hpp). The kernel sets are chosen in
// blas1/kernels/kernel_set.cpp.
#include <string>

#ifdef EXALA_HAVE_OPENMP
#include <omp.h>
#endif

#include "exala/backend.hpp"
#include "exala/detail/exec.hpp"
#include "exala/error.hpp"

namespace exala {

std::string_view to_string(backend b) noexcept {
  switch (b) {
#define EXALA_CASE_(name, desc) \
  case backend::name:           \
    return #name;
    EXALA_BACKENDS(EXALA_CASE_)
#undef EXALA_CASE_
  }
  return "unknown";
}

backend parse_backend(std::string_view name, const std::string& arg) {
#define EXALA_PARSE_(n, desc) \
  if (name == #n) return backend::n;
  EXALA_BACKENDS(EXALA_PARSE_)
#undef EXALA_PARSE_
  std::string known;
#define EXALA_LIST_(n, desc)       \
  known += known.empty() ? "" : "|"; \
  known += #n;
  EXALA_BACKENDS(EXALA_LIST_)
#undef EXALA_LIST_
  throw invalid_argument(arg, "has unknown value '" + std::string(name) + "' (expected " + known + ")");
}

bool is_compiled_in(backend b) noexcept {
  switch (b) {
    case backend::reference:
    case backend::simd:
      return true;
    case backend::omp:
#ifdef EXALA_HAVE_OPENMP
      return true;
#else
      return false;
#endif
    case backend::opencl:
#ifdef EXALA_HAVE_OPENCL
      return true;
#else
      return false;
#endif
    case backend::cuda:
#ifdef EXALA_HAVE_CUDA
      return true;
#else
      return false;
#endif
  }
  return false;
}

namespace detail {

void check_threads(long long threads, const std::string& arg) {
  if (threads < 0 || threads > max_threads)
    throw invalid_argument(arg, "must be in [0, " + std::to_string(max_threads) + "], got " +
                                    std::to_string(threads));
}

int threads_of(const exec& ex) noexcept {
#ifdef EXALA_HAVE_OPENMP
  if (ex.backend == backend::omp) return ex.threads > 0 ? ex.threads : omp_get_max_threads();
#endif
  (void)ex;
  return 1;
}

void check_exec(const exec& ex) {
  check_threads(ex.threads);
  if (ex.block < 0) throw invalid_argument("block", "must be >= 0, got " + std::to_string(ex.block));
  if (!is_compiled_in(ex.backend))
    throw not_compiled_in("backend '" + std::string(to_string(ex.backend)) + "'");
}
}  // namespace detail

}  // namespace exala
