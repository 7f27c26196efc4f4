// The AVX-512 kernel set, trsv part: trsv_impl.hpp over v512 (one zmm
// register per 8 lanes, the set's traits shared with its blas1 kernels),
// compiled with -mavx512f -mavx512dq -mfma and 512-bit vectors preferred.
// Chosen at run time from cpuid.
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "exala/arith_simd.hpp"
#include "trsv_kernels.hpp"

namespace exala::solvers_detail {
namespace {
#include "avx512/simd_traits.hpp"

// a + b and a - b as FMAs by 1 (exactly the same correctly rounded results):
// the update then splits its operations evenly between the FMA and the
// add pipes (Zen 4/5: two of each), instead of 8 adds to 3 FMAs.
struct trsv512 : v512 {
  static reg sum(reg a, reg b) { return _mm512_fmadd_pd(a, _mm512_set1_pd(1.0), b); }
  static reg diff(reg a, reg b) { return _mm512_fmsub_pd(a, _mm512_set1_pd(1.0), b); }
};

#include "trsv_impl.hpp"
}  // namespace

void comp_solve_avx512(const kernel_args& k, double* x, double* work) { solve<comp_op, trsv512, 4, 16>(k, x, work); }
void dd_solve_avx512(const kernel_args& k, double* x, double* work) { solve<dd_op, trsv512, 8, 4>(k, x, work); }
const trsv_kernels trsv_avx512{comp_solve_avx512, dd_solve_avx512};

}  // namespace exala::solvers_detail
