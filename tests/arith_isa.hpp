// tests/arith_isa.hpp - entry points of the arith test's ISA translation units.
//
// arith_isa_avx2.cpp is compiled with -mavx2 -mfma, arith_isa_avx512.cpp with
// -mavx512f -mavx512dq -mfma, both with the project's numeric flags. They
// evaluate the EFTs into plain arrays; test_arith.cpp checks the arrays with
// the exact integer oracle, and calls a unit only when the CPU supports it.
// Nothing in those units is shared with baseline code (the scalar header is
// included there under a renamed namespace), so no inline function built with
// wider -m flags can be merged into the rest of the test.
#pragma once

#include <cstddef>

namespace exala_test::isa {

// Number of doubles written per element by fma_scalar_eft.
constexpr int scalar_outputs = 10;
// Scalar EFTs of exala/arith.hpp compiled where the compiler may use FMA:
// out[10 i ..] = two_sum(a,b), fast_two_sum(a,b), two_prod(a,b),
// two_product_dekker(a,b), split(a). False when not compiled in.
bool fma_scalar_eft(const double* a, const double* b, std::size_t n, double* out);
// a*b + c exactly as written, in the FMA-enabled unit (must not be contracted).
double fma_unit_mul_add(double a, double b, double c);

// Number of doubles written per element by the lane functions.
constexpr int lane_outputs = 8;
// Lane EFTs of exala/arith_simd.hpp: out[8 i ..] = two_sum, fast_two_sum,
// two_prod, fast_two_sum_fma of lane i. n must be a multiple of 8. False when not compiled in
// (no such ISA in this build, or no exala/arith_simd.hpp).
bool lanes_avx2(const double* a, const double* b, std::size_t n, double* out);
bool lanes_avx512(const double* a, const double* b, std::size_t n, double* out);

}  // namespace exala_test::isa
