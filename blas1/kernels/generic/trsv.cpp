// The baseline kernel set (any x86-64, or any other target): plain C++,
// vectorized by the compiler for the baseline ISA; std::fma is a libm call here
// (correctly rounded, so the same bits as the FMA instruction, only slower).
#include <cmath>
#include <cstdint>

#include "trsv_kernels.hpp"

namespace exala::solvers_detail {
namespace {
#include "trsv_vext.hpp"
inline __attribute__((always_inline)) v8 vfma(const v8& a, const v8& b, const v8& c) {
  v8 r;
  for (int l = 0; l < 8; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
}
inline __attribute__((always_inline)) v8 vsum(const v8& a, const v8& b) { return a + b; }
inline __attribute__((always_inline)) v8 vdiff(const v8& a, const v8& b) { return a - b; }
#include "trsv_impl.hpp"
}  // namespace

void comp_solve_generic(const kernel_args& k, double* x, double* work) { solve<comp_op, 2, 1>(k, x, work); }
void dd_solve_generic(const kernel_args& k, double* x, double* work) { solve<dd_op, 4, 4>(k, x, work); }
const trsv_kernels trsv_generic{comp_solve_generic, dd_solve_generic};

}  // namespace exala::solvers_detail
