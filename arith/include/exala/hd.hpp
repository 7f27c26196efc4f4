// exala/hd.hpp - EXALA_HD marks a function that runs on the host and, when
// the file is compiled by nvcc, on a CUDA device too: the one copy of the
// arithmetic that the host engines and the CUDA kernels share (so that both
// take the same decisions, and the host copy is what CI tests).
//
// Device code follows the project's numeric rules as host code does: the
// CUDA targets are compiled with --fmad=false (no contraction into FMA),
// IEEE division and square root (nvcc's defaults), and std::fma only where
// written.
#pragma once

#if defined(__CUDACC__)
#define EXALA_HD __host__ __device__
#else
#define EXALA_HD
#endif

#include <bit>
#include <cstdint>

// Bit counts for EXALA_HD code. Never call std::countl_zero / countr_zero
// there: nvcc 13 compiles libstdc++'s versions (GCC builtins) in device code
// without a word, and folds them to a constant (the result for 0). On an
// H200 that made every exponent scan and CRT length of the exact gemm wrong
// while the host engine, the emulation and CI all passed.
// tests/cmake/check_hd_bit_ops.cmake keeps EXALA_HD headers off <bit>'s counts.
namespace exala::hd {

EXALA_HD constexpr int countl_zero(std::uint64_t x) noexcept {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));  // 64 for 0
#else
  return std::countl_zero(x);
#endif
}

EXALA_HD constexpr int countl_zero(std::uint32_t x) noexcept {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));  // 32 for 0
#else
  return std::countl_zero(x);
#endif
}

EXALA_HD constexpr int countr_zero(std::uint64_t x) noexcept {
#if defined(__CUDA_ARCH__)
  return x == 0 ? 64 : __ffsll(static_cast<long long>(x)) - 1;
#else
  return std::countr_zero(x);
#endif
}

}  // namespace exala::hd
