// tests/cuda_drivers_blas12.cpp - gpu/cuda/src/blas12_cuda.cu compiled for
// the host against tests/cuda_shim (test_cuda_drivers).
#include "blas12_cuda.cu"
