// blas_commands.cpp - the `exala` commands sum, asum, dot, gemv, gemm and
// trsv on Matrix Market array files (the tool: exala.cpp; their
// --backend mpi forms: mpi_commands.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/error.hpp"
#include "exala/solvers.hpp"
#include "matrix_market.hpp"
#include "mpi_commands.hpp"

namespace exala::cli {

namespace {

// trsv --backend mpi: rows per block when --block is not given.
constexpr std::int64_t default_mpi_block = 256;

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

}  // namespace

result run_sum(const invocation& inv) {
  const exala::io::array x = exala::io::read_array_file(inv.args[0]);
  return checked_scalar(inv, exala::sum(x.values, inv.ex), {&x});
}

result run_asum(const invocation& inv) {
  const exala::io::array x = exala::io::read_array_file(inv.args[0]);
  return checked_scalar(inv, exala::asum(x.values, inv.ex), {&x});
}

result run_dot(const invocation& inv) {
  const operand_list& files = inv.args;
  const exala::io::array x = exala::io::read_array_file(files[0]);
  const exala::io::array y = exala::io::read_array_file(files[1]);
  if (x.values.size() != y.values.size())
    throw usage_error("dot: " + describe(files[0], x) + " and " + describe(files[1], y) +
                      " differ in size");
  return checked_scalar(inv, exala::dot(x.values, y.values, inv.ex), {&x, &y});
}

namespace {

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

}  // namespace

// y = alpha op(A) x + beta y, one rounding per entry.
result run_gemv(const invocation& inv) {
  const exala::transpose t = parse_transpose("--trans", inv.get("--trans").value_or("N"));
  const scalars s = parse_scalars(inv, "--y");
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

namespace {

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

// The options of trsv, checked alike for one process and for --backend mpi.
struct trsv_options {
  exala::uplo ul;
  exala::transpose t;
  exala::diag dg;
  std::string_view method_text;
  trsv_method method;
};
trsv_options trsv_options_of(const invocation& inv) {
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
  return {ul, t, dg, method_text, method};
}

}  // namespace

// op(T) x = b by the chosen method.
result run_trsv(const invocation& inv) {
  const auto [ul, t, dg, method_text, method] = trsv_options_of(inv);
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

// ---- the --backend mpi forms (mpi_commands.cpp: every rank reads its part) ----

// The scalar of sum, asum or dot over the ranks.
result run_scalar_mpi(const invocation& inv) {
  return result::of_scalar(
      exala::cli::mpi_reduce(*inv.session, inv.command_name, inv.args, inv.ex));
}

result run_gemv_mpi(const invocation& inv) {
  const exala::transpose t = parse_transpose("--trans", inv.get("--trans").value_or("N"));
  const scalars s = parse_scalars(inv, "--y");
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

result run_trsv_mpi(const invocation& inv) {
  const auto [ul, t, dg, method_text, method] = trsv_options_of(inv);
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

}  // namespace exala::cli
