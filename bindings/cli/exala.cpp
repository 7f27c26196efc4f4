// exala.cpp - the `exala` command-line tool: exact, correctly rounded
// reductions, products and triangular solves of Matrix Market array files.
//
//   exala sum FILE | asum FILE | dot X Y
//   exala gemv A X [--trans N|T] [--alpha a] [--beta b] [--y Y]
//   exala gemm A B [--transa N|T] [--transb N|T] [--alpha a] [--beta b] [--c C]
//   exala trsv T B [--uplo L|U] [--trans N|T] [--diag N|U]
//                  [--method exact|refined|compensated|double-double|naive]
//   exala generate trsv --n N --cond C [--seed S] -o DIR
//   exala generate dense --n N [--seed S] --workdir DIR [--stripe S] [--cond C]
//                        [--nrhs K] [--force]
//   exala import A B --workdir DIR [--stripe S] [--buffer SIZE] [--force]
//   exala solve A B | --workdir DIR [--cache SIZE] [stripe LU options]
//   exala export matrix|rhs|solution|reference --workdir DIR [-o FILE] [--buffer SIZE]
//   exala devices                     (the OpenCL devices, for --device)
//   exala run [--backend B] [--threads N] [--report] -- PROGRAM [ARGS...]
//   exala blas-check [--backend B] [--threads N] -- PROGRAM [ARGS...]
//                                     (PROGRAM under LD_PRELOAD=libexala_blas.so)
//   common options: [--backend B] [--device SPEC] [--threads N] [--rounding R] [-o FILE]
//   mpirun -np P exala sum|asum|dot|gemv|trsv|solve ... --backend mpi [--local-backend B]
//
// Commands live in one table (name, operands, summary, function, and the
// function of its --backend mpi form, if it has one), and the
// options that belong to some commands only in a second table (name, value,
// the commands that take it); adding a command means adding a function and
// rows (the stripe LU commands live in stripe_commands.cpp). Options may come
// before or after the operands; an option given twice takes its last value
// (--workdir keeps them all: several disks). A scalar result is printed on one line with 17
// significant digits (it reads back to the same bits); a matrix result, or
// any result with -o, is written as a Matrix Market array file (17 digits,
// so it reads back bit for bit). Every error, from the command line, a file
// or the library, is reported as one line 'exala: error: ...' on stderr with
// exit status 2; every option value is checked before any file is read.
//
// --backend mpi (mpi_commands.cpp): the program initializes MPI only then,
// every rank reads its part of the files and works on it with the local
// backend (--local-backend), and rank 0 alone writes the result (and the
// one error line); the bits are the single-process command's.
//
// The parts: this file (the command table, the stripe LU, devices and program
// commands, main), options.cpp (the option tables, the parser, the help),
// blas_commands.cpp (sum ... trsv); cli.hpp holds what they share.
#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <unistd.h>  // execvp

#include "exala/backend.hpp"
#ifdef EXALA_CLI_HAVE_OPENCL
#include "exala/opencl.hpp"  // registers the opencl backend
#endif
#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/error.hpp"
#include "exala/solvers.hpp"
#include "lapack_route.hpp"
#include "matrix_market.hpp"
#include "mpi_commands.hpp"
#include "stripe_commands.hpp"
#include "cli.hpp"

#ifndef EXALA_VERSION
#error "EXALA_VERSION must be defined by the build (PROJECT_VERSION)"
#endif

namespace exala::cli {

namespace {

constexpr int exit_ok = 0;
constexpr int exit_error = 2;
constexpr std::int64_t max_generate_n = 20000;  // 3.2 GB for T: beyond, ask the library directly

// The options that belong to --backend mpi (the commands that run with it
// have an MPI form in the command table).
constexpr std::array<std::string_view, 2> mpi_only_options{"--block", "--rank-workdir"};

// ---- the stripe LU commands (stripe_commands.cpp) ----

// The command line as the stripe commands see it; they take neither
// --backend nor --rounding (the stripe LU has its own engine, and rounds to
// nearest).
exala::cli::stripe_request stripe_request_of(const invocation& inv, const std::string& what) {
  if (inv.backend_given && !(inv.mpi && what == "solve"))
    throw usage_error("option '--backend' does not apply to '" + what + "'");
  if (inv.rounding_given)
    throw usage_error("option '--rounding' does not apply to '" + what + "'");
  return {inv.command_name, inv.args, inv.named, inv.output, inv.threads_given ? inv.ex.threads : 0};
}

result run_import(const invocation& inv) {
  exala::cli::import_system(stripe_request_of(inv, "import"));
  return result::nothing();
}

result run_export(const invocation& inv) {
  exala::cli::export_system(stripe_request_of(inv, "export"));
  return result::nothing();
}

result run_solve(const invocation& inv) {
  const exala::cli::stripe_request request = stripe_request_of(inv, "solve");
  exala::cli::solution x = exala::cli::solve(request);
  return result::of_matrix(x.rows, x.cols, std::move(x.values));
}

result run_solve_mpi(const invocation& inv) {
  const exala::cli::stripe_request request = stripe_request_of(inv, "solve");
  if (inv.local_backend_given)
    throw usage_error("option '--local-backend' does not apply to 'solve' (the stripe LU has "
                      "its own engine, --engine)");
  exala::cli::solution x = exala::cli::mpi_solve(*inv.session, request);
  return result::of_matrix(x.rows, x.cols, std::move(x.values));
}

// generate trsv: DIR/T.mtx, DIR/b.mtx and (with MPFR) DIR/x_exact.mtx of an
// ill-conditioned lower-triangular system. generate dense: a random system
// written to stripe files (stripe_commands.cpp).
result run_generate(const invocation& inv) {
  if (inv.args[0] == "dense") {
    exala::cli::generate_dense(stripe_request_of(inv, "generate dense"));
    return result::nothing();
  }
  if (inv.args[0] != "trsv")
    throw usage_error("generate: unknown problem " + quote_value(inv.args[0]) +
                      " (expected trsv|dense)");
  for (const std::string_view name : {"--workdir", "--stripe", "--nrhs", "--force", "--quiet"})
    if (inv.named.has(name))
      throw usage_error("option '" + std::string(name) +
                        "' does not apply to 'generate trsv' (see 'exala --help')");
  const auto n_text = inv.get("--n");
  if (!n_text) throw usage_error("generate trsv needs '--n N'");
  const auto n = static_cast<std::int64_t>(parse_count_option(
      "--n", *n_text, 1, max_generate_n,
      "an integer from 1 to " + std::to_string(max_generate_n)));
  const auto cond_text = inv.get("--cond");
  if (!cond_text) throw usage_error("generate trsv needs '--cond C'");
  const double cond = parse_real_option("--cond", *cond_text);
  if (!(cond >= 1.0) || std::isinf(cond))
    throw usage_error("option '--cond' needs a finite number >= 1, got " + quote_value(*cond_text));
  std::uint64_t seed = 1;
  if (const auto s = inv.get("--seed"))
    seed = parse_count_option("--seed", *s, 0, UINT64_MAX, "a non-negative integer");
  if (inv.output.empty()) throw usage_error("generate trsv needs '-o DIR'");
  if (inv.rounding_given) throw usage_error("option '--rounding' does not apply to 'generate'");

  const std::string& dir = inv.output;
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw exala::io::file_error(dir, 0, "exists and is not a directory");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw exala::io::file_error(dir, 0, "cannot create directory: " + ec.message());

  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, cond, seed);
  // T is row-major; the file is column-major.
  std::vector<double> tcol = exala::io::zero_values("generate trsv: T", n, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      tcol[static_cast<std::size_t>(i + j * n)] = p.t[static_cast<std::size_t>(i * n + j)];
  const std::filesystem::path base(dir);
  const std::filesystem::path xfile = base / "x_exact.mtx";
  std::vector<double> x;
  bool have_x = true;
  try {
    x = exala::trsv_mpfr_solution(exala::layout::row_major, exala::uplo::lower,
                                  exala::transpose::none, exala::diag::non_unit, n, p.t.data(), n,
                                  p.b.data(), 1);
  } catch (const exala::not_compiled_in&) {
    have_x = false;
  }
  // The files of one system are replaced together: every one is written and
  // synced first, so a full disk keeps the whole previous system.
  std::vector<exala::io::array_file> files{{(base / "T.mtx").string(), n, n, tcol},
                                           {(base / "b.mtx").string(), n, 1, p.b}};
  if (have_x) files.push_back({xfile.string(), n, 1, x});
  exala::io::write_array_files(files, [&] {
    if (!have_x) std::filesystem::remove(xfile, ec);  // never a stale one beside new T and b
  });
  if (!have_x)
    std::cerr << "exala: note: MPFR is not compiled in: " << exala::io::printable(xfile.string(), 4096)
              << " not written\n";
  return result::nothing();
}

// exala devices: one line per OpenCL device, "P:D  platform / device  (...)".
result run_devices(const invocation& inv) {
  if (inv.backend_given || inv.rounding_given || inv.threads_given || inv.device_given ||
      !inv.output.empty())
    throw usage_error("'devices' takes no options");
#ifdef EXALA_CLI_HAVE_OPENCL
  const auto all = exala::opencl::devices();
  if (all.empty()) std::cout << "no OpenCL platform or device found\n";
  for (const auto& d : all)
    std::cout << d.platform_index << ':' << d.device_index << "  " << d.platform << " / " << d.name
              << "  (" << d.version << "; " << (d.gpu ? "GPU" : "not a GPU") << ", "
              << d.compute_units << " compute units, " << (d.global_mem >> 20) << " MiB; "
              << (d.fp64 && d.int64_atomics ? "usable" : "not usable: needs fp64 and 64-bit atomics")
              << ")\n";
  std::cout.flush();
  if (!std::cout) throw exala::error("cannot write to standard output");
  return result::nothing();
#else
  throw exala::not_compiled_in("the opencl backend (exala devices)");
#endif
}

// ---- run, blas-check: a program under LD_PRELOAD=libexala_blas.so ----

// The drop-in library of this installation or build tree: EXALA_BLAS_LIBRARY
// when set, else EXALA_CLI_BLAS_ABI_FILE (libexala_blas.so.X.Y.Z) beside this
// executable's directory, as installed (BINDIR/EXALA_CLI_BIN_TO_LIB) or as
// built (bin/../lib).
std::string blas_abi_library() {
  if (const char* v = std::getenv("EXALA_BLAS_LIBRARY"); v != nullptr && *v != '\0') {
    if (access(v, R_OK) != 0)
      throw exala::error("run: EXALA_BLAS_LIBRARY='" + exala::io::printable(v) +
                         "' is not a readable file");
    return v;
  }
#ifdef EXALA_CLI_BLAS_ABI_FILE
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::string tried;
  if (!ec) {
    for (const char* rel : {EXALA_CLI_BIN_TO_LIB, "../lib"}) {
      const std::filesystem::path p = exe.parent_path() / rel / EXALA_CLI_BLAS_ABI_FILE;
      if (std::filesystem::exists(p, ec))
        return std::filesystem::weakly_canonical(p, ec).string();
      tried += (tried.empty() ? "" : ", ") + p.lexically_normal().string();
    }
  }
  throw exala::error("run: cannot find the drop-in library (tried " + tried +
                     "); set EXALA_BLAS_LIBRARY to its path");
#else
  throw exala::not_compiled_in("the drop-in BLAS library libexala_blas.so (exala run)");
#endif
}

std::string env_or(const char* name, const std::string& fallback = {}) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : fallback;
}

void set_env(const char* name, const std::string& value, std::string& changes) {
  if (setenv(name, value.c_str(), 1) != 0) throw exala::error(std::string("cannot set ") + name);
  changes += std::string(changes.empty() ? "" : ", ") + name + "=" + value;
}

// exala run / blas-check: sets LD_PRELOAD (and the drop-in library's
// variables), puts the reference LAPACK first in LD_LIBRARY_PATH when the
// program's liblapack.so.3 would bypass the preload, says so in one line on
// stderr and replaces itself with the program (execvp). Returns only by
// throwing.
result run_program_common(const invocation& inv, bool report) {
  const std::string& what = inv.command_name;
  if (inv.rounding_given) throw usage_error("option '--rounding' does not apply to '" + what + "'");
  if (inv.device_given || inv.ex.backend == exala::backend::opencl || inv.ex.backend == exala::backend::cuda)
    throw usage_error("'" + what + "' runs the drop-in library's backends reference|simd|omp");
  if (!inv.output.empty()) throw usage_error("option '-o' does not apply to '" + what + "'");
  if (inv.args.empty())
    throw usage_error(what + " needs a program (exala " + what +
                      " [--backend B] [--threads N] -- PROGRAM [ARGS...])");
  const std::string& program = inv.args[0];
  const std::string program_file = exala::cli::find_program(program, env_or("PATH"));
  if (program_file.empty())
    throw exala::error(what + ": program '" + exala::io::printable(program) + "' not found");

  const std::string lib = blas_abi_library();
  std::string changes;
  const std::string preload = env_or("LD_PRELOAD");
  if (preload.find(lib) == std::string::npos)
    set_env("LD_PRELOAD", preload.empty() ? lib : lib + ":" + preload, changes);
  const bool omp = inv.ex.backend == exala::backend::omp ||
                   (!inv.backend_given && inv.threads_given && inv.ex.threads > 1);
  if (inv.backend_given || omp)
    set_env("EXALA_BACKEND", std::string(omp ? "omp" : exala::to_string(inv.ex.backend)), changes);
  if (inv.threads_given) set_env("EXALA_NUM_THREADS", std::to_string(inv.ex.threads), changes);
  // Idle OpenMP workers that spin take a core from LAPACK's sequential code
  // between the BLAS calls (7-10x slower on 2 cores; bench/README.md).
  if (omp && std::getenv("OMP_WAIT_POLICY") == nullptr)
    set_env("OMP_WAIT_POLICY", "passive", changes);
  if (report) set_env("EXALA_BLAS_VERBOSE", "1", changes);

  // The LAPACK the program will load, and whether its BLAS calls reach us.
  std::string lapack_note;
  bool warn = false;
  const std::string ld_path = env_or("LD_LIBRARY_PATH");
  const std::string lapack = exala::cli::lapack_for(program_file, ld_path);
  if (lapack.empty()) {
    lapack_note = "no liblapack.so.3 found for " + program;
  } else {
    std::error_code ec;
    const std::string real = std::filesystem::canonical(lapack, ec).string();
    const std::string shown = lapack + (ec || real == lapack ? "" : " (" + real + ")");
    try {
      const exala::cli::lapack_verdict v = exala::cli::classify_lapack(lapack);
      lapack_note = shown + " " + v.reason;
      if (v.bypasses()) {
        const std::string ref = env_or("EXALA_REFERENCE_LAPACK_DIR", EXALA_CLI_REFERENCE_LAPACK_DIR);
        bool usable = false;
        try {
          usable = !exala::cli::classify_lapack(ref + "/liblapack.so.3").bypasses();
        } catch (const exala::error&) {
        }
        if (usable) {
          set_env("LD_LIBRARY_PATH", ld_path.empty() ? ref : ref + ":" + ld_path, changes);
          lapack_note += "; the reference LAPACK in " + ref +
                         " comes first instead (it calls its BLAS through the dynamic linker)";
        } else {
          warn = true;
          lapack_note += "; LAPACK factorizations will bypass ExaLA: no reference LAPACK in " + ref +
                         " (Debian: apt-get install liblapack3)";
        }
      }
    } catch (const exala::error& e) {
      lapack_note = "cannot inspect " + shown + ": " + e.what();
    }
  }
  if (changes.empty()) changes = "LD_PRELOAD already has " + lib;
  std::cerr << "exala: " << what << ": " << (warn ? "warning: " : "") << changes << "; "
            << lapack_note << '\n';
  std::cerr.flush();
  std::cout.flush();
  std::vector<char*> argv;
  for (const std::string& a : inv.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  throw exala::error(what + ": cannot run '" + exala::io::printable(program) +
                     "': " + std::strerror(errno));
}

result run_program(const invocation& inv) {
  return run_program_common(inv, inv.named.has("--report"));
}
result run_blas_check(const invocation& inv) { return run_program_common(inv, true); }

constexpr std::array commands{
    command{"sum", "FILE", 1, "the sum of all entries of FILE, correctly rounded", run_sum,
            run_scalar_mpi},
    command{"asum", "FILE", 1, "the sum of |entries| of FILE, correctly rounded", run_asum,
            run_scalar_mpi},
    command{"dot", "X Y", 2, "the dot product of the entries of X and Y, correctly rounded",
            run_dot, run_scalar_mpi},
    command{"gemv", "A X", 2, "alpha op(A) x + beta y, each entry correctly rounded", run_gemv,
            run_gemv_mpi},
    command{"gemm", "A B", 2, "alpha op(A) op(B) + beta C, each entry correctly rounded",
            run_gemm, nullptr},
    command{"trsv", "T B", 2, "the solution x of op(T) x = b (T triangular)", run_trsv,
            run_trsv_mpi},
    command{"generate", "trsv|dense", 1,
            "a test system: trsv: -o DIR gets T.mtx, b.mtx, x_exact.mtx; dense: a random "
            "system in --workdir stripe files",
            run_generate, nullptr, true},
    command{"import", "A B", 2,
            "the system A x = B (Matrix Market files) into --workdir stripe files", run_import,
            nullptr},
    command{"solve", "[A B]", any_arity,
            "the solution X of A X = B by the stripe LU: in core (A B), or out of core from "
            "--workdir",
            run_solve, run_solve_mpi},
    command{"export", "matrix|rhs|solution|reference", 1,
            "a part of the system stored in --workdir (A, B, the solution of the last solve "
            "--workdir, or generate dense's reference solution) as a Matrix Market array "
            "file, every bit kept",
            run_export, nullptr, true},
    command{"devices", "", 0, "list the OpenCL devices (for --backend opencl --device SPEC)",
            run_devices, nullptr},
    command{"run", "-- PROGRAM [ARGS...]", any_arity,
            "run PROGRAM with its BLAS calls served by ExaLA (LD_PRELOAD=libexala_blas.so; "
            "the reference LAPACK first when its own LAPACK would bypass the preload)",
            run_program, nullptr},
    command{"blas-check", "-- PROGRAM [ARGS...]", any_arity,
            "run PROGRAM as 'run' does and print at its exit which BLAS calls ExaLA served",
            run_blas_check, nullptr},
};

// "sum, asum, dot, gemv, trsv and solve": the commands that have an MPI form.
std::string mpi_command_text() {
  std::vector<std::string_view> names;
  for (const command& c : commands)
    if (c.run_mpi != nullptr) names.push_back(c.name);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string(names[i]);
  return text;
}

}  // namespace

std::span<const command> command_list() { return commands; }

// Commands whose first operand is a program: the options end there.
bool runs_program(std::string_view name) { return name == "run" || name == "blas-check"; }

const command* find_command(std::string_view name) {
  const auto it = std::find_if(commands.begin(), commands.end(),
                               [name](const command& c) { return c.name == name; });
  return it == commands.end() ? nullptr : &*it;
}

namespace {

// ---- output ----

void flush_stdout() {
  std::cout.flush();
  if (!std::cout) throw exala::error("cannot write to standard output");
}

// -o FILE: replaced atomically (write_array_file); "-" is standard output.
void write_result(const result& r, const std::string& output) {
  if (r.k == result::kind::none) return;
  if (!output.empty()) {
    exala::io::write_array_file(output, r.rows, r.cols, r.values);
  } else if (r.k == result::kind::scalar) {
    std::cout << exala::io::format_real(r.values[0]) << '\n';
  } else {
    exala::io::write_array(std::cout, r.rows, r.cols, r.values);
  }
  flush_stdout();
}

// The library's messages start with "exala: "; the error line already does.
std::string without_prefix(std::string_view what) {
  if (what.starts_with("exala: ")) what.remove_prefix(7);
  return std::string(what);
}

// --device SPEC: makes the device current (before any file is read).
void select_device(const invocation& inv) {
  if (inv.ex.backend != exala::backend::opencl)
    throw usage_error("option '--device' applies to '--backend opencl' only");
#ifdef EXALA_CLI_HAVE_OPENCL
  try {
    exala::opencl::select_device(inv.device);
  } catch (const exala::invalid_argument& e) {  // names the spec and lists the devices
    throw usage_error("option '--device': " + without_prefix(e.what()).substr(
                                                  std::string_view("argument 'spec' ").size()));
  }
#else
  throw exala::not_compiled_in("backend 'opencl'");
#endif
}

// `session`: MPI, when main initialized it for --backend mpi; rank 0 alone
// writes (help, version, the result).
int run(std::span<char* const> argv, exala::cli::mpi_session* session, bool root) {
  invocation parsed = parse_command_line(argv);
  parsed.session = session;
  if (session) session->set_output(parsed.output);  // compared by the ranks' first agreement
  const invocation& inv = parsed;
  if (inv.version) {
    if (!root) return exit_ok;
    std::cout << "exala " << EXALA_VERSION << '\n';
    flush_stdout();
    return exit_ok;
  }
  if (inv.help || inv.command_name == "help") {
    if (!root) return exit_ok;
    print_help(std::cout);
    flush_stdout();
    return exit_ok;
  }
  if (inv.command_name.empty()) throw usage_error("no command given (see 'exala --help')");
  const command* cmd = find_command(inv.command_name);
  if (cmd == nullptr)
    throw usage_error("unknown command '" + exala::io::printable(inv.command_name) +
                      "' (see 'exala --help')");
  for (const std::string& name : inv.named.names())
    if (!applies_to(*find_command_option(name), cmd->name))
      throw usage_error("option '" + name + "' does not apply to '" + std::string(cmd->name) +
                        "' (see 'exala --help')");
  if (cmd->arity != any_arity && inv.args.size() != cmd->arity)
    throw usage_error(std::string(cmd->name) + " needs " + std::to_string(cmd->arity) + " operand" +
                      (cmd->arity == 1 ? "" : "s") + " (exala " + std::string(cmd->name) + " " +
                      std::string(cmd->usage) + "), got " + std::to_string(inv.args.size()));
  if (inv.mpi && cmd->run_mpi == nullptr)
    throw usage_error("option '--backend mpi' does not apply to '" + std::string(cmd->name) +
                      "' (it runs " + mpi_command_text() + ")");
  for (const std::string_view name : mpi_only_options)
    if (inv.named.has(name) && !inv.mpi)
      throw usage_error("option '" + std::string(name) + "' applies to '--backend mpi' only");
  if (inv.mpi && session == nullptr)
    throw exala::error("--backend mpi: MPI was not initialized");  // (mpi_requested disagrees)
  if (inv.device_given) select_device(inv);
  const result r = inv.mpi ? cmd->run_mpi(inv) : cmd->run(inv);
  if (root) write_result(r, cmd->output_is_dir ? std::string() : inv.output);
  return exit_ok;
}

// The error line of an exception (after 'exala: error: ').
std::string error_line(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const exala::error& e) {
    return without_prefix(e.what());
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown failure";
  }
}

}  // namespace
}  // namespace exala::cli

int main(int argc, char** argv) {
  std::exception_ptr failure;
  // MPI only for --backend mpi; MPI_Finalize when `session` goes, after the
  // error line.
  std::unique_ptr<exala::cli::mpi_session> session;
  try {
    exala::cli::mpi_session* mpi = nullptr;
    bool root = true;
    if (exala::cli::mpi_compiled_in() &&
        exala::cli::mpi_requested(std::span<char* const>(argv, static_cast<std::size_t>(argc)))) {
      session = std::make_unique<exala::cli::mpi_session>(&argc, &argv);
      mpi = session.get();
      root = session->root();
    }
    return exala::cli::run(std::span<char* const>(argv, static_cast<std::size_t>(argc)), mpi, root);
  } catch (...) {
    failure = std::current_exception();
  }
  std::string line;
  if (session)
    line = session->settle(failure);  // rank 0's line; empty on the others
  else
    line = exala::cli::error_line(failure);
  if (!line.empty()) std::cerr << "exala: error: " << line << '\n';
  return exala::cli::exit_error;
}
