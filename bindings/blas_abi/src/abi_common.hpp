// abi_common.hpp - internal to libexala_blas.so: the process-wide execution
// options, error reporting through XERBLA / cblas_xerbla, and the guard that
// keeps C++ exceptions from crossing the C ABI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>

#include "exala/backend.hpp"

namespace exala::blas_abi {

// The execution options of every call, read once from the environment:
// EXALA_BACKEND = reference | simd | omp (default simd) and
// EXALA_NUM_THREADS = 0..1024 (omp threads; 0 or unset: OpenMP's default).
// A bad value prints one message to stderr naming the variable and its
// value and the default is used; a bad EXALA_SIMD likewise (the automatic
// kernel-set choice is used). Never throws.
const exec& abi_exec() noexcept;

// Reports INFO for a Fortran-ABI routine: calls the program's xerbla_ if it
// has one, else the next library's, else the default below. srname is the
// reference's 6-character name ("DGEMV ").
void report_xerbla(const char* srname, int info) noexcept;

// Reports parameter number `pos` (its position in the cblas_ call) of the
// CBLAS routine `rout` ("cblas_dgemv") through cblas_xerbla, found the same
// way. `form` and the optional int are passed on as the reference does.
void report_cblas(int pos, const char* rout, const char* form) noexcept;
void report_cblas(int pos, const char* rout, const char* form, int value) noexcept;

// An exception that should not happen (out of memory, an internal error):
// one line on stderr naming the routine, the outputs are set to NaN by the
// caller (never left half written without notice).
void report_failure(const char* routine, const char* what) noexcept;

// A null array pointer where the call must read or write elements (never
// produced by Fortran callers): one line on stderr naming the routine and
// the argument; the caller then returns without touching anything.
void report_null(const char* routine, const char* argument) noexcept;

// Runs f(); on an exception reports it and runs fail() (which must not throw).
template <class F, class Fail>
void guarded(const char* routine, F&& f, Fail&& fail) noexcept {
  try {
    f();
  } catch (const std::exception& e) {
    report_failure(routine, e.what());
    fail();
  } catch (...) {
    report_failure(routine, "unknown exception");
    fail();
  }
}

// Element offset of logical element i (0-based) of a BLAS vector of n
// elements with increment inc: a negative increment starts at (1-n)*inc,
// as reference BLAS does.
inline std::int64_t elem(std::int64_t i, std::int64_t n, std::int64_t inc) noexcept {
  return inc >= 0 ? i * inc : (i - (n - 1)) * inc;
}

}  // namespace exala::blas_abi
