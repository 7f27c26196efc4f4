// exala/eigen/solvers.hpp - ExaLA's solvers as Eigen-style classes (part of
// <exala/eigen.hpp>; see there for the rules).
//
//   ExactTriangularSolver<Mode>        exala::trsv / trsm (correctly rounded
//                                      x_i from the exact numerator), or
//                                      exala::trsv_exact_refined
//   CompensatedTriangularSolver<Mode>  exala::trsv_compensated (CENA), or
//                                      exala::trsv_double_double
//   StripeLU                           exala::stripe_lu, in core or out of core
//
// Mode is Eigen::Lower, Eigen::Upper, Eigen::UnitLower or Eigen::UnitUpper
// (only that triangle is read; a unit diagonal is not read at all).
//
// Protocol (as Eigen's decompositions): construct from a matrix or call
// compute(), check info(), then solve() as often as needed.
//  - info() reports the last compute() or solve() (or solveRefined(),
//    backwardError()): Eigen::Success; Eigen::NumericalIssue for an exact
//    zero on a non-unit triangular diagonal (singularRow()) or a zero or
//    numerically singular LU pivot (singularColumn()); Eigen::InvalidInput
//    for bad input (non-square matrix, wrong right-hand-side size, bad
//    options, a work directory that cannot be opened or is corrupt, a
//    component not compiled in). lastError() keeps the message, which names
//    the argument, row or column; it is "" after a success.
//  - compute() never throws for bad input: it records the failure in info().
//  - solve() after a compute() that failed (or without one) is a programming
//    error: it throws exala::error carrying the stored message. A failure
//    inside solve() itself (a right-hand side with the wrong number of rows,
//    an I/O error out of core) is recorded in info()/lastError() and then
//    thrown (exala::invalid_argument naming "b", exala::storage_error, ...):
//    there is no result to return. The factorization stays usable: the next
//    good solve() succeeds.
//  - solve(b) returns Eigen::VectorXd when b is a column vector at compile
//    time, else Eigen::MatrixXd (one column per right-hand side).
//  - solve() is const but records its status, so one solver object must not
//    be used by two threads at the same time (copies may).
//  - The matrix given to compute() is copied (evaluated first when it is an
//    expression, each element rounded by Eigen, like every argument here);
//    right-hand sides are copied into the result and solved in place.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "exala/blas3.hpp"
#include "exala/eigen/blas.hpp"
#include "exala/error.hpp"
#include "exala/solvers.hpp"
#include "exala/stripe_lu.hpp"

namespace exala::eigen {

// Which correction the CompensatedTriangularSolver uses.
enum class compensation {
  cena,          // exala::trsv_compensated (Langlois-Louvet CENA), the default
  double_double  // exala::trsv_double_double (XBLAS-style), same error bound
};

namespace detail {

// The status every solver class reports: info(), lastError() and the row or
// column of a singular matrix.
class solver_status {
 public:
  Eigen::ComputationInfo info() const noexcept { return info_; }
  const std::string& lastError() const noexcept { return message_; }

 protected:
  void succeed() const {
    info_ = Eigen::Success;
    message_.clear();
  }
  void fail(Eigen::ComputationInfo info, std::string message, Index where = -1) const {
    info_ = info;
    message_ = std::move(message);
    index_ = where;
  }
  // Runs f and records how it ended; a failure is rethrown when `rethrow`.
  // exala::error subclasses are the failures recorded (singular ones as
  // NumericalIssue, every other one as InvalidInput); anything else (e.g.
  // std::bad_alloc) propagates unrecorded.
  template <class F>
  bool attempt(F&& f, bool rethrow) const {
    try {
      f();
    } catch (const singular_matrix& e) {
      fail(Eigen::NumericalIssue, e.what(), static_cast<Index>(e.row()));
      if (rethrow) throw;
      return false;
    } catch (const singular_pivot& e) {
      fail(Eigen::NumericalIssue, e.what(), static_cast<Index>(e.column()));
      if (rethrow) throw;
      return false;
    } catch (const error& e) {
      fail(Eigen::InvalidInput, e.what());
      if (rethrow) throw;
      return false;
    }
    succeed();
    return true;
  }
  // Records a wrong-size right-hand side and throws it.
  [[noreturn]] void bad_rhs(const char* name, Index rows, Index n) const {
    const invalid_argument e(name, "has " + num(rows) + " rows but the matrix is " + num(n) +
                                       " x " + num(n));
    fail(Eigen::InvalidInput, e.what());
    throw e;
  }
  [[noreturn]] void not_ready(const char* who) const {
    throw error(std::string("exala::eigen::") + who +
                ": no successful compute() before this call (" +
                (message_.empty() ? std::string("not computed") : message_) + ")");
  }

  mutable Eigen::ComputationInfo info_ = Eigen::InvalidInput;
  mutable std::string message_ = "compute() has not been called";
  mutable Index index_ = -1;
};

// What the triangular solvers share: the copied matrix, its checks and the
// right-hand-side plumbing.
template <int Mode>
class triangular_base : public solver_status {
  static_assert(Mode == Eigen::Lower || Mode == Eigen::Upper || Mode == Eigen::UnitLower ||
                    Mode == Eigen::UnitUpper,
                "exala::eigen: Mode must be Eigen::Lower, Upper, UnitLower or UnitUpper");

 public:
  static constexpr uplo ul = (Mode & Eigen::Lower) ? uplo::lower : uplo::upper;
  static constexpr diag dg = (Mode & Eigen::UnitDiag) ? diag::unit : diag::non_unit;

  Index rows() const noexcept { return t_.rows(); }
  Index cols() const noexcept { return t_.cols(); }
  // 0-based row of the first exact zero on a non-unit diagonal, else -1.
  Index singularRow() const noexcept { return index_; }
  // The stored copy of the matrix (only the Mode triangle is used).
  const Eigen::MatrixXd& matrix() const noexcept { return t_; }

 protected:
  template <class D>
  void compute_matrix(const Eigen::MatrixBase<D>& T, const char* who) {
    ready_ = false;
    index_ = -1;
    t_.resize(0, 0);
    if (T.rows() != T.cols()) {
      fail(Eigen::InvalidInput,
           invalid_argument("T", "is " + num(T.rows()) + " x " + num(T.cols()) +
                                     ", not square (" + who + "::compute)")
               .what());
      return;
    }
    t_ = T;  // an expression is evaluated here, element by element
    if constexpr (dg == diag::non_unit) {
      for (Index i = 0; i < t_.rows(); ++i)
        if (t_(i, i) == 0.0) {
          fail(Eigen::NumericalIssue, singular_matrix(std::string(who) + "::compute", i).what(), i);
          return;
        }
    }
    succeed();
    ready_ = true;
  }

  // x (a copy of b) := T^-1 x by solve_col(column pointer) or solve_all(X).
  template <class D, class Col, class All>
  auto solve_rhs(const Eigen::MatrixBase<D>& b, const char* who, Col&& solve_col,
                 All&& solve_all) const {
    if (!ready_) not_ready(who);
    if (b.rows() != t_.rows()) bad_rhs("b", b.rows(), t_.rows());
    if constexpr (int(D::ColsAtCompileTime) == 1) {
      Eigen::VectorXd x = b;
      attempt([&] { solve_col(x.data()); }, true);
      return x;
    } else {
      Eigen::MatrixXd x = b;
      attempt([&] { solve_all(x); }, true);
      return x;
    }
  }

  std::int64_t n() const noexcept { return static_cast<std::int64_t>(t_.rows()); }
  std::int64_t ld() const noexcept { return std::max<std::int64_t>(1, n()); }

  Eigen::MatrixXd t_;
  bool ready_ = false;
};

}  // namespace detail

// Solves T x = b with exala::trsv: each x_i the correctly rounded quotient of
// the exact numerator, reproducible on every backend (exact whenever the
// solution is representable); matrix right-hand sides use exala::trsm, whose
// columns have trsv's bits. With setRefinementSteps(k > 0), each column is
// solved by exala::trsv_exact_refined (<= 1 ulp per component while
// cond * u < 1/n), at most k refinement steps. Expression arguments (T and
// b) are evaluated element-wise by Eigen first.
template <int Mode>
class ExactTriangularSolver : public detail::triangular_base<Mode> {
  using base = detail::triangular_base<Mode>;

 public:
  ExactTriangularSolver() = default;
  template <class D>
  explicit ExactTriangularSolver(const Eigen::MatrixBase<D>& T) {
    compute(T);
  }

  // Copies T and checks it (square; non-unit diagonal without exact zeros).
  template <class D>
  ExactTriangularSolver& compute(const Eigen::MatrixBase<D>& T) {
    this->compute_matrix(T, "ExactTriangularSolver");
    return *this;
  }

  // 0: plain exala::trsv / trsm (the default); 1..100: exala::trsv_exact_refined
  // with that many residuals at most (exec.mode must then be to_nearest_even).
  // Throws exala::invalid_argument("steps") outside 0..100.
  ExactTriangularSolver& setRefinementSteps(int steps) {
    if (steps < 0 || steps > 100)
      throw invalid_argument("steps", "must be in 0..100, got " + std::to_string(steps));
    steps_ = steps;
    return *this;
  }
  int refinementSteps() const noexcept { return steps_; }
  // The backend, threads, rounding direction and block size of the solves
  // (the bits depend on the rounding direction only).
  ExactTriangularSolver& setExec(const exec& ex) {
    ex_ = ex;
    return *this;
  }
  const exec& execution() const noexcept { return ex_; }
  // The refinement of the last solve (steps: the most any column took;
  // converged: every column converged). Zero-initialised without refinement.
  const refinement_report& refinementReport() const noexcept { return report_; }

  // x with T x = b (a vector for a vector b, else a matrix). Throws
  // exala::error after a failed or missing compute(), and records and throws
  // invalid_argument("b") when b has the wrong number of rows.
  template <class D>
  auto solve(const Eigen::MatrixBase<D>& b) const {
    report_ = {};
    const std::int64_t n = this->n(), ld = this->ld();
    const double* t = this->t_.data();
    return this->solve_rhs(
        b, "ExactTriangularSolver::solve",
        [&](double* x) {
          if (steps_ == 0)
            exala::trsv(layout::col_major, base::ul, transpose::none, base::dg, n, t, ld, x, 1, ex_);
          else
            report_ = trsv_exact_refined(layout::col_major, base::ul, transpose::none, base::dg, n,
                                         t, ld, x, 1, steps_, ex_);
        },
        [&](Eigen::MatrixXd& X) {
          const std::int64_t nrhs = static_cast<std::int64_t>(X.cols());
          if (steps_ == 0) {
            exala::trsm(layout::col_major, side::left, base::ul, transpose::none, base::dg, n, nrhs,
                        1.0, t, ld, X.data(), ld, ex_);
            return;
          }
          refinement_report all;
          all.converged = true;
          for (std::int64_t j = 0; j < nrhs; ++j) {
            const refinement_report r = trsv_exact_refined(
                layout::col_major, base::ul, transpose::none, base::dg, n, t, ld,
                X.data() + j * ld, 1, steps_, ex_);
            all.steps = std::max(all.steps, r.steps);
            all.converged = all.converged && r.converged;
          }
          report_ = all;
        });
  }

 private:
  int steps_ = 0;
  exec ex_{};
  mutable refinement_report report_{};
};

// Solves T x = b with the compensated substitution exala::trsv_compensated
// (CENA), or exala::trsv_double_double with setMethod(compensation::
// double_double): as accurate as substitution in twice the working precision
// then rounded, ||x - x^|| / ||x|| <~ u + n cond(T, x) u^2, reproducible on
// every SIMD kernel set. Expression arguments are evaluated by Eigen first.
template <int Mode>
class CompensatedTriangularSolver : public detail::triangular_base<Mode> {
  using base = detail::triangular_base<Mode>;

 public:
  CompensatedTriangularSolver() = default;
  template <class D>
  explicit CompensatedTriangularSolver(const Eigen::MatrixBase<D>& T) {
    compute(T);
  }

  template <class D>
  CompensatedTriangularSolver& compute(const Eigen::MatrixBase<D>& T) {
    this->compute_matrix(T, "CompensatedTriangularSolver");
    return *this;
  }
  CompensatedTriangularSolver& setMethod(compensation m) noexcept {
    method_ = m;
    return *this;
  }
  compensation method() const noexcept { return method_; }

  // x with T x = b, column by column; errors as ExactTriangularSolver::solve.
  template <class D>
  auto solve(const Eigen::MatrixBase<D>& b) const {
    const std::int64_t n = this->n(), ld = this->ld();
    const double* t = this->t_.data();
    const auto one = [&](double* x) {
      if (method_ == compensation::cena)
        trsv_compensated(layout::col_major, base::ul, transpose::none, base::dg, n, t, ld, x, 1);
      else
        trsv_double_double(layout::col_major, base::ul, transpose::none, base::dg, n, t, ld, x, 1);
    };
    return this->solve_rhs(b, "CompensatedTriangularSolver::solve", one, [&](Eigen::MatrixXd& X) {
      for (Index j = 0; j < X.cols(); ++j) one(X.col(j).data());
    });
  }

 private:
  compensation method_ = compensation::cena;
};

// The stripe LU (exala::stripe_lu): Gauss elimination by stripes with local
// (or, in core, partial) pivoting, reproducible for given (stripe, substripe,
// pivoting, engine) options; solveRefined() refines against the exact
// residual (exala::gemv), down to a normwise backward error of about u.
// In core: compute(A) factors a copy of the square matrix A (an expression
// is evaluated by Eigen first; a row-major A is copied to column-major order).
// Out of core: compute(workdirs) factors the system stored in a work
// directory set (written by exala::generate_dense_system, `exala generate`
// or `exala import`), resuming a partial run as exala::stripe_lu does.
class StripeLU : public detail::solver_status {
 public:
  StripeLU() = default;
  template <class D>
  explicit StripeLU(const Eigen::MatrixBase<D>& A, const stripe_lu_options& opt = {}) {
    compute(A, opt);
  }
  explicit StripeLU(const std::vector<std::string>& workdirs, const stripe_lu_options& opt = {}) {
    compute(workdirs, opt);
  }

  template <class D>
  StripeLU& compute(const Eigen::MatrixBase<D>& A, const stripe_lu_options& opt = {}) {
    lu_.reset();
    index_ = -1;
    if (A.rows() != A.cols()) {
      fail(Eigen::InvalidInput,
           invalid_argument("A", "is " + detail::num(A.rows()) + " x " + detail::num(A.cols()) +
                                     ", not square (StripeLU::compute)")
               .what());
      return *this;
    }
    const ConstMatrixRef a(A.derived());
    attempt(
        [&] {
          const std::int64_t n = static_cast<std::int64_t>(a.rows());
          const std::int64_t ld =
              n <= 1 ? 1 : std::max<std::int64_t>(n, static_cast<std::int64_t>(a.outerStride()));
          lu_.emplace(n, a.data(), ld, opt);
        },
        false);
    return *this;
  }

  StripeLU& compute(const std::vector<std::string>& workdirs, const stripe_lu_options& opt = {}) {
    lu_.reset();
    index_ = -1;
    attempt([&] { lu_.emplace(workdirs, opt); }, false);
    return *this;
  }

  Index rows() const noexcept { return lu_ ? static_cast<Index>(lu_->n()) : 0; }
  Index cols() const noexcept { return rows(); }
  // 0-based column of the zero or numerically singular pivot, else -1.
  Index singularColumn() const noexcept { return index_; }

  // x := A^-1 b with the factors (no refinement). Errors: see the top.
  template <class D>
  auto solve(const Eigen::MatrixBase<D>& b) const {
    const exala::stripe_lu& lu = ready("StripeLU::solve");
    if (b.rows() != rows()) bad_rhs("b", b.rows(), rows());
    if constexpr (int(D::ColsAtCompileTime) == 1) {
      Eigen::VectorXd x = b;
      attempt([&] { lu.solve(1, x.data(), ld()); }, true);
      return x;
    } else {
      Eigen::MatrixXd x = b;
      attempt([&] { lu.solve(static_cast<std::int64_t>(x.cols()), x.data(), ld()); }, true);
      return x;
    }
  }

  // x solving A x = b, refined against the exact residual r = b - A x
  // (exala::gemv, one rounding per entry) for at most maxRefine steps
  // (0..100); refineReport() then has the backward errors before and after.
  template <class D>
  auto solveRefined(const Eigen::MatrixBase<D>& b, int maxRefine = 10) const {
    const exala::stripe_lu& lu = ready("StripeLU::solveRefined");
    if (b.rows() != rows()) bad_rhs("b", b.rows(), rows());
    if constexpr (int(D::ColsAtCompileTime) == 1) {
      const ConstVectorRef br(b.derived());
      Eigen::VectorXd contiguous;
      const double* bp = br.data();
      if (br.size() > 1 && br.innerStride() != 1) {
        contiguous = br;
        bp = contiguous.data();
      }
      Eigen::VectorXd x(b.rows());
      attempt([&] { refine_ = lu.solve_refined(1, bp, ld(), x.data(), ld(), maxRefine); }, true);
      return x;
    } else {
      const ConstMatrixRef br(b.derived());
      Eigen::MatrixXd x(b.rows(), b.cols());
      const std::int64_t ldb = br.cols() <= 1 ? ld() : std::max<std::int64_t>(ld(), br.outerStride());
      attempt(
          [&] {
            refine_ = lu.solve_refined(static_cast<std::int64_t>(x.cols()), br.data(), ldb,
                                       x.data(), ld(), maxRefine);
          },
          true);
      return x;
    }
  }

  // The right-hand sides stored in the work directory, solved and (when
  // maxRefine > 0) refined; n x nrhs. Out-of-core objects only (otherwise
  // recorded and thrown as invalid_argument).
  Eigen::MatrixXd solveStored(int maxRefine = 10) const {
    const exala::stripe_lu& lu = ready("StripeLU::solveStored");
    std::vector<double> x;
    attempt([&] { refine_ = lu.solve_stored(x, maxRefine); }, true);
    const Index n = rows();
    const Index nrhs = n > 0 ? static_cast<Index>(x.size()) / n : 0;
    return Eigen::Map<const Eigen::MatrixXd>(x.data(), n, nrhs);
  }

  // Normwise backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)
  // with the exact residual (exala::stripe_lu::backward_error; max over the
  // columns). b and x must have the same shape, with n rows.
  double backwardError(const ConstMatrixRef& b, const ConstMatrixRef& x) const {
    const exala::stripe_lu& lu = ready("StripeLU::backwardError");
    if (b.rows() != rows()) bad_rhs("b", b.rows(), rows());
    if (x.rows() != b.rows() || x.cols() != b.cols()) {
      const invalid_argument e("x", "is " + detail::num(x.rows()) + " x " + detail::num(x.cols()) +
                                        " but b is " + detail::num(b.rows()) + " x " +
                                        detail::num(b.cols()));
      fail(Eigen::InvalidInput, e.what());
      throw e;
    }
    const auto ldof = [&](const ConstMatrixRef& m) {
      return m.cols() <= 1 ? ld() : std::max<std::int64_t>(ld(), m.outerStride());
    };
    double eta = 0;
    attempt(
        [&] {
          eta = lu.backward_error(static_cast<std::int64_t>(b.cols()), b.data(), ldof(b), x.data(),
                                  ldof(x));
        },
        true);
    return eta;
  }

  // The factorization's report (sizes, timing, I/O, min pivot ratio).
  const stripe_lu_report& report() const { return ready("StripeLU::report").report(); }
  // The last solveRefined() / solveStored() report.
  const refine_report& refineReport() const noexcept { return refine_; }
  // The underlying exala::stripe_lu (throws exala::error without one).
  const exala::stripe_lu& factorization() const { return ready("StripeLU::factorization"); }

 private:
  const exala::stripe_lu& ready(const char* who) const {
    if (!lu_) not_ready(who);
    return *lu_;
  }
  std::int64_t ld() const noexcept { return std::max<std::int64_t>(1, lu_ ? lu_->n() : 0); }

  std::optional<exala::stripe_lu> lu_;
  mutable refine_report refine_{};
};

}  // namespace exala::eigen
