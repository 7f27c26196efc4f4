// The AVX2 kernel set, trsv part: trsv_impl.hpp over two v256 registers per
// 8 lanes (the set's traits, shared with its blas1 kernels), compiled with
// -mavx2 -mfma. Chosen at run time from cpuid.
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "exala/arith_simd.hpp"
#include "trsv_kernels.hpp"

namespace exala::solvers_detail {
namespace {
#include "avx2/simd_traits.hpp"

// 8 lanes as two v256 registers side by side (lanes 0-3 in lo, 4-7 in hi):
// the operations of v256 on each half. A struct of two registers, not a
// 64-byte vector type, which GCC would split through the stack.
struct trsv256 {
  struct reg {
    __m256d lo, hi;
  };
  static constexpr int width = 2 * v256::width;
  static reg zero() { return {v256::zero(), v256::zero()}; }
  static reg set1(double x) { return {v256::set1(x), v256::set1(x)}; }
  static reg load(const double* p) { return {v256::load(p), v256::load(p + 4)}; }
  static reg load_rev(const double* p) { return {v256::load_rev(p), v256::load_rev(p - 4)}; }
  static reg load_first(const double* p, int k) {  // 0 <= k <= 8
    return {v256::load_first(p, k < 4 ? k : 4), v256::load_first(p + 4, k < 4 ? 0 : k - 4)};
  }
  static void store(double* p, reg v) {
    v256::store(p, v.lo);
    v256::store(p + 4, v.hi);
  }
  static reg add(reg a, reg b) { return {v256::add(a.lo, b.lo), v256::add(a.hi, b.hi)}; }
  static reg sub(reg a, reg b) { return {v256::sub(a.lo, b.lo), v256::sub(a.hi, b.hi)}; }
  static reg mul(reg a, reg b) { return {v256::mul(a.lo, b.lo), v256::mul(a.hi, b.hi)}; }
  static reg neg(reg a) { return {v256::neg(a.lo), v256::neg(a.hi)}; }
  static reg fmadd(reg a, reg b, reg c) {
    return {v256::fmadd(a.lo, b.lo, c.lo), v256::fmadd(a.hi, b.hi, c.hi)};
  }
  static reg fmsub(reg a, reg b, reg c) {
    return {v256::fmsub(a.lo, b.lo, c.lo), v256::fmsub(a.hi, b.hi, c.hi)};
  }
  static reg fnmadd(reg a, reg b, reg c) {
    return {v256::fnmadd(a.lo, b.lo, c.lo), v256::fnmadd(a.hi, b.hi, c.hi)};
  }
  static reg sum(reg a, reg b) { return add(a, b); }
  static reg diff(reg a, reg b) { return sub(a, b); }
};

#include "trsv_impl.hpp"
}  // namespace

void comp_solve_avx2(const kernel_args& k, double* x, double* work) { solve<comp_op, trsv256, 2, 1>(k, x, work); }
void dd_solve_avx2(const kernel_args& k, double* x, double* work) { solve<dd_op, trsv256, 4, 4>(k, x, work); }
const trsv_kernels trsv_avx2{comp_solve_avx2, dd_solve_avx2};

}  // namespace exala::solvers_detail
