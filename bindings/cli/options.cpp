// options.cpp - the `exala` tool's option tables, its command line parser
// and the help generated from the tables (the tool: exala.cpp).
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "cli.hpp"
#include "exala/backend.hpp"
#include "exala/blas2.hpp"
#include "exala/error.hpp"
#include "matrix_market.hpp"
#include "mpi_commands.hpp"
#include "stripe_commands.hpp"

namespace exala::cli {

// ---- option values ----

// (Appended piece by piece: GCC 12 warns, wrongly, that "'" + a temporary
// string may overlap itself (-Wrestrict, GCC bug 105651).)
std::string quote_value(std::string_view value) {
  std::string q = "'";
  q += exala::io::printable(value);
  q += '\'';
  return q;
}

// A real number written as in the files (decimal, hex float, inf, nan).
double parse_real_option(std::string_view name, std::string_view value) {
  const std::optional<double> v = exala::io::parse_real(value);
  if (!v)
    throw usage_error("option '" + std::string(name) + "' needs a real number, got " +
                      quote_value(value));
  return *v;
}

exala::transpose parse_transpose(std::string_view name, std::string_view value) {
  if (value == "N" || value == "n") return exala::transpose::none;
  if (value == "T" || value == "t" || value == "C" || value == "c") return exala::transpose::trans;
  throw usage_error("option '" + std::string(name) + "' has unknown value " + quote_value(value) +
                    " (expected N|T)");
}

exala::uplo parse_uplo(std::string_view value) {
  if (value == "L" || value == "l") return exala::uplo::lower;
  if (value == "U" || value == "u") return exala::uplo::upper;
  throw usage_error("option '--uplo' has unknown value " + quote_value(value) + " (expected L|U)");
}

exala::diag parse_diag(std::string_view value) {
  if (value == "N" || value == "n") return exala::diag::non_unit;
  if (value == "U" || value == "u") return exala::diag::unit;
  throw usage_error("option '--diag' has unknown value " + quote_value(value) + " (expected N|U)");
}

namespace {

struct method_name {
  std::string_view name;
  trsv_method method;
};
constexpr std::array method_names{
    method_name{"exact", trsv_method::exact},
    method_name{"refined", trsv_method::refined},
    method_name{"compensated", trsv_method::compensated},
    method_name{"double-double", trsv_method::double_double},
    method_name{"naive", trsv_method::naive},
};

}  // namespace

trsv_method parse_method(std::string_view value) {
  for (const method_name& m : method_names)
    if (m.name == value) return m.method;
  throw usage_error("option '--method' has unknown value " + quote_value(value) +
                    " (expected exact|refined|compensated|double-double|naive)");
}

// A whole decimal number in [lo, hi] (digits only).
std::uint64_t parse_count_option(std::string_view name, std::string_view value, std::uint64_t lo,
                                 std::uint64_t hi, std::string_view what) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || value[0] == '+' || ec != std::errc{} ||
      end != value.data() + value.size() || v < lo || v > hi)
    throw usage_error("option '" + std::string(name) + "' needs " + std::string(what) + ", got " +
                      quote_value(value));
  return v;
}

// ---- command options ----

namespace {

constexpr std::array command_options{
    command_option{"--trans", "N|T", "gemv trsv", "op(A) = A (N, default) or its transpose (T)"},
    command_option{"--transa", "N|T", "gemm", "op(A) = A (default) or A^T"},
    command_option{"--transb", "N|T", "gemm", "op(B) = B (default) or B^T"},
    command_option{"--alpha", "a", "gemv gemm", "scale of the product (default 1)"},
    command_option{"--beta", "b", "gemv gemm", "scale of Y or C (default 1; needs --y or --c)"},
    command_option{"--y", "Y", "gemv", "the vector y added (default: none, y = 0)"},
    command_option{"--c", "C", "gemm", "the matrix C added (default: none, C = 0)"},
    command_option{"--uplo", "L|U", "trsv", "T is lower (default) or upper triangular"},
    command_option{"--diag", "N|U", "trsv", "non-unit (default) or unit diagonal (not read)"},
    command_option{"--method", "M", "trsv",
                   "exact (default), refined, compensated, double-double, naive"},
    command_option{"--block", "NB", "trsv",
                   "--backend mpi: rows per block of the block-row cyclic distribution of T "
                   "(default 256; the bits do not depend on it)"},
    command_option{"--n", "N", "generate", "the order: trsv 1 to 20000, dense 1 to 1000000000"},
    command_option{"--cond", "C", "generate",
                   "the condition number to reach: trsv >= 1; dense 0 (default: entries "
                   "uniform in [-0.5, 0.5]) or >= 1"},
    command_option{"--seed", "S", "generate", "seed of the generator (default 1)"},
    command_option{"--nrhs", "K", "generate", "dense: right-hand sides (default 1)"},
    command_option{"--workdir", "DIR", "generate import solve export",
                   "work directory of the stripe files; several disks: repeat the option or "
                   "give a comma list (the first holds the manifest)"},
    command_option{"--stripe", "S", "generate import solve",
                   "rows per stripe (generate, import: of the stored system, default ~32 MiB "
                   "a stripe; solve: of the factorization, default chosen from n and --cache)"},
    command_option{"--force", "", "generate import",
                   "replace a system already in the work directory", arg_kind::flag},
    command_option{"--buffer", "SIZE", "import export",
                   "hold at most SIZE bytes of A in memory (default 1GiB; import: several "
                   "passes over A when it is larger; export: A read by panels of columns)"},
    command_option{"--cache", "SIZE", "solve",
                   "host cache of stripes, out of core (default: half the physical memory; "
                   "--backend mpi: a rank's, default that half shared by a node's ranks)"},
    command_option{"--substripe", "S'", "solve",
                   "rows of the substripes a pivot stripe is factored by (default min(S, 128))"},
    command_option{"--order", "O", "solve",
                   "basic|zigzag|meta-zigzag: stripe traversal (default zigzag)"},
    command_option{"--meta", "M", "solve",
                   "stripes per meta-stripe (--order meta-zigzag; default chosen)"},
    command_option{"--pivot", "P", "solve",
                   "local (default: within a substripe) or partial (ordinary partial pivoting)"},
    command_option{"--engine", "E", "solve",
                   "cpu (default: the system BLAS) or cuda (cuBLAS/cuSOLVER on the GPU, "
                   "device EXALA_CUDA_DEVICE; builds with CUDA)"},
    command_option{"--refine", "[=STEPS]", "solve",
                   "iterative refinement against the exact residual, at most STEPS (0 to 100) "
                   "steps (default: on, 10)",
                   arg_kind::optional},
    command_option{"--no-refine", "", "solve", "no refinement", arg_kind::flag},
    command_option{"--io-threads", "N", "solve", "I/O threads, 1 to 64 (default 2)"},
    command_option{"--resume", "", "solve",
                   "continue a partial run with the same parameters in the work directory "
                   "(the default)",
                   arg_kind::flag},
    command_option{"--restart", "", "solve",
                   "throw away a partial run and factor from the start", arg_kind::flag},
    command_option{"--sync", "", "solve", "fsync every file before it replaces the old one",
                   arg_kind::flag},
    command_option{"--drop-page-cache", "", "solve",
                   "drop the OS page cache of stripe files after I/O (the disk tier is real)",
                   arg_kind::flag},
    command_option{"--progress-interval", "SEC", "import solve export",
                   "seconds between progress lines when stderr is not a terminal (default 10)"},
    command_option{"--quiet", "", "generate import solve export",
                   "no progress display and no summary", arg_kind::flag},
    command_option{"--report", "", "run",
                   "print at the program's exit the BLAS calls ExaLA served (as blas-check)",
                   arg_kind::flag},
    command_option{"--rank-workdir", "PATTERN", "solve",
                   "--backend mpi, --workdir: each rank's own work directory, %r replaced by "
                   "the rank (default DIR/mpi/rank-%r, DIR the first --workdir)"},
};

}  // namespace

const command_option* find_command_option(std::string_view name) {
  const auto it = std::find_if(command_options.begin(), command_options.end(),
                               [name](const command_option& o) { return o.name == name; });
  return it == command_options.end() ? nullptr : &*it;
}

bool applies_to(const command_option& o, std::string_view command_name) {
  std::string_view rest = o.commands;
  while (!rest.empty()) {
    const std::size_t space = std::min(rest.find(' '), rest.size());
    if (rest.substr(0, space) == command_name) return true;
    rest.remove_prefix(std::min(space + 1, rest.size()));
  }
  return false;
}

// ---- common options ----

namespace {

// "reference|simd|omp (default simd)", and the ones this build lacks.
std::string backend_help() {
  std::string names, missing;
#define EXALA_CLI_NAME_(name, desc)   \
  names += names.empty() ? "" : "|"; \
  names += #name;                     \
  if (!exala::is_compiled_in(exala::backend::name)) missing += ", " #name " is not compiled in";
  EXALA_BACKENDS(EXALA_CLI_NAME_)
#undef EXALA_CLI_NAME_
  names += "|mpi";
  if (!exala::cli::mpi_compiled_in()) missing += ", mpi is not compiled in";
  return names + " (default simd" + missing + "; mpi: under mpirun, see MPI below)";
}

struct rounding_name {
  std::string_view name;
  exala::rounding mode;
};
constexpr std::array rounding_names{
    rounding_name{"nearest", exala::rounding::to_nearest_even},
    rounding_name{"zero", exala::rounding::toward_zero},
    rounding_name{"up", exala::rounding::upward},
    rounding_name{"down", exala::rounding::downward},
};

exala::rounding parse_rounding(std::string_view value) {
  for (const rounding_name& r : rounding_names)
    if (r.name == value) return r.mode;
  throw usage_error("option '--rounding' has unknown value '" + exala::io::printable(value) +
                    "' (expected nearest|zero|up|down)");
}

int parse_threads(std::string_view value) {
  int n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc{} || end != value.data() + value.size() || n < 1 || n > max_threads)
    throw usage_error("option '--threads' needs an integer from 1 to " +
                      std::to_string(max_threads) + ", got '" + exala::io::printable(value) + "'");
  return n;
}

// A backend name given to option `name`; the library's message names the
// argument, the user gave an option.
exala::backend parse_backend_option(std::string_view name, std::string_view value) {
  try {
    return exala::parse_backend(value, std::string(name));
  } catch (const exala::invalid_argument& e) {
    // "... has unknown value 'x' (expected reference|simd|...)"
    const std::string_view what = e.what();
    const std::size_t expected = what.rfind(" (expected ");
    const std::string known =
        expected == std::string_view::npos ? "" : std::string(what.substr(expected));
    throw usage_error("option '" + std::string(name) + "' has unknown value " + quote_value(value) +
                      known);
  }
}

// Splits '--name=value' into name and value.
std::pair<std::string_view, std::optional<std::string_view>> split_option(std::string_view arg) {
  const std::size_t eq = arg.find('=');
  if (!arg.starts_with("--") || eq == std::string_view::npos) return {arg, std::nullopt};
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

constexpr std::array<std::string_view, 7> valued_options{
    "--backend", "--local-backend", "--device", "--threads", "--rounding", "-o", "--output"};

bool takes_value(std::string_view name) {
  if (std::find(valued_options.begin(), valued_options.end(), name) != valued_options.end())
    return true;
  const command_option* o = find_command_option(name);
  return o != nullptr && o->kind == arg_kind::value;
}

// Applies one of the valued_options, or records a command option.
void apply_valued_option(invocation& inv, std::string_view name, std::string_view value) {
  if (find_command_option(name) != nullptr) {
    inv.named.add(name, value);
  } else if (name == "--backend") {
    inv.backend_given = true;
    inv.mpi = value == "mpi";
    if (inv.mpi) {
      if (!exala::cli::mpi_compiled_in()) throw exala::not_compiled_in("backend 'mpi'");
    } else {
      inv.ex.backend = parse_backend_option("--backend", value);
    }
  } else if (name == "--local-backend") {
    inv.local_backend = parse_backend_option("--local-backend", value);
    inv.local_backend_given = true;
  } else if (name == "--device") {
    if (value.empty()) throw usage_error("option '--device' needs a device (see 'exala devices')");
    inv.device = value;
    inv.device_given = true;
  } else if (name == "--threads") {
    inv.ex.threads = parse_threads(value);
    inv.threads_given = true;
  } else if (name == "--rounding") {
    inv.ex.mode = parse_rounding(value);
    inv.rounding_given = true;
  } else {
    if (value.empty()) throw usage_error("option '" + std::string(name) + "' needs a file name");
    inv.output = value;
  }
}

}  // namespace

// Parses the whole command line; options may appear anywhere, '--' ends them.
invocation parse_command_line(std::span<char* const> argv) {
  invocation inv;
  bool options_done = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    const bool is_option = !options_done && arg.size() > 1 && arg[0] == '-';
    if (!is_option) {
      if (inv.command_name.empty()) {
        inv.command_name = arg;
      } else {
        inv.args.emplace_back(arg);
        // run PROGRAM ARGS...: the program's arguments are its own.
        if (runs_program(inv.command_name)) options_done = true;
      }
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    const auto [name, inline_value] = split_option(arg);
    if (name == "-h" || name == "--help" || name == "--version") {
      if (inline_value) throw usage_error("option '" + std::string(name) + "' takes no value");
      (name == "--version" ? inv.version : inv.help) = true;
    } else if (takes_value(name)) {
      if (!inline_value && i + 1 == argv.size())
        throw usage_error("option '" + std::string(name) + "' needs a value");
      apply_valued_option(inv, name, inline_value ? *inline_value : std::string_view(argv[++i]));
    } else if (const command_option* o = find_command_option(name)) {
      // A flag, or an option whose value may only be given inline.
      if (o->kind == arg_kind::flag && inline_value)
        throw usage_error("option '" + std::string(name) + "' takes no value");
      if (o->kind == arg_kind::optional && inline_value && inline_value->empty())
        throw usage_error("option '" + std::string(name) + "' needs a value after '='");
      inv.named.add(name, inline_value.value_or(std::string_view()));
    } else {
      throw usage_error("unknown option '" + exala::io::printable(arg) + "' (see 'exala --help')");
    }
  }
  if (inv.local_backend_given && !inv.mpi)
    throw usage_error("option '--local-backend' applies to '--backend mpi' only");
  if (inv.mpi) inv.ex.backend = inv.local_backend;
  return inv;
}

// Whether the command line asks for --backend mpi (so that main initializes
// MPI first): the parser's answer, or for a command line it rejects, the
// last '--backend' value (so that rank 0 alone reports the mistake).
bool mpi_requested(std::span<char* const> argv) {
  try {
    return parse_command_line(argv).mpi;
  } catch (const std::exception&) {
  }
  bool mpi = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    const auto [name, inline_value] = split_option(arg);
    if (name == "--backend") {
      if (inline_value)
        mpi = *inline_value == "mpi";
      else if (i + 1 < argv.size())
        mpi = std::string_view(argv[++i]) == "mpi";
    } else if (!inline_value && takes_value(name)) {
      ++i;
    }
  }
  return mpi;
}

// ---- help ----

namespace {

// One help entry: `head` in a column of 20, then `text`, wrapped at word
// boundaries to 79 columns (continuation lines start at column 20; a head
// too long for its column gets a line of its own).
void help_line(std::ostream& os, std::string_view head, std::string_view text) {
  constexpr std::size_t indent = 20, width = 79;
  std::string line = "  " + std::string(head);
  if (line.size() >= indent) {
    os << line << '\n';
    line.clear();
  }
  line += std::string(indent - line.size(), ' ');
  const std::size_t first = line.size();
  std::size_t col = line.size();
  while (!text.empty()) {
    const std::size_t space = std::min(text.find(' '), text.size());
    const std::string_view word = text.substr(0, space);
    if (col > first && col + 1 + word.size() > width) {
      os << line << '\n';
      line = std::string(indent, ' ');
      col = indent;
    } else if (col > first) {
      line += ' ';
      ++col;
    }
    line += word;
    col += word.size();
    text.remove_prefix(std::min(space + 1, text.size()));
  }
  os << line << '\n';
}

// "--name VALUE", "--flag" or "--name[=VALUE]" for help.
std::string option_head(const command_option& o) {
  switch (o.kind) {
    case arg_kind::flag: return std::string(o.name);
    case arg_kind::optional: return std::string(o.name) + std::string(o.value);
    case arg_kind::value: break;
  }
  return std::string(o.name) + " " + std::string(o.value);
}

}  // namespace

void print_help(std::ostream& os) {
  os << "Usage: exala COMMAND [OPTIONS] OPERANDS...\n\n"
        "Exact, correctly rounded linear algebra on Matrix Market files: the result is\n"
        "the same bits on every backend and thread count. Dense systems larger than\n"
        "memory are solved out of core by the stripe LU.\n\n"
        "Commands:\n";
  for (const command& c : command_list())
    help_line(os, std::string(c.name) + " " + std::string(c.usage), c.summary);
  help_line(os, "help", "show this help");
  os << "\nCommand options (before or after the operands):\n";
  for (const command_option& o : command_options)
    help_line(os, option_head(o), std::string(o.help) + " [" + std::string(o.commands) + "]");
  os << "\nOptions (before or after the operands):\n";
  help_line(os, "--backend NAME", backend_help());
  help_line(os, "--device SPEC",
            "the OpenCL device of --backend opencl: P:D (platform and device index), P, or "
            "part of its name (see 'exala devices'; default: EXALA_OPENCL_DEVICE, else the first "
            "GPU with fp64)");
  help_line(os, "--local-backend NAME",
            "with --backend mpi: the backend of each rank's own part, reference|simd|omp|opencl|cuda "
            "(default simd; --threads and --device apply to it)");
  help_line(os, "--threads N",
            "threads of the omp backend, of the stripe LU engine (solve), and of the drop-in "
            "library (run), 1 to " +
                std::to_string(max_threads) + " (default: all)");
  help_line(os, "--rounding MODE", "nearest|zero|up|down: rounding direction of the result");
  help_line(os, "", "(default nearest, ties to even; trsv: --method exact only)");
  help_line(os, "-o, --output FILE",
            "write the result to FILE as a Matrix Market array file; FILE is replaced only "
            "once the new one is complete (the old one survives a full disk); '-' is standard "
            "output");
  help_line(os, "", "(generate trsv: the directory that gets the files)");
  help_line(os, "-h, --help", "show this help");
  help_line(os, "--version", "show the version");
  os << "\nInput files: '%%MatrixMarket matrix array real general' (or integer), a size\n"
        "line 'M N', then M*N values in column-major order. Every entry is used;\n"
        "vectors may have any shape with the right number of entries. Values may be\n"
        "decimal or hex floats (0x1p-1074), inf, -inf, nan. A file named '-' is\n"
        "standard input. import and solve also read 'matrix coordinate real|integer\n"
        "general|symmetric|skew-symmetric' files (size line 'M N NNZ', then lines\n"
        "'I J VALUE'; symmetric files store the lower triangle). Header, size and\n"
        "entry lines may have at most 1024 characters (the Matrix Market limit), and so\n"
        "may each value; array values may stand any number to a line, and comments\n"
        "may be of any length. A matrix may have at most 2^60 - 1 entries.\n\n"
        "Output: a scalar is printed on one line with 17 significant digits (it reads\n"
        "back to the same double), or inf, -inf, nan, and -0 for negative zero. A\n"
        "vector or matrix (gemv, gemm, trsv, solve) is a Matrix Market array file with\n"
        "the same 17-digit values. gemv and trsv give an N x 1 column.\n\n"
        "trsv methods: exact = each x_i correctly rounded from the exact numerator\n"
        "(reproducible); refined = exact plus iterative refinement; compensated and\n"
        "double-double = as accurate as twice the working precision; naive = the plain\n"
        "substitution loop in double.\n\n"
        "Stripe LU (generate dense, import, solve): Gauss elimination by stripes of S\n"
        "rows kept as files in the work directories, a host cache of --cache bytes, and\n"
        "iterative refinement against the exact residual. X depends only on the system,\n"
        "S, S', --pivot (and the BLAS): not on --threads, --cache, --order, --meta,\n"
        "--io-threads, the disks, nor on a run having been killed and resumed. A killed\n"
        "'solve --workdir' run resumes where it stopped when run again with the same\n"
        "parameters (--resume, the default; --restart starts over). Sizes (--cache,\n"
        "--buffer) are bytes, or have a suffix K, M, G, T or KiB, MiB, GiB, TiB (powers\n"
        "of 1024): 2GiB, 512M. On a terminal, solve redraws a progress line on stderr;\n"
        "elsewhere it prints a line every --progress-interval seconds; then a summary\n"
        "(n, stripes, time, GFLOP/s, I/O, cache hits, resumed or not, the refinement's\n"
        "steps and backward error before -> after; and, for a generated system, the\n"
        "forward error max|x - xref| / max|xref| against its stored solution xref).\n"
        "Standard output gets the solution only; solve --workdir also stores it in the\n"
        "set. export writes A (matrix), B (rhs), that stored solution (solution) or\n"
        "generate's xref (reference) of a work directory set as an array file with\n"
        "17-digit values (-o FILE, replaced atomically; default standard output):\n"
        "importing the exported A and B stores the same bits.\n\n"
        "MPI (--backend mpi, under mpirun -np P): sum, asum, dot, gemv, trsv (exact\n"
        "method) and solve run over the ranks; each rank reads its part of the files\n"
        "(a block of entries or columns, the block rows of T, its stripes) and works on\n"
        "it with --local-backend; rank 0 alone writes the result, bit for bit the\n"
        "single-process one. solve --workdir DIR: each rank keeps its factorization in\n"
        "--rank-workdir (default DIR/mpi/rank-%r) and a killed run resumes from there;\n"
        "its bits are those of one process with the same S (without --stripe, S\n"
        "follows the cache, which is per rank: give --stripe to compare runs).\n"
        "An error on any rank ends every rank with status 2 and one line from rank 0.\n\n"
        "run / blas-check: PROGRAM runs with LD_PRELOAD=libexala_blas.so (this\n"
        "installation's; EXALA_BLAS_LIBRARY overrides), so its BLAS calls (dgemm_,\n"
        "dtrsm_, ..., cblas_*) get ExaLA's correctly rounded, reproducible results.\n"
        "--backend reference|simd|omp and --threads N set EXALA_BACKEND and\n"
        "EXALA_NUM_THREADS (--threads N > 1 alone selects omp). When the program's\n"
        "liblapack.so.3 would bypass the preload (OpenBLAS's LAPACK calls its own\n"
        "kernels; a LAPACK that defines dgemm_ calls its own copy), the reference LAPACK\n"
        "(" EXALA_CLI_REFERENCE_LAPACK_DIR ", or EXALA_REFERENCE_LAPACK_DIR) is put first\n"
        "in LD_LIBRARY_PATH. One line on stderr says what was set; the exit status is\n"
        "the program's. blas-check (or run --report) adds EXALA_BLAS_VERBOSE=1: at exit\n"
        "each process prints the calls ExaLA served per routine, and their flops.\n\n"
        "A result known to be wrong is an error: NaN from finite operands, or a trsv\n"
        "entry computed from an entry that overflowed to inf.\n\n"
        "Exit status: 0 on success, 2 on any error (one line on standard error).\n";
}

}  // namespace exala::cli
