// The AVX2 kernel set: the same source compiled with -mavx2 -mfma (std::fma
// becomes the FMA instruction). Chosen at run time from cpuid.
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "trsv_kernels.hpp"

// The 8-lane vector type never crosses a call (everything here is internal
// and inlined), so GCC's notes about its calling convention do not apply.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace exala::solvers_detail {
namespace {
typedef double v8 __attribute__((vector_size(64)));
typedef double v4 __attribute__((vector_size(32)));
inline __attribute__((always_inline)) v8 vfma(const v8& a, const v8& b, const v8& c) {
  const v4 lo = _mm256_fmadd_pd(__builtin_shufflevector(a, a, 0, 1, 2, 3),
                                __builtin_shufflevector(b, b, 0, 1, 2, 3),
                                __builtin_shufflevector(c, c, 0, 1, 2, 3));
  const v4 hi = _mm256_fmadd_pd(__builtin_shufflevector(a, a, 4, 5, 6, 7),
                                __builtin_shufflevector(b, b, 4, 5, 6, 7),
                                __builtin_shufflevector(c, c, 4, 5, 6, 7));
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}
#include "trsv_kernels_impl.hpp"
}  // namespace

void comp_solve_avx2(const kernel_args& k, double* x, double* work) { solve<comp_op, 2, 1>(k, x, work); }
void dd_solve_avx2(const kernel_args& k, double* x, double* work) { solve<dd_op, 4, 4>(k, x, work); }

}  // namespace exala::solvers_detail
