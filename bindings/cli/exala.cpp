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
//   exala devices                     (the OpenCL devices, for --device)
//   exala run [--backend B] [--threads N] [--report] -- PROGRAM [ARGS...]
//   exala blas-check [--backend B] [--threads N] -- PROGRAM [ARGS...]
//                                     (PROGRAM under LD_PRELOAD=libexala_blas.so)
//   common options: [--backend B] [--device SPEC] [--threads N] [--rounding R] [-o FILE]
//   mpirun -np P exala sum|asum|dot|gemv|trsv|solve ... --backend mpi [--local-backend B]
//
// Commands live in one table (name, operands, summary, function), and the
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
#include "stripe_commands.hpp"
#ifdef EXALA_CLI_HAVE_MPI
#include "mpi_commands.hpp"
#endif

namespace exala::cli {
class mpi_session;
}

#ifndef EXALA_VERSION
#error "EXALA_VERSION must be defined by the build (PROJECT_VERSION)"
#endif

namespace {

constexpr int exit_ok = 0;
constexpr int exit_error = 2;
using exala::max_threads;
constexpr std::int64_t max_generate_n = 20000;  // 3.2 GB for T: beyond, ask the library directly

using exala::cli::usage_error;

// The commands that run with --backend mpi, and the options that belong to
// that mode.
constexpr std::array<std::string_view, 6> mpi_command_names{"sum",  "asum", "dot",
                                                            "gemv", "trsv", "solve"};
constexpr std::array<std::string_view, 2> mpi_only_options{"--block", "--rank-workdir"};
constexpr std::int64_t default_mpi_block = 256;

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

// ---- option values ----

std::string quote_value(std::string_view value) { return "'" + exala::io::printable(value) + "'"; }

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

enum class trsv_method { exact, refined, compensated, double_double, naive };

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

// ---- reading operands ----

// "M x N, K entries"
std::string size_text(const exala::io::array& a) {
  return std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", " +
         std::to_string(a.values.size()) + (a.values.size() == 1 ? " entry" : " entries");
}

// "FILE (M x N, K entries)"
std::string describe(const std::string& file, const exala::io::array& a) {
  return exala::io::printable(file, 4096) + " (" + size_text(a) + ")";
}

std::string entries(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " entry" : " entries");
}

// The library rejects null pointers; an empty vector may have none.
const double* data_of(const std::vector<double>& v) {
  static const double dummy = 0.0;
  return v.empty() ? &dummy : v.data();
}
double* data_of(std::vector<double>& v) {
  static double dummy = 0.0;
  return v.empty() ? &dummy : v.data();
}

std::int64_t ld(std::int64_t rows) { return std::max<std::int64_t>(1, rows); }

// The rows x cols result `what` ("gemm: C"): zero-filled when `zero`, else
// only checked (an addend file supplies it). Sizes whose entries overflow
// 2^60 - 1 or exceed this machine's memory are refused with the sizes and
// the bytes, never handed to the library; `context` names the operands.
std::vector<double> result_storage(const std::string& what, std::int64_t rows, std::int64_t cols,
                                   const std::string& context, bool zero) {
  if (zero) return exala::io::zero_values(what, rows, cols, context);
  const std::string problem = exala::io::size_problem(rows, cols);
  if (!problem.empty()) throw exala::error(what + " " + problem + context);
  return {};
}

bool all_finite(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// A result that is known to be wrong is an error, never a printed number:
// the library's reductions and products are correctly rounded (an exact
// result beyond the double range is +-inf, never NaN), so NaN from finite
// operands means that something overflowed on the way. `operands_finite` is
// asked only when the result has a NaN; `name(k)` names entry k; `why`
// explains it and `hint` follows.
void reject_nan_from_finite(const std::string& command, std::span<const double> result,
                            const std::function<bool()>& operands_finite,
                            const std::function<std::string(std::size_t)>& name,
                            const std::string& operands, const std::string& why,
                            const std::string& hint) {
  const auto nan =
      std::find_if(result.begin(), result.end(), [](double x) { return std::isnan(x); });
  if (nan == result.end() || !operands_finite()) return;
  throw exala::error(command + ": " + name(static_cast<std::size_t>(nan - result.begin())) +
                     " is NaN although " + operands + " finite: " + why +
                     ", so the result is known to be wrong" + hint);
}

// The same for a command whose routine is correctly rounded (sum, dot, gemv,
// gemm): NaN from finite operands would be a defect of the routine.
void reject_nan_from_finite_rounded(const std::string& command, std::span<const double> result,
                                    const std::function<bool()>& operands_finite,
                                    const std::function<std::string(std::size_t)>& name,
                                    const std::string& operands) {
  reject_nan_from_finite(command, result, operands_finite, name, operands,
                         "a correctly rounded result of finite operands is finite or +-inf",
                         " (please report this defect)");
}

std::string file_list(const operand_list& files) {
  std::string text;
  for (std::size_t i = 0; i < files.size(); ++i)
    text += (i == 0 ? "" : i + 1 == files.size() ? " and " : ", ") +
            exala::io::printable(files[i], 4096);
  return text + (files.size() == 1 ? " is" : " are");
}

// ---- commands ----

// The scalar of sum, asum or dot over the ranks (--backend mpi).
std::optional<result> mpi_scalar([[maybe_unused]] const invocation& inv) {
#ifdef EXALA_CLI_HAVE_MPI
  if (inv.mpi)
    return result::of_scalar(
        exala::cli::mpi_reduce(*inv.session, inv.command_name, inv.args, inv.ex));
#endif
  return std::nullopt;
}

// The scalar of sum, asum or dot, checked (reject_nan_from_finite).
result checked_scalar(const invocation& inv, double v,
                      std::initializer_list<const exala::io::array*> operands) {
  reject_nan_from_finite_rounded(
      inv.command_name, std::span<const double>(&v, 1),
      [&] {
        return std::all_of(operands.begin(), operands.end(),
                           [](const exala::io::array* a) { return all_finite(a->values); });
      },
      [](std::size_t) { return std::string("the result"); }, file_list(inv.args));
  return result::of_scalar(v);
}

result run_sum(const invocation& inv) {
  if (auto r = mpi_scalar(inv)) return *r;
  const exala::io::array x = exala::io::read_array_file(inv.args[0]);
  return checked_scalar(inv, exala::sum(x.values, inv.ex), {&x});
}

result run_asum(const invocation& inv) {
  if (auto r = mpi_scalar(inv)) return *r;
  const exala::io::array x = exala::io::read_array_file(inv.args[0]);
  return checked_scalar(inv, exala::asum(x.values, inv.ex), {&x});
}

result run_dot(const invocation& inv) {
  if (auto r = mpi_scalar(inv)) return *r;
  const operand_list& files = inv.args;
  const exala::io::array x = exala::io::read_array_file(files[0]);
  const exala::io::array y = exala::io::read_array_file(files[1]);
  if (x.values.size() != y.values.size())
    throw usage_error("dot: " + describe(files[0], x) + " and " + describe(files[1], y) +
                      " differ in size");
  return checked_scalar(inv, exala::dot(x.values, y.values, inv.ex), {&x, &y});
}

// alpha and beta of gemv / gemm: beta defaults to 1 when the matrix it scales
// (named by `addend`) is given, and to 0 otherwise, where it may not be set.
struct scalars {
  double alpha = 1.0;
  double beta = 0.0;
};
scalars parse_scalars(const invocation& inv, std::string_view addend) {
  scalars s;
  if (const auto a = inv.get("--alpha")) s.alpha = parse_real_option("--alpha", *a);
  const bool have_addend = inv.get(addend).has_value();
  s.beta = have_addend ? 1.0 : 0.0;
  if (const auto b = inv.get("--beta")) {
    if (!have_addend)
      throw usage_error("option '--beta' needs '" + std::string(addend) + "' (the operand it scales)");
    s.beta = parse_real_option("--beta", *b);
  }
  return s;
}

std::string op_name(exala::transpose t, std::string_view m) {
  return t == exala::transpose::none ? std::string(m) : std::string(m) + "^T";
}

// y = alpha op(A) x + beta y, one rounding per entry.
result run_gemv(const invocation& inv) {
  const exala::transpose t = parse_transpose("--trans", inv.get("--trans").value_or("N"));
  const scalars s = parse_scalars(inv, "--y");
#ifdef EXALA_CLI_HAVE_MPI
  if (inv.mpi) {
    exala::cli::mpi_gemv_args g;
    g.trans = t;
    g.alpha = s.alpha;
    g.beta = s.beta;
    g.a = inv.args[0];
    g.x = inv.args[1];
    if (const auto yfile = inv.get("--y")) g.y = std::string(*yfile);
    exala::cli::solution y = exala::cli::mpi_gemv(*inv.session, g, inv.ex);
    return result::of_matrix(y.rows, 1, std::move(y.values));
  }
#endif
  const exala::io::array a = exala::io::read_array_file(inv.args[0]);
  const exala::io::array x = exala::io::read_array_file(inv.args[1]);
  const bool none = t == exala::transpose::none;
  const std::int64_t rows = none ? a.rows : a.cols;   // of op(A)
  const std::int64_t inner = none ? a.cols : a.rows;  // columns of op(A)
  const std::string op_shape =
      op_name(t, "A") + " is " + std::to_string(rows) + " x " + std::to_string(inner);
  if (static_cast<std::int64_t>(x.values.size()) != inner)
    throw usage_error("gemv: " + describe(inv.args[1], x) + " does not fit " +
                      describe(inv.args[0], a) + ": " + op_shape + ", so X needs " +
                      entries(inner));
  const auto yfile = inv.get("--y");
  std::vector<double> y =
      result_storage("gemv: Y", rows, 1,
                     " (" + op_name(t, "A") + " is " + std::to_string(rows) + " x " +
                         std::to_string(inner) + " in " + exala::io::printable(inv.args[0], 4096) +
                         ")",
                     !yfile);
  bool y_finite = true;
  if (yfile) {
    exala::io::array yin = exala::io::read_array_file(std::string(*yfile));
    if (static_cast<std::int64_t>(yin.values.size()) != rows)
      throw usage_error("gemv: " + describe(std::string(*yfile), yin) + " does not fit " +
                        describe(inv.args[0], a) + ": " + op_shape + ", so Y needs " +
                        entries(rows));
    y = std::move(yin.values);
    y_finite = all_finite(y);
  }
  exala::gemv(exala::layout::col_major, t, a.rows, a.cols, s.alpha, data_of(a.values),
              ld(a.rows), data_of(x.values), 1, s.beta, data_of(y), 1, inv.ex);
  operand_list files = inv.args;
  if (yfile) files.emplace_back(*yfile);
  reject_nan_from_finite_rounded(
      "gemv", y,
      [&] {
        return y_finite && std::isfinite(s.alpha) && std::isfinite(s.beta) &&
               all_finite(a.values) && all_finite(x.values);
      },
      [](std::size_t k) { return "y(" + std::to_string(k + 1) + ")"; }, file_list(files));
  return result::of_matrix(rows, 1, std::move(y));
}

// C = alpha op(A) op(B) + beta C, one rounding per entry.
result run_gemm(const invocation& inv) {
  const exala::transpose ta = parse_transpose("--transa", inv.get("--transa").value_or("N"));
  const exala::transpose tb = parse_transpose("--transb", inv.get("--transb").value_or("N"));
  const scalars s = parse_scalars(inv, "--c");
  const exala::io::array a = exala::io::read_array_file(inv.args[0]);
  const exala::io::array b = exala::io::read_array_file(inv.args[1]);
  const bool na = ta == exala::transpose::none, nb = tb == exala::transpose::none;
  const std::int64_t m = na ? a.rows : a.cols, k = na ? a.cols : a.rows;
  const std::int64_t kb = nb ? b.rows : b.cols, n = nb ? b.cols : b.rows;
  if (k != kb)
    throw usage_error("gemm: " + describe(inv.args[0], a) + " and " + describe(inv.args[1], b) +
                      " do not fit: " + op_name(ta, "A") + " is " + std::to_string(m) + " x " +
                      std::to_string(k) + " and " + op_name(tb, "B") + " is " +
                      std::to_string(kb) + " x " + std::to_string(n));
  const auto cfile = inv.get("--c");
  std::vector<double> c = result_storage(
      "gemm: C", m, n,
      " (" + op_name(ta, "A") + " is " + std::to_string(m) + " x " + std::to_string(k) + " in " +
          exala::io::printable(inv.args[0], 4096) + ", " + op_name(tb, "B") + " is " +
          std::to_string(kb) + " x " + std::to_string(n) + " in " +
          exala::io::printable(inv.args[1], 4096) + ")",
      !cfile);
  bool c_finite = true;
  if (cfile) {
    exala::io::array cin = exala::io::read_array_file(std::string(*cfile));
    if (cin.rows != m || cin.cols != n)
      throw usage_error("gemm: " + describe(std::string(*cfile), cin) + " does not fit: " +
                        op_name(ta, "A") + " " + op_name(tb, "B") + " is " + std::to_string(m) +
                        " x " + std::to_string(n));
    c = std::move(cin.values);
    c_finite = all_finite(c);
  }
  exala::gemm(exala::layout::col_major, ta, tb, m, n, k, s.alpha, data_of(a.values), ld(a.rows),
              data_of(b.values), ld(b.rows), s.beta, data_of(c), ld(m), inv.ex);
  operand_list files = inv.args;
  if (cfile) files.emplace_back(*cfile);
  reject_nan_from_finite_rounded(
      "gemm", c,
      [&] {
        return c_finite && std::isfinite(s.alpha) && std::isfinite(s.beta) &&
               all_finite(a.values) && all_finite(b.values);
      },
      [m](std::size_t e) {
        const auto i = static_cast<std::int64_t>(e) % m, j = static_cast<std::int64_t>(e) / m;
        return "C(" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")";
      },
      file_list(files));
  return result::of_matrix(m, n, std::move(c));
}

// The plain substitution loop (no compensation, no extra precision): the
// textbook x_i = (b_i - sum_j op(T)_ij x_j) / op(T)_ii, the sum taken in the
// order j = first .. i-1 of the solve, every operation rounded to nearest.
// T is n x n column-major. An exact zero on a non-unit diagonal is reported
// as the library's methods report it.
void naive_trsv(exala::uplo ul, exala::transpose t, exala::diag dg, std::int64_t n,
                const double* a, double* x) {
  const auto at = [a, n, t](std::int64_t i, std::int64_t j) {  // op(T)_ij
    return t == exala::transpose::none ? a[i + j * n] : a[j + i * n];
  };
  const bool forward = (ul == exala::uplo::lower) == (t == exala::transpose::none);
  for (std::int64_t step = 0; step < n; ++step) {
    const std::int64_t i = forward ? step : n - 1 - step;
    double s = x[i];
    if (forward) {
      for (std::int64_t j = 0; j < i; ++j) s -= at(i, j) * x[j];
    } else {
      for (std::int64_t j = n - 1; j > i; --j) s -= at(i, j) * x[j];
    }
    if (dg == exala::diag::non_unit) {
      const double d = at(i, i);
      if (d == 0.0) throw exala::singular_matrix("trsv", i);
      s /= d;
    }
    x[i] = s;
  }
}

// Whether the entries of n x n T (column-major) that a solve reads (the
// `ul` triangle, with the diagonal unless unit) are finite.
bool triangle_finite(const std::vector<double>& a, std::int64_t n, exala::uplo ul,
                     exala::diag dg) {
  const bool lower = ul == exala::uplo::lower, unit = dg == exala::diag::unit;
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t first = lower ? j + (unit ? 1 : 0) : 0;
    const std::int64_t last = lower ? n : j + (unit ? 0 : 1);
    for (std::int64_t i = first; i < last; ++i)
      if (!std::isfinite(a[static_cast<std::size_t>(i + j * n)])) return false;
  }
  return true;
}

// With finite T and b, a solution with non-finite entries is checked in the
// order of the solve: an entry computed from an earlier infinite one (its
// coefficient in op(T) is nonzero) is an error, since inf carries no digits
// (x(2) = -inf from x(1) = inf may stand for -1e18 or -1e318), and NaN is
// known to be wrong. An infinite entry computed from finite ones only is the
// IEEE rounding of a value beyond the range (for the exact method, of the
// exact numerator over the diagonal) and is kept.
void check_overflowed_solution(const invocation& inv, trsv_method method,
                               const std::vector<double>& a, const std::vector<double>& x,
                               exala::uplo ul, exala::transpose t) {
  const auto n = static_cast<std::int64_t>(x.size());
  const auto op = [&](std::int64_t i, std::int64_t j) {  // op(T)_ij, column-major T
    return t == exala::transpose::none ? a[static_cast<std::size_t>(i + j * n)]
                                       : a[static_cast<std::size_t>(j + i * n)];
  };
  const auto entry = [&](std::int64_t i) {
    return "x(" + std::to_string(i + 1) + ") = " +
           exala::io::format_real(x[static_cast<std::size_t>(i)]);
  };
  const std::string operands = file_list(inv.args) + " finite";  // T and B
  const bool forward = (ul == exala::uplo::lower) == (t == exala::transpose::none);
  std::vector<std::int64_t> infinite;  // solved so far
  for (std::int64_t step = 0; step < n; ++step) {
    const std::int64_t i = forward ? step : n - 1 - step;
    const double v = x[static_cast<std::size_t>(i)];
    for (const std::int64_t k : infinite)
      if (op(i, k) != 0.0)
        throw exala::error(
            "trsv: " + entry(i) + " was computed from " + entry(k) + " although " + operands +
            ": the solution overflows the double range, so the result " +
            (std::isnan(v) ? "is known to be wrong" : "cannot be trusted") + " (scale the system)");
    if (std::isinf(v)) infinite.push_back(i);
  }
  // NaN computed from finite entries only: an operation overflowed.
  reject_nan_from_finite(
      "trsv", x, [] { return true; },
      [](std::size_t k) { return "x(" + std::to_string(k + 1) + ")"; }, file_list(inv.args),
      "an intermediate result overflowed the double range",
      method == trsv_method::exact ? " (please report this defect)"
                                   : " (--method exact has no intermediate overflow)");
}

// op(T) x = b by the chosen method.
result run_trsv(const invocation& inv) {
  const exala::uplo ul = parse_uplo(inv.get("--uplo").value_or("L"));
  const exala::transpose t = parse_transpose("--trans", inv.get("--trans").value_or("N"));
  const exala::diag dg = parse_diag(inv.get("--diag").value_or("N"));
  const std::string_view method_text = inv.get("--method").value_or("exact");
  const trsv_method method = parse_method(method_text);
  // Only the exact method rounds each x_i once, in any direction; the
  // library's refinement (trsv_exact_refined) requires round to nearest.
  if (method != trsv_method::exact && inv.rounding_given &&
      inv.ex.mode != exala::rounding::to_nearest_even)
    throw usage_error("option '--rounding' applies to --method exact only (" +
                      std::string(method_text) +
                      (method == trsv_method::refined ? " rounds its corrections to nearest)"
                                                      : " rounds every operation to nearest)"));
#ifdef EXALA_CLI_HAVE_MPI
  if (inv.mpi) {
    if (method != trsv_method::exact)
      throw usage_error("option '--method " + std::string(method_text) +
                        "' does not apply to '--backend mpi' (it solves by the exact method)");
    std::int64_t nb = default_mpi_block;
    if (const auto v = inv.get("--block"))
      nb = static_cast<std::int64_t>(
          parse_count_option("--block", *v, 1, INT64_MAX / 2, "a positive integer"));
    exala::cli::mpi_trsv_args g;
    g.ul = ul;
    g.trans = t;
    g.dg = dg;
    g.nb = nb;
    g.t = inv.args[0];
    g.b = inv.args[1];
    exala::cli::solution x = exala::cli::mpi_trsv(*inv.session, g, inv.ex);
    // Rank 0 holds x and alone writes it: it checks it as one process does
    // (reading T and B whole only when x is not finite).
    if (inv.session->root() && !all_finite(x.values)) {
      const exala::io::array a = exala::io::read_array_file(inv.args[0]);
      const exala::io::array b = exala::io::read_array_file(inv.args[1]);
      if (all_finite(b.values) && triangle_finite(a.values, x.rows, ul, dg))
        check_overflowed_solution(inv, method, a.values, x.values, ul, t);
    }
    return result::of_matrix(x.rows, 1, std::move(x.values));
  }
#endif
  const exala::io::array a = exala::io::read_array_file(inv.args[0]);
  exala::io::array b = exala::io::read_array_file(inv.args[1]);
  if (a.rows != a.cols)
    throw usage_error("trsv: " + describe(inv.args[0], a) + " is not square");
  const std::int64_t n = a.rows;
  if (static_cast<std::int64_t>(b.values.size()) != n)
    throw usage_error("trsv: " + describe(inv.args[1], b) + " does not fit " +
                      describe(inv.args[0], a) + ": B needs " + entries(n));
  std::vector<double>& x = b.values;
  const bool b_finite = all_finite(x);
  const auto lay = exala::layout::col_major;
  const double* tp = data_of(a.values);
  try {
    switch (method) {
      case trsv_method::exact:
        exala::trsv(lay, ul, t, dg, n, tp, ld(n), data_of(x), 1, inv.ex);
        break;
      case trsv_method::refined:
        exala::trsv_exact_refined(lay, ul, t, dg, n, tp, ld(n), data_of(x), 1, 8, inv.ex);
        break;
      case trsv_method::compensated:
        exala::trsv_compensated(lay, ul, t, dg, n, tp, ld(n), data_of(x), 1);
        break;
      case trsv_method::double_double:
        exala::trsv_double_double(lay, ul, t, dg, n, tp, ld(n), data_of(x), 1);
        break;
      case trsv_method::naive:
        naive_trsv(ul, t, dg, n, tp, data_of(x));
        break;
    }
  } catch (const exala::singular_matrix& e) {
    // The library names a 0-based row of op(T); the user gave a file.
    exala::io::fail_singular_diagonal(inv.args[0], e.row());
  }
  if (!all_finite(x) && b_finite && triangle_finite(a.values, n, ul, dg))
    check_overflowed_solution(inv, method, a.values, x, ul, t);
  return result::of_matrix(n, 1, std::move(x));
}

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

result run_solve(const invocation& inv) {
  const exala::cli::stripe_request request = stripe_request_of(inv, "solve");
#ifdef EXALA_CLI_HAVE_MPI
  if (inv.mpi) {
    if (inv.local_backend_given)
      throw usage_error("option '--local-backend' does not apply to 'solve' (the stripe LU has "
                        "its own engine, --engine)");
    exala::cli::solution x = exala::cli::mpi_solve(*inv.session, request);
    return result::of_matrix(x.rows, x.cols, std::move(x.values));
  }
#endif
  exala::cli::solution x = exala::cli::solve(request);
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

// The arity of a command that checks its operands itself (solve: A B or none).
constexpr std::size_t any_arity = static_cast<std::size_t>(-1);

struct command {
  std::string_view name;
  std::string_view usage;  // the operands, for messages and help
  std::size_t arity;       // or any_arity
  std::string_view summary;
  result (*run)(const invocation&);
  bool output_is_dir = false;  // -o names a directory the command writes itself
};

constexpr std::array commands{
    command{"sum", "FILE", 1, "the sum of all entries of FILE, correctly rounded", run_sum},
    command{"asum", "FILE", 1, "the sum of |entries| of FILE, correctly rounded", run_asum},
    command{"dot", "X Y", 2, "the dot product of the entries of X and Y, correctly rounded",
            run_dot},
    command{"gemv", "A X", 2, "alpha op(A) x + beta y, each entry correctly rounded", run_gemv},
    command{"gemm", "A B", 2, "alpha op(A) op(B) + beta C, each entry correctly rounded",
            run_gemm},
    command{"trsv", "T B", 2, "the solution x of op(T) x = b (T triangular)", run_trsv},
    command{"generate", "trsv|dense", 1,
            "a test system: trsv: -o DIR gets T.mtx, b.mtx, x_exact.mtx; dense: a random "
            "system in --workdir stripe files",
            run_generate, true},
    command{"import", "A B", 2,
            "the system A x = B (Matrix Market files) into --workdir stripe files", run_import},
    command{"solve", "[A B]", any_arity,
            "the solution X of A X = B by the stripe LU: in core (A B), or out of core from "
            "--workdir",
            run_solve},
    command{"devices", "", 0, "list the OpenCL devices (for --backend opencl --device SPEC)",
            run_devices},
    command{"run", "-- PROGRAM [ARGS...]", any_arity,
            "run PROGRAM with its BLAS calls served by ExaLA (LD_PRELOAD=libexala_blas.so; "
            "the reference LAPACK first when its own LAPACK would bypass the preload)",
            run_program},
    command{"blas-check", "-- PROGRAM [ARGS...]", any_arity,
            "run PROGRAM as 'run' does and print at its exit which BLAS calls ExaLA served",
            run_blas_check},
};

// Commands whose first operand is a program: the options end there.
bool runs_program(std::string_view name) { return name == "run" || name == "blas-check"; }

const command* find_command(std::string_view name) {
  const auto it = std::find_if(commands.begin(), commands.end(),
                               [name](const command& c) { return c.name == name; });
  return it == commands.end() ? nullptr : &*it;
}

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
    command_option{"--workdir", "DIR", "generate import solve",
                   "work directory of the stripe files; several disks: repeat the option or "
                   "give a comma list (the first holds the manifest)"},
    command_option{"--stripe", "S", "generate import solve",
                   "rows per stripe (generate, import: of the stored system, default ~32 MiB "
                   "a stripe; solve: of the factorization, default chosen from n and --cache)"},
    command_option{"--force", "", "generate import",
                   "replace a system already in the work directory", arg_kind::flag},
    command_option{"--buffer", "SIZE", "import",
                   "hold at most SIZE bytes of A in memory (default 1GiB; several passes over "
                   "A when it is larger)"},
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
    command_option{"--progress-interval", "SEC", "import solve",
                   "seconds between progress lines when stderr is not a terminal (default 10)"},
    command_option{"--quiet", "", "generate import solve", "no progress display and no summary",
                   arg_kind::flag},
    command_option{"--report", "", "run",
                   "print at the program's exit the BLAS calls ExaLA served (as blas-check)",
                   arg_kind::flag},
    command_option{"--rank-workdir", "PATTERN", "solve",
                   "--backend mpi, --workdir: each rank's own work directory, %r replaced by "
                   "the rank (default DIR/mpi/rank-%r, DIR the first --workdir)"},
};

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

// "reference|simd|omp (default simd)", and the ones this build lacks.
std::string backend_help() {
  std::string names, missing;
#define EXALA_CLI_NAME_(name, desc)                         \
  names += (names.empty() ? "" : "|") + std::string(#name); \
  if (!exala::is_compiled_in(exala::backend::name)) missing += ", " #name " is not compiled in";
  EXALA_BACKENDS(EXALA_CLI_NAME_)
#undef EXALA_CLI_NAME_
  names += "|mpi";
#ifndef EXALA_CLI_HAVE_MPI
  missing += ", mpi is not compiled in";
#endif
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
#ifndef EXALA_CLI_HAVE_MPI
      throw exala::not_compiled_in("backend 'mpi'");
#endif
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

#ifdef EXALA_CLI_HAVE_MPI
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
#endif

// ---- output ----

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

void print_help(std::ostream& os) {
  os << "Usage: exala COMMAND [OPTIONS] OPERANDS...\n\n"
        "Exact, correctly rounded linear algebra on Matrix Market files: the result is\n"
        "the same bits on every backend and thread count. Dense systems larger than\n"
        "memory are solved out of core by the stripe LU.\n\n"
        "Commands:\n";
  for (const command& c : commands)
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
        "steps and backward error before -> after). Standard output gets the solution\n"
        "only.\n\n"
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
#ifdef EXALA_CLI_HAVE_MPI
  if (session) session->set_output(parsed.output);  // compared by the ranks' first agreement
#endif
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
  if (inv.mpi && std::find(mpi_command_names.begin(), mpi_command_names.end(), cmd->name) ==
                     mpi_command_names.end())
    throw usage_error("option '--backend mpi' does not apply to '" + std::string(cmd->name) +
                      "' (it runs sum, asum, dot, gemv, trsv and solve)");
  for (const std::string_view name : mpi_only_options)
    if (inv.named.has(name) && !inv.mpi)
      throw usage_error("option '" + std::string(name) + "' applies to '--backend mpi' only");
  if (inv.mpi && session == nullptr)
    throw exala::error("--backend mpi: MPI was not initialized");  // (mpi_requested disagrees)
  if (inv.device_given) select_device(inv);
  const result r = cmd->run(inv);
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

int main(int argc, char** argv) {
  std::exception_ptr failure;
#ifdef EXALA_CLI_HAVE_MPI
  // MPI only for --backend mpi; MPI_Finalize when `session` goes, after the
  // error line.
  std::unique_ptr<exala::cli::mpi_session> session;
#endif
  try {
    exala::cli::mpi_session* mpi = nullptr;
    bool root = true;
#ifdef EXALA_CLI_HAVE_MPI
    if (mpi_requested(std::span<char* const>(argv, static_cast<std::size_t>(argc)))) {
      session = std::make_unique<exala::cli::mpi_session>(&argc, &argv);
      mpi = session.get();
      root = session->root();
    }
#endif
    return run(std::span<char* const>(argv, static_cast<std::size_t>(argc)), mpi, root);
  } catch (...) {
    failure = std::current_exception();
  }
  std::string line;
#ifdef EXALA_CLI_HAVE_MPI
  if (session)
    line = session->settle(failure);  // rank 0's line; empty on the others
  else
#endif
    line = error_line(failure);
  if (!line.empty()) std::cerr << "exala: error: " << line << '\n';
  return exit_error;
}
