// exala/backend.hpp - the one list of ExaLA backends and the execution
// options every routine takes.
#pragma once

#include <string>
#include <string_view>

#include "exala/rounding.hpp"

namespace exala {

// X(name, description). The single place where backends are listed; a backend
// that is not compiled into this build still parses and links, and a call
// with it throws exala::not_compiled_in.
//
// opencl: the reductions (sum, asum, dot, nrm2 and the *_into forms) run on
// the OpenCL device chosen by exala::opencl::select_device or the environment
// variable EXALA_OPENCL_DEVICE. The code lives in exala::gpu, above blas1, and
// registers itself through exala/detail/opencl_hooks.hpp: a program must link
// exala::gpu and include <exala/opencl.hpp> (or call
// exala::opencl::register_backend()); otherwise a call throws exala::error
// saying so. The element-wise routines (axpy, scal, copy, swap, iamax) round
// each element once, so under opencl they simply run the simd path on the
// host (same bits by construction). Built without OpenCL, every call with
// backend::opencl throws exala::not_compiled_in.
//
// cuda: gemm runs on the CUDA device EXALA_CUDA_DEVICE (default 0) from
// 2^24 multiply-adds (smaller products run the CPU engine) by the 8-bit
// Ozaki-II scheme (exala/detail/ozaki8.hpp; host pointers are copied
// to the device and back; exala/cuda.hpp has the device-pointer API). The
// code lives in exala::gpu_cuda and registers itself like opencl's (include
// <exala/cuda.hpp>); blocked trsm takes its numerators from the same
// engine. Every other routine runs the simd path on the host under
// backend::cuda (same bits by construction): the CUDA reductions, gemv and
// trsv exist for device pointers only (exala::cuda::dot / sum / asum /
// nrm2 / gemv / trsv). Built without CUDA, every
// call with backend::cuda throws exala::not_compiled_in.
#define EXALA_BACKENDS(X)                                         \
  X(reference, "plain scalar loops into a superaccumulator (the oracle)") \
  X(simd, "AVX-512 / AVX2 multi-level kernels chosen at run time")        \
  X(omp, "OpenMP threads over the simd kernels")                          \
  X(opencl, "OpenCL exact kernels on a device (link exala::gpu; --device)") \
  X(cuda, "CUDA: exact gemm on INT8 tensor cores (link exala::gpu_cuda)")

enum class backend {
#define EXALA_ENUM_(name, desc) name,
  EXALA_BACKENDS(EXALA_ENUM_)
#undef EXALA_ENUM_
};

// Upper bound on exec::threads: more is a mistake (and crashes some OpenMP
// runtimes). The one definition, also used by the C API and the CLI.
inline constexpr int max_threads = 1024;

// How a routine runs. The result bits never depend on these choices
// (except `mode`, the rounding direction of the final result).
struct exec {
  exala::backend backend = exala::backend::simd;
  int threads = 0;  // omp: number of threads, 0..max_threads (0 = OpenMP's default)
  rounding mode = rounding::to_nearest_even;
  // Block size of the blocked level-2/3 algorithms (trsv, trsm, gemm): 0
  // chooses one. Results never depend on it (tests vary it); only speed does.
  long long block = 0;
};

std::string_view to_string(backend b) noexcept;
// Whether a routine without device code runs the host SIMD kernels under
// this backend (simd, omp, and cuda outside gemm).
constexpr bool runs_host_simd(backend b) noexcept {
  return b == backend::simd || b == backend::omp || b == backend::cuda;
}
// Parses a backend name; throws exala::invalid_argument naming `arg`.
backend parse_backend(std::string_view name, const std::string& arg = "backend");
// True when the backend is compiled into this build.
bool is_compiled_in(backend b) noexcept;

// The kernel sets: generic (the baseline ISA, any target), avx2, avx512. The
// choice is made once from cpuid (the best set the CPU has) and can be
// forced with the environment variable EXALA_SIMD=avx512|avx2|generic.
// `scalar` is the former name of generic, still accepted (also by
// EXALA_SIMD).
enum class kernel_set { generic, avx2, avx512, scalar = generic };
std::string_view to_string(kernel_set k) noexcept;
// Throws exala::error when EXALA_SIMD names an unknown set or one this CPU
// lacks (a forced choice is never silently replaced).
kernel_set active_kernel_set();
// Overrides the run-time choice (throws not_compiled_in / invalid_argument if
// the set is missing from this build or this CPU).
void force_kernel_set(kernel_set k);

}  // namespace exala
