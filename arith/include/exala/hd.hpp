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
