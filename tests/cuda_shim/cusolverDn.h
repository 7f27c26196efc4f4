// tests/cuda_shim/cusolverDn.h - the cuSOLVER status type that
// gpu/cuda/src/cuda_check.hpp names (test_cuda_drivers does not call it).
#pragma once

enum cusolverStatus_t { CUSOLVER_STATUS_SUCCESS = 0 };
