// lapack_route.hpp - for `exala run`: which liblapack.so.3 a program will
// load, and whether that LAPACK calls its BLAS (dgemm_, dtrsm_, ...) through
// the dynamic linker, where LD_PRELOAD=libexala_blas.so serves the calls, or
// bypasses it (OpenBLAS's own LAPACK calls OpenBLAS's kernels directly; a
// library that defines dgemm_ itself binds to its own copy).
//
// The decision reads the library's ELF dynamic section only (no dlopen: the
// library's constructors, e.g. OpenBLAS's thread pool, never run in the tool).
#pragma once

#include <string>
#include <vector>

namespace exala::cli {

// The dynamic section of a 64-bit little-endian ELF file: DT_NEEDED names and
// the dynamic symbols it defines and the ones it imports (undefined).
struct elf_dynamic {
  std::vector<std::string> needed;
  std::vector<std::string> defined;
  std::vector<std::string> undefined;

  bool defines(const std::string& name) const;
  bool imports(const std::string& name) const;
};

// Reads `path` (links followed). Throws exala::error naming the file when it
// cannot be read or is not a 64-bit little-endian ELF file with a dynamic
// symbol table.
elf_dynamic read_elf_dynamic(const std::string& path);

// How a LAPACK library calls its BLAS.
enum class lapack_route {
  dynamic_blas,  // imports dgemm_ and is not OpenBLAS's: the preload serves its BLAS calls
  bundled_blas,  // defines dgemm_ itself (libopenblas.so, MKL's libmkl_rt): calls stay inside
  openblas,      // OpenBLAS's LAPACK (needs libopenblas / its internal symbols): its dgetrf,
                 // dpotrf, dgesv, dposv, ... call OpenBLAS's kernels directly
  no_blas_calls  // does not import dgemm_ at all
};

struct lapack_verdict {
  lapack_route route = lapack_route::dynamic_blas;
  std::string reason;  // a phrase for the one-line message, e.g. "is OpenBLAS's LAPACK (...)"
  bool bypasses() const { return route != lapack_route::dynamic_blas; }
};

// Classifies the LAPACK library at `path` (throws as read_elf_dynamic).
lapack_verdict classify_lapack(const std::string& path);

// The file `program` names as execvp would find it (a name without '/' is
// searched in `path_env`, the PATH value); empty when there is none.
std::string find_program(const std::string& program, const std::string& path_env);

// The liblapack.so.3 that `program_file` will load, links not resolved: the
// one `ldd` lists for it; else (a script, an interpreter that dlopens LAPACK
// later, e.g. python3 with numpy) the first liblapack.so.3 in the
// `ld_library_path` directories, then in /lib/<arch>, /usr/lib/<arch>,
// /lib64, /usr/lib64, /lib, /usr/lib (the dynamic linker's order for a
// dlopen from a program without RUNPATH). Empty when none is found.
std::string lapack_for(const std::string& program_file, const std::string& ld_library_path);

// The liblapack.so.3 line of `ldd` output ("\tliblapack.so.3 => /p (0x..)"):
// the path, or empty (absent, "not found").
std::string lapack_from_ldd_output(const std::string& ldd_output);

}  // namespace exala::cli
