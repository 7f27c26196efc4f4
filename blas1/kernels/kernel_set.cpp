// The kernel-set tables (kernel_set.hpp) and the one run-time choice among
// them (BLIS style: the best set the CPU supports, from cpuid, once; the
// environment variable EXALA_SIMD or force_kernel_set override it).
#include <atomic>
#include <cstdlib>
#include <string>

#include "blas1_kernels.hpp"
#include "exala/backend.hpp"
#include "exala/error.hpp"
#include "gemm_kernels.hpp"
#include "kernel_set.hpp"
#include "trsv_kernels.hpp"

namespace exala {

namespace detail {
namespace {

constexpr kernel_set_table generic_set{kernel_set::generic, &blas1_generic, &gemm3::gemm_generic,
                                       &solvers_detail::trsv_generic};
#if EXALA_HAVE_X86_KERNEL_SETS
constexpr kernel_set_table avx2_set{kernel_set::avx2, &blas1_avx2, &gemm3::gemm_avx2,
                                    &solvers_detail::trsv_avx2};
constexpr kernel_set_table avx512_set{kernel_set::avx512, &blas1_avx512, &gemm3::gemm_avx512,
                                      &solvers_detail::trsv_avx512};
#endif

}  // namespace

const kernel_set_table* kernel_set_table_of(kernel_set k) noexcept {
  switch (k) {
    case kernel_set::generic: return &generic_set;
#if EXALA_HAVE_X86_KERNEL_SETS
    case kernel_set::avx2: return &avx2_set;
    case kernel_set::avx512: return &avx512_set;
#else
    case kernel_set::avx2:
    case kernel_set::avx512: return nullptr;  // not compiled into this build
#endif
  }
  return nullptr;
}

}  // namespace detail

std::string_view to_string(kernel_set k) noexcept {
  switch (k) {
    case kernel_set::generic: return "generic";
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
    case kernel_set::generic: return true;
    case kernel_set::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case kernel_set::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  }
  return false;
#else
  return k == kernel_set::generic;
#endif
}

void check_usable(kernel_set k, const char* source) {
  if (detail::kernel_set_table_of(k) == nullptr)
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
    else if (v == "generic" || v == "scalar") k = kernel_set::generic;  // scalar: the old name
    else
      throw invalid_argument("EXALA_SIMD", "has unknown value '" + std::string(v) +
                                               "' (expected auto|avx512|avx2|generic)");
    check_usable(k, "EXALA_SIMD");
    return k;
  }
  for (kernel_set k : {kernel_set::avx512, kernel_set::avx2})
    if (detail::kernel_set_table_of(k) != nullptr && cpu_has(k)) return k;
  return kernel_set::generic;
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
const kernel_set_table& active_kernels() { return *kernel_set_table_of(current()); }
}  // namespace detail

}  // namespace exala
