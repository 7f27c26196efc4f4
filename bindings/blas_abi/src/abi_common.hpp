// abi_common.hpp - internal to libexala_blas.so: the process-wide execution
// options, error reporting through XERBLA / cblas_xerbla, and the guard that
// keeps C++ exceptions from crossing the C ABI.
#pragma once

#include <atomic>
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

// Error reporting. Neither this library nor its reports define or replace
// a handler: the handler that runs is looked up at each error (see
// find_symbol in abi_common.cpp): a program's own xerbla_ / cblas_xerbla in
// the global scope, else the one the calling object (`caller`: the return
// address of the exported routine, EXALA_BLAS_CALLER) sees in its own
// dependency tree, such as a dlopen(RTLD_LOCAL) plugin's own handler; a
// handler that belongs to a BLAS/CBLAS/LAPACK library (the object also
// defines dgemm_, cblas_dgemm or dgetrf_: their defaults stop, exit or print
// to stdout) is skipped. With none found, the reference message is printed to
// stderr and the call returns. The handler may throw or longjmp: these
// functions hold nothing that needs cleaning up while it runs, and let an
// exception pass to the program.

// The caller's address, for the handler lookup (call it in the exported
// function itself, not in a helper).
#define EXALA_BLAS_CALLER __builtin_return_address(0)

// Reports INFO of a Fortran-ABI routine through xerbla_(srname, &info, 6);
// srname is the reference's 6-character name ("DGEMV ").
void report_xerbla(const char* srname, int info, const void* caller);

// A CBLAS argument error, numbered as Netlib's CBLAS numbers it.
struct cblas_error {
  const char* rout;  // "cblas_dgemv"
  // The number Netlib's CBLAS hands to cblas_xerbla: the position of the bad
  // argument in the column-major call it makes. For row-major calls that is
  // the call on the transposed problem, whose arguments can sit elsewhere
  // than in the cblas_ call; Netlib's cblas_xerbla maps them back itself,
  // reading the global RowMajorStrg (gemv 3<->4, ger 2<->3 and 6<->8, gemm
  // 4<->5 and 9<->11, symm 4<->5, trmm/trsm 6<->7).
  int netlib;
  // The bad argument's position in the cblas_ call (what our default prints).
  int position;
  bool row_major;
  const char* form;  // printf format for the value ("" for Fortran errors)
  bool has_value;
  int value;
};

// Reports a CBLAS error through cblas_xerbla(netlib, rout, form[, value]).
// Where the process has Netlib's RowMajorStrg (the reference CBLAS defines
// it), it is row_major while the handler runs, as in Netlib's own routines,
// so that a handler written for Netlib's numbering can map it.
void report_cblas(const cblas_error& e, const void* caller);

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

// ------------------------------------------------------------ served-call counters
//
// Every exported BLAS/CBLAS entry point counts its calls and their nominal
// floating-point operations with one line, EXALA_BLAS_COUNT(name, flops),
// placed after its scalar arguments are read. The counter is a function-local
// static that registers itself in a lock-free list at its first call, so a
// new entry point needs no other edit. Relaxed atomics: a few ns a call,
// never a lock, and only while a report was asked for: at process exit the
// library prints the counts (abi_common.cpp) when EXALA_BLAS_VERBOSE=1
// (stderr) or EXALA_BLAS_REPORT=FILE (appended) was set at load time.
struct call_counter {
  const char* name;
  std::atomic<std::uint64_t> calls{0};
  std::atomic<std::uint64_t> flops{0};
  call_counter* next = nullptr;  // the registry (set once, before publication)

  explicit call_counter(const char* routine) noexcept;  // registers itself
  void add(std::uint64_t f) noexcept {
    calls.fetch_add(1, std::memory_order_relaxed);
    flops.fetch_add(f, std::memory_order_relaxed);
  }
};

// The nominal operation count f * a * b * c of a call (LAPACK's convention:
// a multiply-add is 2), with negative dimensions (argument errors) taken as
// 0 and a product beyond 2^63 saturated. It is the count of the call's
// dimensions: a quick return (alpha = 0) or a call refused by XERBLA still
// counts them.
inline std::uint64_t nominal(std::int64_t f, std::int64_t a, std::int64_t b = 1,
                             std::int64_t c = 1) noexcept {
  std::uint64_t r = 1;
  for (std::int64_t v : {f, a, b, c}) {
    if (v <= 0) return 0;
    if (__builtin_mul_overflow(r, static_cast<std::uint64_t>(v), &r) || r > (1ULL << 63))
      return 1ULL << 63;
  }
  return r;
}

// Left-side option of a Fortran call ('L' or 'l').
inline bool left_side(const char* side) noexcept {
  return side != nullptr && (*side == 'L' || *side == 'l');
}

// True when a report was requested (EXALA_BLAS_VERBOSE=1 or EXALA_BLAS_REPORT
// set when the library was loaded; written once, by the library's
// constructor, before any call): without one, nothing is counted and a call
// pays one predictable branch (flop_count is not evaluated).
extern bool counting;

#define EXALA_BLAS_COUNT(routine, flop_count)                                   \
  do {                                                                          \
    if (::exala::blas_abi::counting) {                                          \
      static ::exala::blas_abi::call_counter exala_blas_counter_{routine};      \
      exala_blas_counter_.add(flop_count);                                      \
    }                                                                           \
  } while (0)

// Element offset of logical element i (0-based) of a BLAS vector of n
// elements with increment inc: a negative increment starts at (1-n)*inc,
// as reference BLAS does.
inline std::int64_t elem(std::int64_t i, std::int64_t n, std::int64_t inc) noexcept {
  return inc >= 0 ? i * inc : (i - (n - 1)) * inc;
}

}  // namespace exala::blas_abi
