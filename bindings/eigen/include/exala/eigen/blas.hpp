// exala/eigen/blas.hpp - exact and correctly rounded BLAS on Eigen vectors
// and matrices (part of <exala/eigen.hpp>; see there for the rules).
//
// Every function here is a thin front end over the C++ API (exala/blas1.hpp,
// blas2.hpp, blas3.hpp): it finds the pointer, the length or shape, the
// stride or leading dimension and the storage order of its Eigen arguments
// and calls the exala routine once, so its result has exactly that routine's
// bits and guarantee.
//
// EXPRESSIONS ARE EVALUATED FIRST. An argument that is not plain storage
// (x + y, 2 * A, A.transpose() * B, v.reverse(), ...) is evaluated by Eigen
// into a temporary, each element rounded by ordinary floating-point
// arithmetic, and only then does the exact routine see it. sum(x + y) is
// therefore the correctly rounded sum of the rounded elements fl(x_i + y_i),
// not the exact sum of the x_i and y_i (exact(x + y).sum() of
// exala/eigen/exact.hpp is). Arguments that ARE plain storage are
// never copied: vectors with any inner stride (a row of a column-major
// matrix, Map with InnerStride<>, a negative stride), matrices and blocks of
// either storage order with any outer stride, and A.transpose() of such a
// matrix (read as the other storage order).
//
// Aliasing: an output (y of gemv, C of gemm) that overlaps an input in
// memory is handled as Eigen's own `y = A * x` is: the overlapping input is
// copied first (bit for bit), so the result is that of distinct operands.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/error.hpp"

namespace exala::eigen {

using Index = Eigen::Index;
using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Read-only vector with any inner stride (binds a matrix row or column,
// segment, or strided Map without a copy; anything else is evaluated).
using ConstVectorRef = Eigen::Ref<const Eigen::VectorXd, 0, Eigen::InnerStride<>>;
// Writable vector with any inner stride (must be plain storage).
using VectorRef = Eigen::Ref<Eigen::VectorXd, 0, Eigen::InnerStride<>>;
// Read-only matrices with contiguous columns (resp. rows) and any outer
// stride: whole matrices and blocks of them bind without a copy.
using ConstMatrixRef = Eigen::Ref<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
using ConstRowMatrixRef = Eigen::Ref<const RowMatrixXd, 0, Eigen::OuterStride<>>;
using MatrixRef = Eigen::Ref<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
using RowMatrixRef = Eigen::Ref<RowMatrixXd, 0, Eigen::OuterStride<>>;

namespace detail {

inline std::string num(Index v) { return std::to_string(static_cast<long long>(v)); }

// A vector as BLAS sees it: n elements from p with increment inc, where a
// negative increment starts at the lowest address (BLAS's rule), so that
// logical element i is Eigen's element i for every stride sign.
struct vector_view {
  std::int64_t n = 0;
  const double* p = nullptr;
  std::int64_t inc = 1;
};
struct mutable_vector_view {
  std::int64_t n = 0;
  double* p = nullptr;
  std::int64_t inc = 1;
};

// The address span of the stride is checked (exala/checked.hpp) before any
// pointer is moved: a Map with a stride of 2^62 is refused naming `name`.
template <class View, class Ref>
View vector_view_of(Ref& v, const char* name) {
  View r;
  r.n = static_cast<std::int64_t>(v.size());
  r.inc = static_cast<std::int64_t>(v.innerStride());
  exala::detail::check_vector_span(name, r.n, r.inc);
  r.p = v.data();
  if (r.n > 1 && r.inc < 0) r.p += (r.n - 1) * r.inc;
  return r;
}
inline vector_view view(const ConstVectorRef& v, const char* name) {
  return vector_view_of<vector_view>(v, name);
}
inline mutable_vector_view view(VectorRef& v, const char* name) {
  return vector_view_of<mutable_vector_view>(v, name);
}

// A matrix as column-major storage S (rows x cols, leading dimension ld);
// the Eigen matrix is S, or S^T when `transposed` (row-major storage).
template <class Ptr>
struct basic_matrix_view {
  std::int64_t rows = 0, cols = 0;
  Ptr p = nullptr;
  std::int64_t ld = 1;
  bool transposed = false;
};
using matrix_view = basic_matrix_view<const double*>;
using mutable_matrix_view = basic_matrix_view<double*>;

// Builds the view of a Ref; `name` is the argument named in errors.
template <class View, class Ref>
View matrix_view_of(Ref& m, const char* name) {
  constexpr bool row_major = (int(std::remove_cvref_t<Ref>::Flags) & Eigen::RowMajorBit) != 0;
  View v;
  v.transposed = row_major;
  v.rows = static_cast<std::int64_t>(row_major ? m.cols() : m.rows());
  v.cols = static_cast<std::int64_t>(row_major ? m.rows() : m.cols());
  v.p = m.data();
  const std::int64_t outer = static_cast<std::int64_t>(m.outerStride());
  if (v.cols <= 1) {
    v.ld = std::max<std::int64_t>(1, v.rows);  // one stored column: ld is never used
  } else {
    if (outer < v.rows)
      throw invalid_argument(name, std::string("has outer stride ") + num(outer) + " < " +
                                       num(v.rows) +
                                       " (overlapping columns/rows are not supported)");
    v.ld = std::max<std::int64_t>(1, outer);
  }
  // Element count and address span within 2^60 - 1 (exala/checked.hpp),
  // before any address is formed from the outer stride.
  exala::detail::check_matrix_extent(name, name, false, v.rows, v.cols, v.ld);
  return v;
}

// Which Ref a matrix argument binds to: the row-major one for row-major
// storage (a 1 x n row is taken as a column-major 1 x n matrix, which fits
// any stride), the column-major one otherwise.
template <class D>
inline constexpr bool prefers_row_major =
    (int(D::Flags) & Eigen::RowMajorBit) != 0 && int(D::RowsAtCompileTime) != 1;

// Calls f(matrix_view) for a read-only matrix argument, bound without a
// copy when it is plain storage, else evaluated by Eigen into the Ref.
template <class D, class F>
decltype(auto) with_matrix(const Eigen::MatrixBase<D>& a, const char* name, F&& f) {
  if constexpr (prefers_row_major<D>) {
    const ConstRowMatrixRef r(a.derived());
    return std::forward<F>(f)(matrix_view_of<matrix_view>(r, name));
  } else {
    const ConstMatrixRef r(a.derived());
    return std::forward<F>(f)(matrix_view_of<matrix_view>(r, name));
  }
}

// The same for a writable matrix argument: bound to MatrixRef / RowMatrixRef
// when its storage allows it; otherwise computed in a column-major temporary
// (initialised from it) and assigned back.
template <class DC, class F>
void with_mutable_matrix(DC&& c, F&& f) {
  using P = std::remove_cvref_t<DC>;
  static_assert(!std::is_const_v<std::remove_reference_t<DC>>,
                "exala::eigen: the output matrix must be writable");
  constexpr bool as_row = std::is_constructible_v<RowMatrixRef, P&>;
  constexpr bool as_col = std::is_constructible_v<MatrixRef, P&>;
  if constexpr (as_row && (prefers_row_major<P> || !as_col)) {
    RowMatrixRef r(c);
    f(matrix_view_of<mutable_matrix_view>(r, "C"));
  } else if constexpr (as_col) {
    MatrixRef r(c);
    f(matrix_view_of<mutable_matrix_view>(r, "C"));
  } else {
    Eigen::MatrixXd t = c;
    MatrixRef r(t);
    f(matrix_view_of<mutable_matrix_view>(r, "C"));
    c = t;
  }
}

// Address ranges, for the aliasing rule (std::less: a total order).
struct span_range {
  const double* lo = nullptr;
  const double* hi = nullptr;  // last element
  bool empty = true;
};
inline span_range range_of(std::int64_t n, const double* p, std::int64_t inc) {
  if (n <= 0) return {};
  const std::int64_t s = inc < 0 ? -inc : inc;
  return {p, p + (n - 1) * s, false};
}
template <class Ptr>
span_range range_of(const basic_matrix_view<Ptr>& m) {
  if (m.rows <= 0 || m.cols <= 0) return {};
  return {m.p, m.p + (m.cols - 1) * m.ld + (m.rows - 1), false};
}
inline bool overlaps(const span_range& a, const span_range& b) {
  if (a.empty || b.empty) return false;
  std::less<const double*> lt;
  return !(lt(a.hi, b.lo) || lt(b.hi, a.lo));
}

// A column-major copy of the matrix a view describes (the view's S).
inline Eigen::MatrixXd copy_of(const matrix_view& m) {
  Eigen::MatrixXd t(m.rows, m.cols);
  for (std::int64_t j = 0; j < m.cols; ++j)
    for (std::int64_t i = 0; i < m.rows; ++i) t(i, j) = m.p[i + j * m.ld];
  return t;
}

inline transpose flip(transpose t) {
  return t == transpose::none ? transpose::trans : transpose::none;
}
// op applied to the Eigen matrix, as an op of its column-major storage S.
inline transpose storage_op(transpose op, bool transposed) { return transposed ? flip(op) : op; }

// y = alpha op(A) x + beta y: exala::gemv, one call.
inline void gemv(transpose op, double alpha, matrix_view a, vector_view x, double beta,
                 mutable_vector_view y, const exec& ex) {
  const transpose sop = storage_op(op, a.transposed);
  const std::int64_t out = sop == transpose::none ? a.rows : a.cols;
  const std::int64_t in = sop == transpose::none ? a.cols : a.rows;
  if (x.n != in)
    throw invalid_argument("x", "has " + num(x.n) + " elements but op(A) has " + num(in) +
                                    " columns");
  if (y.n != out)
    throw invalid_argument("y", "has " + num(y.n) + " elements but op(A) has " + num(out) +
                                    " rows");
  if (y.n > 1 && y.inc == 0)
    throw invalid_argument("y", "has inner stride 0 (an output needs distinct elements)");
  const span_range yr = range_of(y.n, y.p, y.inc);
  Eigen::MatrixXd a_copy;
  Eigen::VectorXd x_copy;
  if (overlaps(yr, range_of(a))) {
    a_copy = copy_of(a);
    a.p = a_copy.data();
    a.ld = std::max<std::int64_t>(1, a.rows);
  }
  if (overlaps(yr, range_of(x.n, x.p, x.inc))) {
    x_copy.resize(x.n);
    for (std::int64_t i = 0; i < x.n; ++i) x_copy[i] = x.p[x.inc < 0 ? (x.n - 1 - i) * -x.inc : i * x.inc];
    x = {x.n, x_copy.data(), 1};
  }
  exala::gemv(layout::col_major, sop, a.rows, a.cols, alpha, a.p, a.ld, x.p, x.inc, beta, y.p,
              y.inc, ex);
}

// C = alpha op(A) op(B) + beta C: exala::gemm, one call on column-major
// storage (a row-major C is computed as C^T = op(B)^T op(A)^T).
inline void gemm(transpose ta, transpose tb, double alpha, matrix_view a, matrix_view b,
                 double beta, mutable_matrix_view c, const exec& ex) {
  const transpose sa = storage_op(ta, a.transposed), sb = storage_op(tb, b.transposed);
  const std::int64_t m = sa == transpose::none ? a.rows : a.cols;
  const std::int64_t k = sa == transpose::none ? a.cols : a.rows;
  const std::int64_t kb = sb == transpose::none ? b.rows : b.cols;
  const std::int64_t n = sb == transpose::none ? b.cols : b.rows;
  if (kb != k)
    throw invalid_argument("B", "op(B) has " + num(kb) + " rows but op(A) has " + num(k) +
                                    " columns");
  const std::int64_t cm = c.transposed ? c.cols : c.rows, cn = c.transposed ? c.rows : c.cols;
  if (cm != m || cn != n)
    throw invalid_argument("C", "is " + num(cm) + " x " + num(cn) + " but op(A) op(B) is " +
                                    num(m) + " x " + num(n));
  const span_range cr = range_of(c);
  Eigen::MatrixXd a_copy, b_copy;
  if (overlaps(cr, range_of(a))) {
    a_copy = copy_of(a);
    a.p = a_copy.data();
    a.ld = std::max<std::int64_t>(1, a.rows);
  }
  if (overlaps(cr, range_of(b))) {
    b_copy = copy_of(b);
    b.p = b_copy.data();
    b.ld = std::max<std::int64_t>(1, b.rows);
  }
  if (!c.transposed)
    exala::gemm(layout::col_major, sa, sb, m, n, k, alpha, a.p, a.ld, b.p, b.ld, beta, c.p, c.ld,
                ex);
  else
    exala::gemm(layout::col_major, flip(sb), flip(sa), n, m, k, alpha, b.p, b.ld, a.p, a.ld, beta,
                c.p, c.ld, ex);
}

}  // namespace detail

// ------------------------------------------------------------------ level 1
// Each takes vectors with any inner stride without a copy; an expression
// argument is first evaluated by Eigen (rounded element-wise), see the top.

// Correctly rounded sum of x_i (exala::sum: exact accumulation, one rounding
// in ex.mode). An expression x is evaluated element-wise by Eigen first.
inline double sum(const ConstVectorRef& x, const exec& ex = {}) {
  const detail::vector_view v = detail::view(x, "x");
  return exala::sum(v.n, v.p, v.inc, ex);
}

// Correctly rounded sum of |x_i| (exala::asum). An expression x is evaluated
// element-wise by Eigen first.
inline double asum(const ConstVectorRef& x, const exec& ex = {}) {
  const detail::vector_view v = detail::view(x, "x");
  return exala::asum(v.n, v.p, v.inc, ex);
}

// Correctly rounded sum of x_i * y_i, every product exact (exala::dot).
// Expression arguments are evaluated element-wise by Eigen first. Throws
// exala::invalid_argument("y") if the sizes differ.
inline double dot(const ConstVectorRef& x, const ConstVectorRef& y, const exec& ex = {}) {
  if (x.size() != y.size())
    throw invalid_argument("y", "has " + detail::num(y.size()) + " elements but x has " +
                                    detail::num(x.size()));
  const detail::vector_view a = detail::view(x, "x"), b = detail::view(y, "y");
  return exala::dot(a.n, a.p, a.inc, b.p, b.inc, ex);
}

// Correctly rounded Euclidean norm (exala::nrm2: exact sum of squares, one
// rounding of its square root). An expression x is evaluated by Eigen first.
inline double nrm2(const ConstVectorRef& x, const exec& ex = {}) {
  const detail::vector_view v = detail::view(x, "x");
  return exala::nrm2(v.n, v.p, v.inc, ex);
}

// ------------------------------------------------------------------ level 2
// A: any Eigen matrix. Plain column- or row-major storage (whole, a block,
// any outer stride, or the .transpose() of one) is read in place; an
// expression is evaluated element-wise by Eigen first.

// y = alpha op(A) x + beta y, each y_i correctly rounded once from the exact
// value (exala::gemv). y must be plain storage (any inner stride); beta == 0
// does not read y. Expression arguments A, x are evaluated by Eigen first.
// Throws exala::invalid_argument naming x or y on a size mismatch.
template <class DA>
void gemv(transpose op, double alpha, const Eigen::MatrixBase<DA>& A, const ConstVectorRef& x,
          double beta, VectorRef y, const exec& ex = {}) {
  detail::with_matrix(A, "A", [&](const detail::matrix_view& a) {
    detail::gemv(op, alpha, a, detail::view(x, "x"), beta, detail::view(y, "y"), ex);
  });
}

// Returns A x, each entry correctly rounded once from the exact dot product
// (exala::gemv with alpha = 1, beta = 0). Expression arguments are evaluated
// by Eigen first (A.transpose() of a plain matrix is not: it is read in place).
template <class DA>
Eigen::VectorXd gemv(const Eigen::MatrixBase<DA>& A, const ConstVectorRef& x, const exec& ex = {}) {
  Eigen::VectorXd y(A.rows());
  gemv(transpose::none, 1.0, A, x, 0.0, y, ex);
  return y;
}

// ------------------------------------------------------------------ level 3

// C = alpha op(A) op(B) + beta C, each C_ij correctly rounded once from the
// exact value (exala::gemm). C is any writable matrix (plain storage of
// either order is written in place); beta == 0 does not read C. Expression
// arguments A, B are evaluated by Eigen first. Throws
// exala::invalid_argument naming B or C on a size mismatch.
template <class DA, class DB, class DC>
  requires std::is_base_of_v<Eigen::MatrixBase<std::remove_cvref_t<DC>>, std::remove_cvref_t<DC>>
void gemm(transpose ta, transpose tb, double alpha, const Eigen::MatrixBase<DA>& A,
          const Eigen::MatrixBase<DB>& B, double beta, DC&& C, const exec& ex = {}) {
  detail::with_matrix(A, "A", [&](const detail::matrix_view& a) {
    detail::with_matrix(B, "B", [&](const detail::matrix_view& b) {
      detail::with_mutable_matrix(std::forward<DC>(C), [&](const detail::mutable_matrix_view& c) {
        detail::gemm(ta, tb, alpha, a, b, beta, c, ex);
      });
    });
  });
}

// Returns A B, each entry correctly rounded once from the exact sum
// (exala::gemm with alpha = 1, beta = 0). Expression arguments are
// evaluated by Eigen first (A.transpose() of a plain matrix is read in place).
template <class DA, class DB>
Eigen::MatrixXd gemm(const Eigen::MatrixBase<DA>& A, const Eigen::MatrixBase<DB>& B,
                     const exec& ex = {}) {
  Eigen::MatrixXd C(A.rows(), B.cols());
  gemm(transpose::none, transpose::none, 1.0, A, B, 0.0, C, ex);
  return C;
}

}  // namespace exala::eigen
