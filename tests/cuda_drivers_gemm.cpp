// tests/cuda_drivers_gemm.cpp - gpu/cuda/src/gemm_ozaki8.cu compiled for the
// host against tests/cuda_shim (test_cuda_drivers).
#include "gemm_ozaki8.cu"
