// cli.hpp - what the parts of the `exala` tool share (private to exala.cpp,
// options.cpp and blas_commands.cpp; see exala.cpp for the tool).
//
// exala.cpp: the command table, the stripe LU and program commands, main;
// options.cpp: the option tables, the command line parser and the help;
// blas_commands.cpp: sum, asum, dot, gemv, gemm, trsv.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exala/backend.hpp"
#include "exala/blas2.hpp"
#include "stripe_commands.hpp"

namespace exala::cli {

class mpi_session;

// What a command computed: nothing (it wrote its own files), a scalar, or a
// rows x cols matrix (column-major).
struct result {
  enum class kind { none, scalar, matrix };
  kind k = kind::scalar;
  std::int64_t rows = 1;
  std::int64_t cols = 1;
  std::vector<double> values;

  static result of_scalar(double v) { return {kind::scalar, 1, 1, {v}}; }
  static result of_matrix(std::int64_t rows, std::int64_t cols, std::vector<double> v) {
    return {kind::matrix, rows, cols, std::move(v)};
  }
  static result nothing() { return {kind::none, 0, 0, {}}; }
};

using operand_list = std::vector<std::string>;

struct invocation {
  std::string command_name;  // empty: none given
  operand_list args;
  exala::exec ex;
  bool rounding_given = false;
  bool backend_given = false;
  bool threads_given = false;
  std::string device;  // --device SPEC (OpenCL); empty: the default device
  bool device_given = false;
  std::string output;  // -o FILE (DIR for generate trsv); empty: stdout
  bool help = false;
  bool version = false;
  // --backend mpi: ex.backend is then the local backend (--local-backend).
  bool mpi = false;
  exala::backend local_backend = exala::backend::simd;
  bool local_backend_given = false;
  exala::cli::mpi_session* session = nullptr;  // set when mpi
  // Command options (second table below), by name: every value given.
  exala::cli::option_values named;

  // The last value given.
  std::optional<std::string_view> get(std::string_view name) const { return named.get(name); }
};

// ---- option values (options.cpp) ----

// quote_value and parse_real_option: stripe_commands.hpp (the stripe and
// MPI commands use them too).

exala::transpose parse_transpose(std::string_view name, std::string_view value);

exala::uplo parse_uplo(std::string_view value);

exala::diag parse_diag(std::string_view value);

enum class trsv_method { exact, refined, compensated, double_double, naive };

trsv_method parse_method(std::string_view value);

// A whole decimal number in [lo, hi] (digits only).
std::uint64_t parse_count_option(std::string_view name, std::string_view value, std::uint64_t lo,
                                 std::uint64_t hi, std::string_view what);

// ---- the command table (exala.cpp) ----

// The arity of a command that checks its operands itself (solve: A B or none).
constexpr std::size_t any_arity = static_cast<std::size_t>(-1);

struct command {
  std::string_view name;
  std::string_view usage;  // the operands, for messages and help
  std::size_t arity;       // or any_arity
  std::string_view summary;
  result (*run)(const invocation&);
  // The command under --backend mpi (its MPI form in mpi_commands.cpp); null:
  // the command does not run under MPI.
  result (*run_mpi)(const invocation&);
  bool output_is_dir = false;  // -o names a directory the command writes itself
};


// The commands, in the order of the help.
std::span<const command> command_list();

// Commands whose first operand is a program: the options end there.
bool runs_program(std::string_view name);

const command* find_command(std::string_view name);

// ---- command options (options.cpp) ----

// Options that belong to some commands only: most take a value, flags take
// none, and an optional value is given inline only (--refine=STEPS).
enum class arg_kind { value, flag, optional };

struct command_option {
  std::string_view name;
  std::string_view value;     // for help
  std::string_view commands;  // the commands that take it, separated by spaces
  std::string_view help;
  arg_kind kind = arg_kind::value;
};

const command_option* find_command_option(std::string_view name);

bool applies_to(const command_option& o, std::string_view command_name);

// ---- the command line and the help (options.cpp) ----

// Parses the whole command line; options may appear anywhere, '--' ends them.
invocation parse_command_line(std::span<char* const> argv);

// Whether the command line asks for --backend mpi (so that main initializes
// MPI first): the parser's answer, or for a command line it rejects, the
// last '--backend' value (so that rank 0 alone reports the mistake).
bool mpi_requested(std::span<char* const> argv);

void print_help(std::ostream& os);

// ---- the BLAS commands (blas_commands.cpp) ----

result run_sum(const invocation& inv);
result run_asum(const invocation& inv);
result run_dot(const invocation& inv);
result run_gemv(const invocation& inv);
result run_gemm(const invocation& inv);
result run_trsv(const invocation& inv);
// Their --backend mpi forms (the command table's MPI column).
result run_scalar_mpi(const invocation& inv);  // sum, asum, dot
result run_gemv_mpi(const invocation& inv);
result run_trsv_mpi(const invocation& inv);

}  // namespace exala::cli
