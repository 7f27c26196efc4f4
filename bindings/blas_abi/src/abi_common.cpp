// abi_common.cpp - environment, error reporting (the handler lookup) and the
// ExaLA-specific symbols of libexala_blas.so (exala_blas_abi_next,
// exala_blas_abi_version).
#include "abi_common.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

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
    } else if (s == "cuda") {
      // The drop-in library does not carry the CUDA code (it would put the
      // CUDA runtime's start-up into every BLAS client; loading it lazily is
      // issue 20): same bits on the host.
      std::fprintf(stderr,
                   "libexala_blas: EXALA_BACKEND='%s': the drop-in library does not load the CUDA "
                   "engine; using simd (same bits)\n", v);
    } else {
      std::fprintf(stderr,
                   "libexala_blas: EXALA_BACKEND='%s' is not one of reference|simd|omp|cuda; "
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
    for (kernel_set k : {kernel_set::avx512, kernel_set::avx2, kernel_set::generic}) {
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
//
// The library defines no xerbla_ and no cblas_xerbla (it used to define weak
// defaults: under LD_PRELOAD they then sat in the global scope ahead of every
// handler of a dlopen(RTLD_LOCAL) module, such as numpy's extension modules,
// and the system LAPACK's errors reached ours instead of the module's). It
// only refers to them weakly (see handler_link_hints below), and looks the
// handler up when an error happens.

// The link map of the object that contains address p, or nullptr.
link_map* object_of(const void* p) {
  Dl_info info{};
  link_map* map = nullptr;
  if (p == nullptr || dladdr1(p, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0)
    return nullptr;
  return map;
}

// A dlopen handle whose dlsym searches `map` first and then its
// dependencies (for the main program: the global scope, which begins with
// it), or nullptr. The caller dlcloses it.
void* handle_of(link_map* map) {
  if (map == nullptr) return nullptr;
  void* main_program = dlopen(nullptr, RTLD_LAZY);
  link_map* main_map = nullptr;
  if (main_program != nullptr && dlinfo(main_program, RTLD_DI_LINKMAP, &main_map) == 0 &&
      main_map == map)
    return main_program;
  if (main_program != nullptr) dlclose(main_program);
  if (map->l_name == nullptr || map->l_name[0] == '\0') return nullptr;
  void* h = dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD);  // already loaded: no new load
  link_map* opened = nullptr;
  if (h != nullptr && (dlinfo(h, RTLD_DI_LINKMAP, &opened) != 0 || opened != map)) {
    dlclose(h);
    return nullptr;
  }
  return h;
}

// True when the object holding handler p itself defines a BLAS, CBLAS or
// LAPACK routine: p is then that library's default handler (reference
// XERBLA and LAPACK's XERBLA STOP, the cblas_xerbla of the reference CBLAS
// and of libopenblas call exit, OpenBLAS's xerbla_ prints to stdout), not
// the program's. This is a property of the handler's own object, so a
// wrapper library that forwards the BLAS routines to another one (Debian's
// OpenBLAS libblas.so.3, whose cblas_xerbla is libopenblas's) is classified
// correctly.
bool in_blas_library(void* p) {
  link_map* map = object_of(p);
  void* h = handle_of(map);
  if (h == nullptr) return false;
  bool blas = false;
  for (const char* marker : {"dgemm_", "cblas_dgemm", "dgetrf_"}) {
    void* q = dlsym(h, marker);
    if (q != nullptr && object_of(q) == map) blas = true;
  }
  dlclose(h);
  return blas;
}

// The first definition of `name` in the global scope, else in the calling
// object's own dependency tree (the scope a dlopen(RTLD_LOCAL) module's own
// references see after the global one), or nullptr. With skip_blas, a
// definition that belongs to a BLAS library (in_blas_library) is passed
// over.
void* find_symbol(const char* name, const void* caller, bool skip_blas) {
  void* p = dlsym(RTLD_DEFAULT, name);
  if (p != nullptr && !(skip_blas && in_blas_library(p))) return p;
  if (void* h = handle_of(object_of(caller))) {
    p = dlsym(h, name);
    dlclose(h);  // p's object stays loaded: it was before this handle was opened
    if (p != nullptr && !(skip_blas && in_blas_library(p))) return p;
  }
  return nullptr;
}

using xerbla_fn = void (*)(const char*, const int*, std::size_t);
using cblas_xerbla_fn = void (*)(int, const char*, const char*, ...);

void print_xerbla(const char* srname, int info) {
  // The reference's message (its XERBLA then STOPs; we return).
  std::fprintf(stderr, " ** On entry to %.6s parameter number %2d had an illegal value\n",
               srname != nullptr ? srname : "", info);
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

void report_xerbla(const char* srname, int info, const void* caller) {
  if (auto f = reinterpret_cast<xerbla_fn>(find_symbol("xerbla_", caller, true))) {
    f(srname, &info, 6);
    return;
  }
  print_xerbla(srname, info);
}

void report_cblas(const cblas_error& e, const void* caller) {
  auto f = reinterpret_cast<cblas_xerbla_fn>(find_symbol("cblas_xerbla", caller, true));
  if (f == nullptr) {
    // The reference cblas_xerbla's message, with the position in the cblas_
    // call (the reference then calls exit; we return).
    std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", e.position, e.rout);
    if (e.has_value) std::fprintf(stderr, e.form, e.value);
    return;
  }
  // Netlib's CBLAS sets RowMajorStrg for the duration of each call; a
  // handler written for it reads the flag to map e.netlib. Set it where it
  // exists (it is restored after a handler that returns; one that does not
  // return leaves it set, as Netlib's own routines do).
  int* row_flag = static_cast<int*>(find_symbol("RowMajorStrg", caller, false));
  const int saved = row_flag != nullptr ? *row_flag : 0;
  if (row_flag != nullptr) *row_flag = e.row_major ? 1 : 0;
  if (e.has_value) f(e.netlib, e.rout, e.form, e.value);
  else f(e.netlib, e.rout, e.form);
  if (row_flag != nullptr) *row_flag = saved;
}

void report_failure(const char* routine, const char* what) noexcept {
  std::fprintf(stderr, "libexala_blas: %s failed: %s; its output was set to NaN\n", routine,
               what != nullptr ? what : "");
}

// ------------------------------------------------------------ served-call counters

bool counting = false;

namespace {
std::atomic<call_counter*> counter_list{nullptr};
}  // namespace

call_counter::call_counter(const char* routine) noexcept : name(routine) {
  call_counter* head = counter_list.load(std::memory_order_relaxed);
  do {
    next = head;
  } while (!counter_list.compare_exchange_weak(head, this, std::memory_order_release,
                                               std::memory_order_relaxed));
}

namespace {

// Where the report goes, read once when the library is loaded (so that a
// program that edits its environment later does not change it):
// EXALA_BLAS_VERBOSE=1 prints it to stderr; EXALA_BLAS_REPORT=FILE appends it
// to FILE (one write per process, so that the reports of several processes,
// e.g. a shell script's commands, do not interleave).
struct report_settings {
  bool to_stderr = false;
  std::string file;
};

report_settings& settings() {
  static report_settings s;
  return s;
}

__attribute__((constructor)) void read_report_settings() {
  report_settings& s = settings();
  if (const char* v = env_value("EXALA_BLAS_VERBOSE")) {
    const std::string_view text(v);
    if (text == "1") s.to_stderr = true;
    else if (text != "0")
      std::fprintf(stderr, "libexala_blas: EXALA_BLAS_VERBOSE='%s' is not 0 or 1; using 0\n", v);
  }
  if (const char* v = env_value("EXALA_BLAS_REPORT")) s.file = v;
  counting = s.to_stderr || !s.file.empty();
}

// The report: one header line, then one line per routine that served a call
// (sorted by name), then the total, e.g.
//   libexala_blas: BLAS calls served by ExaLA (pid 4242, backend simd, threads 0)
//     routine                 calls            flops
//     dgemm_                    412    1.066667e+09
//     total                     412    1.066667e+09
// and, when nothing was served, a last line saying where the calls went.
std::string served_report() {
  struct row {
    std::string name;
    std::uint64_t calls, flops;
  };
  std::vector<row> rows;
  for (call_counter* c = counter_list.load(std::memory_order_acquire); c != nullptr; c = c->next) {
    const std::uint64_t calls = c->calls.load(std::memory_order_relaxed);
    if (calls != 0) rows.push_back({c->name, calls, c->flops.load(std::memory_order_relaxed)});
  }
  std::sort(rows.begin(), rows.end(), [](const row& a, const row& b) { return a.name < b.name; });
  std::uint64_t calls = 0;
  double flops = 0.0;
  for (const row& r : rows) {
    calls += r.calls;
    flops += static_cast<double>(r.flops);
  }
  std::string out;
  char line[160];
  if (calls != 0) {
    const exec& ex = abi_exec();
    std::snprintf(line, sizeof line,
                  "libexala_blas: BLAS calls served by ExaLA (pid %ld, backend %s, threads %d)\n",
                  static_cast<long>(getpid()), std::string(to_string(ex.backend)).c_str(),
                  ex.threads);
  } else {
    std::snprintf(line, sizeof line, "libexala_blas: BLAS calls served by ExaLA (pid %ld)\n",
                  static_cast<long>(getpid()));
  }
  out += line;
  std::snprintf(line, sizeof line, "  %-16s %14s %16s\n", "routine", "calls", "flops");
  out += line;
  for (const row& r : rows) {
    std::snprintf(line, sizeof line, "  %-16s %14llu %16.6e\n", r.name.c_str(),
                  static_cast<unsigned long long>(r.calls), static_cast<double>(r.flops));
    out += line;
  }
  std::snprintf(line, sizeof line, "  %-16s %14llu %16.6e\n", "total",
                static_cast<unsigned long long>(calls), flops);
  out += line;
  if (calls == 0)
    out += "libexala_blas: no BLAS call reached this library: the program called none, or its "
           "BLAS calls stayed inside another library (OpenBLAS's own LAPACK calls its kernels "
           "directly; see 'exala run')\n";
  return out;
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

// At exit (the library's destructor: after the program's exit handlers; not
// run by _exit or a fatal signal).
__attribute__((destructor)) void print_served_report() {
  const report_settings& s = settings();
  if (!s.to_stderr && s.file.empty()) return;
  try {
    const std::string text = served_report();
    if (s.to_stderr) {
      std::fflush(stdout);  // the program's output first, as on a terminal
      write_all(STDERR_FILENO, text);
    }
    if (!s.file.empty()) {
      const int fd = ::open(s.file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
      if (fd < 0) {
        std::fprintf(stderr, "libexala_blas: cannot write the report to EXALA_BLAS_REPORT='%s': %s\n",
                     s.file.c_str(), std::strerror(errno));
        return;
      }
      write_all(fd, text);
      ::close(fd);
    }
  } catch (...) {
    // (out of memory at exit: no report)
  }
}

}  // namespace

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

// No definitions of xerbla_ and cblas_xerbla here (see "symbol lookup"),
// but weak references: a program linked with this library that defines its
// own handler gets it exported from the executable by the static linker (a
// symbol a shared library refers to goes into the executable's dynamic
// symbol table), so that dlsym can find it at run time. Unresolved, they are
// null and harmless.
// (Default visibility: a hidden undefined reference would be resolved to
// null at link time and would not reach the executable's link.)
__attribute__((weak, visibility("default"))) void xerbla_(const char* srname, const int* info,
                                                          std::size_t len);
__attribute__((weak, visibility("default"))) void cblas_xerbla(int p, const char* rout,
                                                               const char* form, ...);

}  // extern "C"

namespace {
// The references themselves (kept by `used`).
[[maybe_unused]] __attribute__((used)) void (*const handler_link_hints[])() = {
    reinterpret_cast<void (*)()>(&xerbla_), reinterpret_cast<void (*)()>(&cblas_xerbla)};
}  // namespace
