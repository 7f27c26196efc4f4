// exala.cpp - the `exala` command-line tool: exact, correctly rounded
// reductions of Matrix Market array files.
//
//   exala sum FILE | asum FILE | dot X Y  [--backend B] [--threads N]
//                                          [--rounding R] [-o FILE]
//
// Commands live in one table (name, operands, summary, function); adding
// gemv, gemm, trsv or solve means adding a function and a row. Options may
// come before or after the operands. A scalar result is printed on one line
// with 17 significant digits (it reads back to the same bits); a matrix
// result, or any result with -o, is written as a Matrix Market array file.
// Every error, from the command line, a file or the library, is reported as
// one line 'exala: error: ...' on stderr with exit status 2.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exala/backend.hpp"
#include "exala/blas1.hpp"
#include "exala/error.hpp"
#include "matrix_market.hpp"

#ifndef EXALA_VERSION
#error "EXALA_VERSION must be defined by the build (PROJECT_VERSION)"
#endif

namespace {

constexpr int exit_ok = 0;
constexpr int exit_error = 2;
constexpr int max_threads = 1024;

// A mistake on the command line (as opposed to in a file or the library).
class usage_error : public exala::error {
 public:
  using exala::error::error;
};

// What a command computed: a scalar, or a rows x cols matrix (column-major).
struct result {
  bool scalar = true;
  std::int64_t rows = 1;
  std::int64_t cols = 1;
  std::vector<double> values;

  static result of_scalar(double v) { return {true, 1, 1, {v}}; }
};

using operand_list = std::vector<std::string>;

// ---- commands ----

result run_sum(const operand_list& files, const exala::exec& ex) {
  const exala::io::array x = exala::io::read_array_file(files[0]);
  return result::of_scalar(exala::sum(x.values, ex));
}

result run_asum(const operand_list& files, const exala::exec& ex) {
  const exala::io::array x = exala::io::read_array_file(files[0]);
  return result::of_scalar(exala::asum(x.values, ex));
}

// "M x N, K entries"
std::string size_text(const exala::io::array& a) {
  return std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", " +
         std::to_string(a.values.size()) + (a.values.size() == 1 ? " entry" : " entries");
}

result run_dot(const operand_list& files, const exala::exec& ex) {
  const exala::io::array x = exala::io::read_array_file(files[0]);
  const exala::io::array y = exala::io::read_array_file(files[1]);
  if (x.values.size() != y.values.size())
    throw usage_error("dot: " + exala::io::printable(files[0], 4096) + " (" + size_text(x) +
                      ") and " + exala::io::printable(files[1], 4096) + " (" + size_text(y) +
                      ") differ in size");
  return result::of_scalar(exala::dot(x.values, y.values, ex));
}

struct command {
  std::string_view name;
  std::string_view usage;  // the operands, for messages and help
  std::size_t arity;
  std::string_view summary;
  result (*run)(const operand_list&, const exala::exec&);
};

constexpr std::array commands{
    command{"sum", "FILE", 1, "the sum of all entries of FILE, correctly rounded", run_sum},
    command{"asum", "FILE", 1, "the sum of |entries| of FILE, correctly rounded", run_asum},
    command{"dot", "X Y", 2, "the dot product of the entries of X and Y, correctly rounded",
            run_dot},
};

const command* find_command(std::string_view name) {
  const auto it = std::find_if(commands.begin(), commands.end(),
                               [name](const command& c) { return c.name == name; });
  return it == commands.end() ? nullptr : &*it;
}

// ---- options ----

struct invocation {
  std::string command_name;  // empty: none given
  operand_list args;
  exala::exec ex;
  std::string output;  // -o FILE; empty: stdout
  bool help = false;
  bool version = false;
};

// "reference|simd|omp (default simd)", and the ones this build lacks.
std::string backend_help() {
  std::string names, missing;
#define EXALA_CLI_NAME_(name, desc)                         \
  names += (names.empty() ? "" : "|") + std::string(#name); \
  if (!exala::is_compiled_in(exala::backend::name)) missing += ", " #name " is not compiled in";
  EXALA_BACKENDS(EXALA_CLI_NAME_)
#undef EXALA_CLI_NAME_
  return names + " (default simd" + missing + ")";
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

// Splits '--name=value' into name and value.
std::pair<std::string_view, std::optional<std::string_view>> split_option(std::string_view arg) {
  const std::size_t eq = arg.find('=');
  if (!arg.starts_with("--") || eq == std::string_view::npos) return {arg, std::nullopt};
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

constexpr std::array<std::string_view, 5> valued_options{"--backend", "--threads", "--rounding",
                                                         "-o", "--output"};

bool takes_value(std::string_view name) {
  return std::find(valued_options.begin(), valued_options.end(), name) != valued_options.end();
}

// Applies one of the valued_options.
void apply_valued_option(invocation& inv, std::string_view name, std::string_view value) {
  if (name == "--backend") {
    inv.ex.backend = exala::parse_backend(value, "--backend");
  } else if (name == "--threads") {
    inv.ex.threads = parse_threads(value);
  } else if (name == "--rounding") {
    inv.ex.mode = parse_rounding(value);
  } else {
    if (value.empty()) throw usage_error("option '" + std::string(name) + "' needs a file name");
    inv.output = value;
  }
}

// Parses the whole command line; options may appear anywhere, '--' ends them.
invocation parse_command_line(std::span<char* const> argv) {
  invocation inv;
  bool options_done = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string_view arg = argv[i];
    const bool is_option = !options_done && arg.size() > 1 && arg[0] == '-';
    if (!is_option) {
      if (inv.command_name.empty())
        inv.command_name = arg;
      else
        inv.args.emplace_back(arg);
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
    } else {
      throw usage_error("unknown option '" + exala::io::printable(arg) + "' (see 'exala --help')");
    }
  }
  return inv;
}

// ---- output ----

// One help line: `head` in a column of 20, then `text`.
void help_line(std::ostream& os, std::string_view head, std::string_view text) {
  os << "  " << head << std::string(head.size() < 18 ? 18 - head.size() : 1, ' ') << text << '\n';
}

void print_help(std::ostream& os) {
  os << "Usage: exala COMMAND [OPTIONS] OPERANDS...\n\n"
        "Exact, correctly rounded linear algebra on Matrix Market array files: the\n"
        "result is the same bits on every backend and thread count.\n\n"
        "Commands:\n";
  for (const command& c : commands)
    help_line(os, std::string(c.name) + " " + std::string(c.usage), c.summary);
  help_line(os, "help", "show this help");
  os << "\nOptions (before or after the operands):\n";
  help_line(os, "--backend NAME", backend_help());
  help_line(
      os, "--threads N",
      "threads of the omp backend, 1 to " + std::to_string(max_threads) + " (default: OpenMP's)");
  help_line(os, "--rounding MODE", "nearest|zero|up|down: rounding direction of the result");
  help_line(os, "", "(default nearest, ties to even)");
  help_line(os, "-o, --output FILE", "write the result to FILE as a Matrix Market array file");
  help_line(os, "-h, --help", "show this help");
  help_line(os, "--version", "show the version");
  os << "\nInput files: '%%MatrixMarket matrix array real general' (or integer), a size\n"
        "line 'M N', then M*N values in column-major order. Every entry is used.\n"
        "Values may be decimal or hex floats (0x1p-1074), inf, -inf, nan. A file\n"
        "named '-' is standard input.\n\n"
        "Output: a scalar is printed on one line with 17 significant digits (it reads\n"
        "back to the same double), or inf, -inf, nan, and -0 for negative zero.\n"
        "Exit status: 0 on success, 2 on any error (one line on standard error).\n";
}

void flush_stdout() {
  std::cout.flush();
  if (!std::cout) throw exala::error("cannot write to standard output");
}

void write_result(const result& r, const std::string& output) {
  if (!output.empty()) {
    exala::io::write_array_file(output, r.rows, r.cols, r.values);
  } else if (r.scalar) {
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

int run(std::span<char* const> argv) {
  const invocation inv = parse_command_line(argv);
  if (inv.version) {
    std::cout << "exala " << EXALA_VERSION << '\n';
    flush_stdout();
    return exit_ok;
  }
  if (inv.help || inv.command_name == "help") {
    print_help(std::cout);
    flush_stdout();
    return exit_ok;
  }
  if (inv.command_name.empty()) throw usage_error("no command given (see 'exala --help')");
  const command* cmd = find_command(inv.command_name);
  if (cmd == nullptr)
    throw usage_error("unknown command '" + exala::io::printable(inv.command_name) +
                      "' (see 'exala --help')");
  if (inv.args.size() != cmd->arity)
    throw usage_error(std::string(cmd->name) + " needs " + std::to_string(cmd->arity) + " operand" +
                      (cmd->arity == 1 ? "" : "s") + " (exala " + std::string(cmd->name) + " " +
                      std::string(cmd->usage) + "), got " + std::to_string(inv.args.size()));
  write_result(cmd->run(inv.args, inv.ex), inv.output);
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::span<char* const>(argv, static_cast<std::size_t>(argc)));
  } catch (const exala::error& e) {
    std::cerr << "exala: error: " << without_prefix(e.what()) << '\n';
  } catch (const std::bad_alloc&) {
    std::cerr << "exala: error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "exala: error: " << e.what() << '\n';
  } catch (...) {
    std::cerr << "exala: error: unknown failure\n";
  }
  return exit_error;
}
