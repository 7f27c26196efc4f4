// exala/detail/opencl_hooks3.hpp - how the OpenCL level-3 code (exala::gpu, a
// layer above blas3) plugs into the blas3 front ends without blas3 linking it.
//
// Same scheme as exala/detail/opencl_hooks2.hpp: the front ends check the
// arguments and handle the conventions that read no matrix, then call the
// hook for backend::opencl (upload, exact device routine, download).
#pragma once

#include <cstdint>

#include "exala/detail/backend_hooks.hpp"

#include "exala/blas3.hpp"

namespace exala::detail {

struct opencl_blas3_hooks {
  // exala::gemm on host pointers (arguments checked; alpha != 0, m, n, k > 0).
  void (*gemm)(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n,
               std::int64_t k, double alpha, const double* a, std::int64_t lda, const double* b,
               std::int64_t ldb, double beta, double* c, std::int64_t ldc, rounding mode);
  // exala::trsm on host pointers (arguments checked; alpha != 0, m, n > 0,
  // diagonal checked).
  void (*trsm)(layout lay, side sd, uplo ul, transpose trans, diag dg, std::int64_t m,
               std::int64_t n, double alpha, const double* a, std::int64_t lda, double* b,
               std::int64_t ldb, rounding mode);
};

// Registered under (backend::opencl, hook_kind::blas3) in the one registration point,
// exala/detail/backend_hooks.hpp (register_hooks / require_hooks).

}  // namespace exala::detail
