// exala/cuda.hpp - the CUDA engine of the stripe LU (cuBLAS DGEMM/DTRSM,
// cuSOLVER DGETRF), selected with stripe_lu_options::engine = "cuda" or
// `exala solve --engine cuda`.
//
// A program that includes this header (and links exala::gpu_cuda) has the
// engine registered before main(); register_stripe_engine() does the same
// explicitly. The device is EXALA_CUDA_DEVICE (an index; default 0).
#pragma once

namespace exala::cuda {

// Registers the "cuda" stripe LU engine (idempotent); false if that failed.
bool register_stripe_engine() noexcept;
// The number of CUDA devices (0 when there is none or no driver).
int device_count() noexcept;

namespace detail {
inline const bool stripe_engine_registered = register_stripe_engine();
}  // namespace detail

}  // namespace exala::cuda
