// exala/detail/cuda_hooks.hpp - how the CUDA code (exala::gpu_cuda, a layer
// above blas3) plugs into the blas3 front ends without blas3 linking CUDA:
// the front end checks the arguments, handles the conventions that read no
// matrix (m or n zero, k zero, alpha zero), forms the column-major problem
// and calls the hook for backend::cuda.
#pragma once

#include <cstdint>

#include "exala/blas3.hpp"
#include "exala/detail/backend_hooks.hpp"
#include "exala/detail/ozaki8_engine.hpp"

namespace exala::detail {

struct cuda_blas3_hooks {
  // exala::gemm in column-major form on host pointers (checked; m, n, k > 0,
  // alpha != 0): upload, the exact device engine, download.
  void (*gemm)(const ozaki8::gemm_args& g);
};

// exala::gemm's argument checks (each error names the argument), shared with
// the device-pointer API exala::cuda::gemm.
void check_gemm_arguments(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n,
                          std::int64_t k, double alpha, const double* a, std::int64_t lda,
                          const double* b, std::int64_t ldb, const double* c, std::int64_t ldc);

// backend::cuda sends a gemm (and trsm's numerator products) to the GPU from
// this many multiply-adds m n k (default 2^24 = 256^3); smaller ones run the
// CPU engine (same bits). Returns the previous value; tests set 0.
std::int64_t set_cuda_min_products(std::int64_t products) noexcept;
bool cuda_gemm_wanted(std::int64_t m, std::int64_t n, std::int64_t k) noexcept;
// Registered under (backend::cuda, hook_kind::blas3) in the one registration
// point, exala/detail/backend_hooks.hpp.

}  // namespace exala::detail
