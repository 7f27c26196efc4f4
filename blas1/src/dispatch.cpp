// Backend names and the run-time choice of the SIMD kernel set (BLIS style:
// a table of kernel sets, the best one the CPU supports, an override).
#include <atomic>
#include <cstdlib>
#include <string>

#ifdef EXALA_HAVE_OPENMP
#include <omp.h>
#endif

#include "exala/backend.hpp"
#include "exala/detail/exec.hpp"
#include "exala/error.hpp"
#include "kernels.hpp"

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
#define EXALA_LIST_(n, desc) known += (known.empty() ? "" : "|") + std::string(#n);
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

std::string_view to_string(kernel_set k) noexcept {
  switch (k) {
    case kernel_set::scalar: return "scalar";
    case kernel_set::avx2: return "avx2";
    case kernel_set::avx512: return "avx512";
  }
  return "unknown";
}

namespace {

bool cpu_has(kernel_set k) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  switch (k) {
    case kernel_set::scalar: return true;
    case kernel_set::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case kernel_set::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  }
  return false;
#else
  return k == kernel_set::scalar;
#endif
}

const detail::kernel_table* table_of(kernel_set k) noexcept {
  switch (k) {
    case kernel_set::scalar: return detail::kernels_scalar();
    case kernel_set::avx2: return detail::kernels_avx2();
    case kernel_set::avx512: return detail::kernels_avx512();
  }
  return nullptr;
}

void check_usable(kernel_set k, const char* source) {
  if (table_of(k) == nullptr)
    throw not_compiled_in(std::string("the ") + std::string(to_string(k)) + " kernel set (" + source + ")");
  if (!cpu_has(k))
    throw error(std::string("exala: ") + source + " asks for the " + std::string(to_string(k)) +
                " kernel set, but this CPU does not support it");
}

kernel_set choose_from_environment() {
  const char* env = std::getenv("EXALA_SIMD");
  if (env != nullptr && *env != '\0' && std::string_view(env) != "auto") {
    const std::string_view v(env);
    kernel_set k;
    if (v == "avx512") k = kernel_set::avx512;
    else if (v == "avx2") k = kernel_set::avx2;
    else if (v == "scalar") k = kernel_set::scalar;
    else
      throw invalid_argument("EXALA_SIMD", "has unknown value '" + std::string(v) +
                                               "' (expected auto|avx512|avx2|scalar)");
    check_usable(k, "EXALA_SIMD");
    return k;
  }
  for (kernel_set k : {kernel_set::avx512, kernel_set::avx2})
    if (table_of(k) != nullptr && cpu_has(k)) return k;
  return kernel_set::scalar;
}

std::atomic<int> forced{-1};

kernel_set current() {
  const int f = forced.load(std::memory_order_acquire);
  if (f >= 0) return static_cast<kernel_set>(f);
  static const kernel_set chosen = choose_from_environment();  // once; throws on a bad override
  return chosen;
}

}  // namespace

kernel_set active_kernel_set() { return current(); }

void force_kernel_set(kernel_set k) {
  check_usable(k, "force_kernel_set");
  forced.store(static_cast<int>(k), std::memory_order_release);
}

namespace detail {
const kernel_table& active_kernels() { return *table_of(current()); }

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
