// abi_common.cpp - environment, error reporting and the ExaLA-specific
// symbols of libexala_blas.so (exala_blas_abi_next, exala_blas_abi_version,
// and the default xerbla_ / cblas_xerbla).
#include "abi_common.hpp"

#include <dlfcn.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "exala/error.hpp"
#include "exala_blas_abi.h"

#ifndef EXALA_BLAS_ABI_VERSION
#define EXALA_BLAS_ABI_VERSION "unknown"
#endif

namespace exala::blas_abi {
namespace {

// ------------------------------------------------------------ environment

const char* env_value(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

exec read_environment() {
  exec ex;  // simd, threads 0, to nearest
  if (const char* v = env_value("EXALA_BACKEND")) {
    const std::string_view s(v);
    if (s == "reference") ex.backend = backend::reference;
    else if (s == "simd") ex.backend = backend::simd;
    else if (s == "omp") {
      if (is_compiled_in(backend::omp)) {
        ex.backend = backend::omp;
      } else {
        std::fprintf(stderr,
                     "libexala_blas: EXALA_BACKEND='%s': the omp backend is not compiled into "
                     "this build; using simd\n", v);
      }
    } else {
      std::fprintf(stderr,
                   "libexala_blas: EXALA_BACKEND='%s' is not one of reference|simd|omp; "
                   "using simd\n", v);
    }
  }
  if (const char* v = env_value("EXALA_NUM_THREADS")) {
    errno = 0;
    char* end = nullptr;
    const long t = std::strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || t < 0 || t > 1024) {
      std::fprintf(stderr,
                   "libexala_blas: EXALA_NUM_THREADS='%s' is not an integer in 0..1024; "
                   "using 0 (OpenMP's default)\n", v);
    } else {
      ex.threads = static_cast<int>(t);
    }
  }
  // EXALA_SIMD is read by the blas1 layer at its first use and makes every
  // call throw when it is bad; here a bad value is reported once and the
  // automatic choice (best kernel set this CPU has) is used instead.
  try {
    (void)active_kernel_set();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libexala_blas: ignoring EXALA_SIMD='%s' (%s); using the automatic "
                         "kernel-set choice\n",
                 env_value("EXALA_SIMD") ? env_value("EXALA_SIMD") : "", e.what());
    for (kernel_set k : {kernel_set::avx512, kernel_set::avx2, kernel_set::scalar}) {
      try {
        force_kernel_set(k);
        break;
      } catch (const std::exception&) {
      }
    }
  }
  return ex;
}

// ------------------------------------------------------------ symbol lookup

// True when p lies in this shared object (libexala_blas.so itself).
bool is_ours(void* p) {
  static const void* self_base = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&read_environment), &info) == 0) return (void*)nullptr;
    return info.dli_fbase;
  }();
  if (p == nullptr || self_base == nullptr) return false;
  Dl_info info{};
  if (dladdr(p, &info) == 0) return false;
  return info.dli_fbase == self_base;
}

// The object (load base) a symbol address belongs to, or nullptr.
const void* object_of(void* p) {
  Dl_info info{};
  if (p == nullptr || dladdr(p, &info) == 0) return nullptr;
  return info.dli_fbase;
}

// True when the object holding handler p also holds the first or the next
// definition of `marker` (dgemm_ / cblas_dgemm): p is then a BLAS library's
// own default handler (OpenBLAS's xerbla_ prints to stdout, the cblas_xerbla
// of libopenblas and of reference CBLAS call exit), not the program's.
bool from_a_blas_library(void* p, const char* marker) {
  const void* obj = object_of(p);
  if (obj == nullptr) return false;
  for (void* q : {dlsym(RTLD_DEFAULT, marker), dlsym(RTLD_NEXT, marker)})
    if (q != nullptr && object_of(q) == obj) return true;
  return false;
}

bool acceptable_handler(void* p, const char* marker) {
  return p != nullptr && !is_ours(p) && !from_a_blas_library(p, marker);
}

// The program's own handler `name`, wherever it is defined: first in the
// global scope (the executable, or a library loaded before this one), else
// the next definition after this library (a library of the program loaded
// after libexala_blas.so, e.g. under LD_PRELOAD); handlers that belong to
// this library or to a BLAS library (see from_a_blas_library) are skipped.
// nullptr: use this library's default.
void* program_handler(const char* name, const char* marker) {
  void* p = dlsym(RTLD_DEFAULT, name);
  if (acceptable_handler(p, marker)) return p;
  p = dlsym(RTLD_NEXT, name);
  if (acceptable_handler(p, marker)) return p;
  return nullptr;
}

using xerbla_fn = void (*)(const char*, const int*, std::size_t);
using cblas_xerbla_fn = void (*)(int, const char*, const char*, ...);

void print_xerbla(const char* srname, int info, std::size_t len) {
  // The name as passed (reference names are 6 characters, blank padded),
  // capped and stopped at a NUL for C callers that pass no length.
  std::string name;
  if (srname != nullptr)
    for (std::size_t i = 0; i < len && i < 32 && srname[i] != '\0'; ++i) name += srname[i];
  std::fprintf(stderr, " ** On entry to %s parameter number %2d had an illegal value\n",
               name.c_str(), info);
}

}  // namespace

const exec& abi_exec() noexcept {
  static const exec ex = [] {
    try {
      return read_environment();
    } catch (...) {
      return exec{};
    }
  }();
  return ex;
}

void report_xerbla(const char* srname, int info) noexcept {
  if (auto f = reinterpret_cast<xerbla_fn>(program_handler("xerbla_", "dgemm_"))) {
    f(srname, &info, 6);
    return;
  }
  print_xerbla(srname, info, 6);
}

void report_cblas(int pos, const char* rout, const char* form) noexcept {
  if (auto f = reinterpret_cast<cblas_xerbla_fn>(program_handler("cblas_xerbla", "cblas_dgemm"))) {
    f(pos, rout, form);
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", pos, rout);
}

void report_cblas(int pos, const char* rout, const char* form, int value) noexcept {
  if (auto f = reinterpret_cast<cblas_xerbla_fn>(program_handler("cblas_xerbla", "cblas_dgemm"))) {
    f(pos, rout, form, value);
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", pos, rout);
  std::fprintf(stderr, form, value);
}

void report_failure(const char* routine, const char* what) noexcept {
  std::fprintf(stderr, "libexala_blas: %s failed: %s; its output was set to NaN\n", routine,
               what != nullptr ? what : "");
}

void report_null(const char* routine, const char* argument) noexcept {
  std::fprintf(stderr, "libexala_blas: %s: argument %s is a null pointer; the call did nothing\n",
               routine, argument);
}

}  // namespace exala::blas_abi

// ------------------------------------------------------------ exported C symbols

extern "C" {

__attribute__((visibility("default"))) const char* exala_blas_abi_version(void) {
  return "ExaLA drop-in BLAS " EXALA_BLAS_ABI_VERSION;
}

__attribute__((visibility("default"))) void* exala_blas_abi_next(const char* name) {
  if (name == nullptr) return nullptr;
  void* sym = dlsym(RTLD_NEXT, name);
  // RTLD_NEXT is relative to the object that calls dlsym: keep the call out
  // of tail position, or it would be made from our caller's object.
  asm volatile("" : "+r"(sym));
  return sym;
}

// The default XERBLA: a weak definition that a program's own xerbla_
// overrides. Under LD_PRELOAD it is also what other libraries' routines find
// first; if the program has its own handler in a library loaded after this
// one, that handler is called. Otherwise the reference message is printed to
// stderr and the call RETURNS (as OpenBLAS does; reference XERBLA STOPs).
__attribute__((weak, visibility("default"))) void xerbla_(const char* srname, const int* info,
                                                          std::size_t len) {
  void* next = dlsym(RTLD_NEXT, "xerbla_");
  if (exala::blas_abi::acceptable_handler(next, "dgemm_")) {
    reinterpret_cast<exala::blas_abi::xerbla_fn>(next)(srname, info, len);
    return;
  }
  exala::blas_abi::print_xerbla(srname, info != nullptr ? *info : 0, len);
}

// The default cblas_xerbla (weak): prints the reference CBLAS message and
// RETURNS (reference CBLAS calls exit(-1)). Our cblas_ routines pass the
// position in the cblas_ call (already adjusted for row-major).
__attribute__((weak, visibility("default"))) void cblas_xerbla(int p, const char* rout,
                                                               const char* form, ...) {
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p,
               rout != nullptr ? rout : "");
  if (form != nullptr) {
    va_list args;
    va_start(args, form);
    std::vfprintf(stderr, form, args);
    va_end(args);
  }
}

}  // extern "C"
