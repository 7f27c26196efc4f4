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
// v8 as two AVX2 registers (a 64-byte vector extension type would be split
// by the compiler through the stack).
typedef double v4 __attribute__((vector_size(32)));
struct v8 {
  v4 lo, hi;
};
#define EXALA_SV_V8 inline __attribute__((always_inline))
EXALA_SV_V8 v8 operator+(const v8& a, const v8& b) { return {a.lo + b.lo, a.hi + b.hi}; }
EXALA_SV_V8 v8 operator-(const v8& a, const v8& b) { return {a.lo - b.lo, a.hi - b.hi}; }
EXALA_SV_V8 v8 operator*(const v8& a, const v8& b) { return {a.lo * b.lo, a.hi * b.hi}; }
EXALA_SV_V8 v8 operator-(const v8& a) { return {-a.lo, -a.hi}; }
EXALA_SV_V8 v8 vfma(const v8& a, const v8& b, const v8& c) {
  return {_mm256_fmadd_pd(a.lo, b.lo, c.lo), _mm256_fmadd_pd(a.hi, b.hi, c.hi)};
}
EXALA_SV_V8 void vload(const double* p, v8& v) {
  __builtin_memcpy(&v.lo, p, sizeof v.lo);
  __builtin_memcpy(&v.hi, p + 4, sizeof v.hi);
}
EXALA_SV_V8 void vload_rev(const double* p, v8& v) {  // lanes p[0], p[-1], ..., p[-7]
  v4 a, b;
  __builtin_memcpy(&a, p - 3, sizeof a);
  __builtin_memcpy(&b, p - 7, sizeof b);
  v.lo = __builtin_shufflevector(a, a, 3, 2, 1, 0);
  v.hi = __builtin_shufflevector(b, b, 3, 2, 1, 0);
}
EXALA_SV_V8 void vstore(double* p, const v8& v) {
  __builtin_memcpy(p, &v.lo, sizeof v.lo);
  __builtin_memcpy(p + 4, &v.hi, sizeof v.hi);
}
EXALA_SV_V8 v8 splat(double x) { return {v4{x, x, x, x}, v4{x, x, x, x}}; }
EXALA_SV_V8 void set_lane0(v8& v, double b) { v.lo[0] = b; }
EXALA_SV_V8 v8 vsum(const v8& a, const v8& b) { return a + b; }
EXALA_SV_V8 v8 vdiff(const v8& a, const v8& b) { return a - b; }
#undef EXALA_SV_V8
#include "trsv_impl.hpp"
}  // namespace

void comp_solve_avx2(const kernel_args& k, double* x, double* work) { solve<comp_op, 2, 1>(k, x, work); }
void dd_solve_avx2(const kernel_args& k, double* x, double* work) { solve<dd_op, 4, 4>(k, x, work); }
const trsv_kernels trsv_avx2{comp_solve_avx2, dd_solve_avx2};

}  // namespace exala::solvers_detail
