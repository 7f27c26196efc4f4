// Internal to exala::solvers: the substitution kernels of the compensated
// and double-double triangular solvers, one set per instruction set (BLIS
// style): trsv_kernels_generic.cpp (baseline x86-64 / any target),
// trsv_kernels_avx2.cpp (-mavx2 -mfma) and trsv_kernels_avx512.cpp
// (-mavx512f -mavx512dq -mfma), all compiled from trsv_kernels_impl.hpp.
// The set is chosen at run time with blas1's kernel-set choice
// (exala::active_kernel_set(): cpuid, or EXALA_SIMD / force_kernel_set).
//
// Every set performs the same IEEE operations in the same order (FMA only as
// std::fma, which is correctly rounded everywhere: an instruction with -mfma,
// a libm call in the baseline set), so all sets give the same bits.
#pragma once

#include <cstdint>

namespace exala::solvers_detail {

// Canonical triangular operand (see solvers_common.hpp).
struct kernel_args {
  const double* a;
  std::int64_t lda;
  std::int64_t n;
  bool lower;
  bool rows;
  bool unit;
};

// Both kernels: x holds b (contiguous, logical order) on entry and the
// solution rounded to double on exit. work must hold work_size(n) doubles.
constexpr std::int64_t comp_lanes = 8;  // the compensated solver's accumulation lanes
inline std::int64_t comp_work_size(std::int64_t n) { return 2 * n + 2 * comp_lanes * n; }
inline std::int64_t dd_work_size(std::int64_t n) { return 2 * n + 2 * n; }

#define EXALA_SOLVERS_DECLARE_KERNELS(isa)                               \
  void comp_solve_##isa(const kernel_args& k, double* x, double* work); \
  void dd_solve_##isa(const kernel_args& k, double* x, double* work);

EXALA_SOLVERS_DECLARE_KERNELS(generic)
#if defined(EXALA_SOLVERS_HAVE_X86_SETS)
EXALA_SOLVERS_DECLARE_KERNELS(avx2)
EXALA_SOLVERS_DECLARE_KERNELS(avx512)
#endif
#undef EXALA_SOLVERS_DECLARE_KERNELS

// The kernels of the active kernel set.
using solve_fn = void (*)(const kernel_args&, double*, double*);
solve_fn comp_kernel();
solve_fn dd_kernel();

}  // namespace exala::solvers_detail
