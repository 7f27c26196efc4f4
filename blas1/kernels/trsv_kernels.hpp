// Internal: the trsv part of a kernel set (kernel_set.hpp): the substitution
// kernels of the compensated and double-double triangular solvers of
// exala::solvers, one per instruction set: generic/trsv.cpp (baseline
// x86-64 / any target), avx2/trsv.cpp (-mavx2 -mfma) and avx512/trsv.cpp
// (-mavx512f -mavx512dq -mfma), all compiled from trsv_impl.hpp. They use
// exala::arith's flags only.
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

using solve_fn = void (*)(const kernel_args&, double*, double*);
struct trsv_kernels {
  solve_fn comp_solve;  // compensated (CENA) substitution
  solve_fn dd_solve;    // double-double substitution
};

extern const trsv_kernels trsv_generic;
extern const trsv_kernels trsv_avx2;
extern const trsv_kernels trsv_avx512;

}  // namespace exala::solvers_detail
