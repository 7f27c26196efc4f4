// lapack_route.cpp - see lapack_route.hpp.
#include "lapack_route.hpp"

#include <elf.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

#include "exala/error.hpp"

#ifndef EXALA_CLI_MULTIARCH
#define EXALA_CLI_MULTIARCH "x86_64-linux-gnu"
#endif

extern char** environ;

namespace exala::cli {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

[[noreturn]] void not_elf(const std::string& path, const std::string& why) {
  throw exala::error("'" + path + "' is not a readable 64-bit ELF shared library (" + why + ")");
}

// A NUL-terminated string at `off` of the string table [base, base + size).
std::string string_at(const std::string& bytes, std::uint64_t base, std::uint64_t size,
                      std::uint64_t off) {
  if (off >= size) return {};
  const char* p = bytes.data() + base + off;
  const std::size_t max = static_cast<std::size_t>(size - off);
  return std::string(p, strnlen(p, max));
}

bool is_file(const std::string& path) { return !path.empty() && access(path.c_str(), R_OK) == 0; }

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> dirs;
  std::string_view rest(list);
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    if (!dir.empty()) dirs.emplace_back(dir);  // (an empty entry would mean the cwd; skipped)
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return dirs;
}

// Runs argv (searched in PATH) with stdin closed; returns its standard
// output, or empty when it cannot run.
std::string capture(const std::vector<std::string>& args) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (rc == 0) {
    char buf[4096];
    while (true) {
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close(fds[0]);
  return out;
}

}  // namespace

bool elf_dynamic::defines(const std::string& name) const { return contains(defined, name); }
bool elf_dynamic::imports(const std::string& name) const { return contains(undefined, name); }

elf_dynamic read_elf_dynamic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw exala::error("cannot read '" + path + "': " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    not_elf(path, "no ELF header");
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    not_elf(path, "not 64-bit little-endian");
  const std::uint64_t size = bytes.size();
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      eh.e_shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr))
    not_elf(path, "bad section table");
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (eh.e_shnum > 0)
    std::memcpy(sections.data(), bytes.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
  auto in_file = [&](const Elf64_Shdr& s) {
    return s.sh_type != SHT_NOBITS && s.sh_offset <= size && s.sh_size <= size - s.sh_offset;
  };
  elf_dynamic d;
  bool have_dynsym = false;
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_DYNSYM && s.sh_type != SHT_DYNAMIC) continue;
    if (!in_file(s) || s.sh_link >= sections.size() || !in_file(sections[s.sh_link]))
      not_elf(path, "bad dynamic section");
    const Elf64_Shdr& str = sections[s.sh_link];
    if (s.sh_type == SHT_DYNSYM) {
      have_dynsym = true;
      for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        std::memcpy(&sym, bytes.data() + s.sh_offset + off, sizeof sym);
        std::string name = string_at(bytes, str.sh_offset, str.sh_size, sym.st_name);
        if (name.empty()) continue;
        (sym.st_shndx == SHN_UNDEF ? d.undefined : d.defined).push_back(std::move(name));
      }
    } else {
      for (std::uint64_t off = 0; off + sizeof(Elf64_Dyn) <= s.sh_size; off += sizeof(Elf64_Dyn)) {
        Elf64_Dyn dyn;
        std::memcpy(&dyn, bytes.data() + s.sh_offset + off, sizeof dyn);
        if (dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag == DT_NEEDED)
          d.needed.push_back(string_at(bytes, str.sh_offset, str.sh_size, dyn.d_un.d_val));
      }
    }
  }
  if (!have_dynsym) not_elf(path, "no dynamic symbol table");
  std::sort(d.defined.begin(), d.defined.end());
  std::sort(d.undefined.begin(), d.undefined.end());
  return d;
}

lapack_verdict classify_lapack(const std::string& path) {
  const elf_dynamic d = read_elf_dynamic(path);
  if (d.defines("dgemm_"))
    return {lapack_route::bundled_blas,
            "defines dgemm_ itself (a BLAS bundled with the LAPACK): its LAPACK routines call "
            "their own BLAS"};
  const bool needs_openblas = std::any_of(d.needed.begin(), d.needed.end(), [](const std::string& n) {
    return n.rfind("libopenblas", 0) == 0;
  });
  if (needs_openblas || d.imports("dgetrf_single") || d.imports("dgetrf_parallel"))
    return {lapack_route::openblas,
            "is OpenBLAS's LAPACK: its dgetrf, dpotrf, dgesv, dposv, dgetrs, dpotrs, ... call "
            "OpenBLAS's kernels directly"};
  if (!d.imports("dgemm_"))
    return {lapack_route::no_blas_calls, "does not call dgemm_ through the dynamic linker"};
  return {lapack_route::dynamic_blas, "calls its BLAS through the dynamic linker"};
}

std::string find_program(const std::string& program, const std::string& path_env) {
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) return is_file(program) ? program : std::string();
  for (const std::string& dir : split_path_list(path_env)) {
    const std::string file = dir + "/" + program;
    if (access(file.c_str(), X_OK) == 0) return file;
  }
  return {};
}

std::string lapack_from_ldd_output(const std::string& ldd_output) {
  std::istringstream lines(ldd_output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, arrow, file;
    if (!(words >> name >> arrow >> file)) continue;
    if (name == "liblapack.so.3" && arrow == "=>" && file.front() == '/') return file;
  }
  return {};
}

std::string lapack_for(const std::string& program_file, const std::string& ld_library_path) {
  if (!program_file.empty()) {
    const std::string from_ldd = lapack_from_ldd_output(capture({"ldd", program_file}));
    if (!from_ldd.empty()) return from_ldd;
  }
  std::vector<std::string> dirs = split_path_list(ld_library_path);
  for (const char* d : {"/lib/" EXALA_CLI_MULTIARCH, "/usr/lib/" EXALA_CLI_MULTIARCH, "/lib64",
                        "/usr/lib64", "/lib", "/usr/lib"})
    dirs.emplace_back(d);
  for (const std::string& dir : dirs) {
    const std::string file = dir + "/liblapack.so.3";
    if (is_file(file)) return file;
  }
  return {};
}

}  // namespace exala::cli
