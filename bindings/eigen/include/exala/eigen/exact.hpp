// exala/eigen/exact.hpp - exala::eigen::exact(expr): Eigen expressions
// evaluated exactly and rounded once (part of <exala/eigen.hpp>).
//
// Guarantee: every result below is the exact real value of the written
// expression, correctly rounded once in exec.mode (to nearest even by
// default); reductions and coefficients are found in a Kulisch long
// accumulator (exala::superaccumulator for terms of up to two doubles,
// detail::wide_accumulator for terms of three), products and solves by one
// exala::gemv / gemm / trsv / trsm call.
//
//   exact(x + y - 2*z).sum()           one rounding of sum_i (x_i + y_i - 2 z_i)
//   exact(x).dot(y), exact(x - y).dot(w + v), exact(x).squaredNorm(), .norm()
//   exact(x - y).cwiseAbs().sum()      one rounding of sum_i |x_i - y_i|
//   VectorXd v = exact(x + y - z);     each v_i rounded once (an Eigen
//                                      nullary expression: works wherever
//                                      an Eigen expression does)
//   y.noalias() = exact(A) * x;        exala::gemv, beta = 0
//   y.noalias() += alpha * exact(A).transpose() * x;  ONE gemv, beta = 1
//   y.noalias() -= exact(A) * x;       one gemv, alpha = -1, beta = 1
//   C.noalias() = exact(A) * B;        exala::gemm (+=, -=, alpha, transpose too)
//   exact(A).triangularView<Eigen::Lower>().solve(b)  exala::trsv / trsm
//
// What "an expression" may be (checked at compile time; anything else is a
// compile-time error naming the concept exala::eigen::exact_expression):
// leaves are plain storage (anything with Eigen's DirectAccessBit: Matrix,
// Map, Ref, a Block of those, .transpose() of those) and scalars (2*x, x*a);
// nodes are +, - (binary and unary), .cwiseProduct, scalar *, .transpose(),
// and .cwiseAbs() of a leaf. Expanded by distributivity, the expression is
// a signed sum of TERMS; every term must be a product of at most THREE
// doubles (scalars count): exact(a * x + b * y).dot(w) has terms
// a x_i w_i. Terms of up to two doubles go to exala::superaccumulator;
// three, which span 2^-3222 .. 2^3072 (beyond that accumulator), to the
// wider detail::wide_accumulator. squaredNorm, norm and cwiseAbs().sum()
// take terms of at most two doubles (their square root / sign need the
// library's accumulator). More factors (exact(a * x.cwiseProduct(y))
// .dot(w), exact(2 * x).squaredNorm()) do not satisfy the constraints
// exala::eigen::exact_expression / exact_product / exact_product2: a
// compile-time error.
// Division, sqrt, .array() and the rest of Eigen's nodes are rejected the
// same way. The table in bindings/eigen/README.md lists every form.
//
// Products: exact(A) * B with A and B plain storage is one gemv / gemm
// call; with A or B a sum / difference / transpose of plain storage
// (exact(A + E) * (x - z)) each entry is accumulated term by term and
// rounded once (no kernel: O(m n k) accumulator steps). A scaled or
// multiplied operand (exact(2.0 * A) * x) is rejected at compile time (write
// 2.0 * exact(A) * x). Solves take plain storage only (T and b).
//
// Everything else Eigen offers on exact(e) (exact(e) + w, .mean(),
// .maxCoeff(), ...) is Eigen's own arithmetic on the correctly rounded
// coefficients: exact(e) is an ordinary Eigen expression whose coefficients
// are rounded once each; only the members named above are exact reductions.
//
// Sizes: exact(e) checks that the operands of every node have the same
// shape (Eigen itself only asserts, which Release builds drop) and throws
// exala::invalid_argument("expr") otherwise; dot throws naming "other",
// products name x / y / B / C and solves A / b, as the function adapters do.
#pragma once

#include <cmath>
#include <concepts>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include "exala/eigen/blas.hpp"
#include "exala/eigen/detail/wide_accumulator.hpp"
#include "exala/eigen/solvers.hpp"
#include "exala/superaccumulator.hpp"

namespace exala::eigen {

namespace detail {

// One term: the product of n (1, 2 or 3) doubles f[0] * ... * f[n-1].
struct term {
  double f[3] = {0.0, 0.0, 0.0};
  int n = 0;
};

// Adds a term exactly to an accumulator (IEEE specials go to its flags:
// inf * 0 is NaN). The superaccumulator holds terms of up to two doubles.
inline void add_term(superaccumulator& acc, const term& t) {
  if (t.n == 1)
    acc.add(t.f[0]);
  else
    acc.add_product(t.f[0], t.f[1]);
}
inline void add_term(wide_accumulator& acc, const term& t) { acc.add(t.f, t.n); }

// The accumulator for terms of at most `factors` doubles: the library's
// superaccumulator up to two, the wide one for three.
template <int factors>
using accumulator_for =
    std::conditional_t<(factors <= 2), superaccumulator, wide_accumulator>;

// The product of two terms (a.n + b.n <= 3: checked by the concepts).
inline term times(const term& a, const term& b) {
  term t = a;
  for (int k = 0; k < b.n; ++k) t.f[t.n++] = b.f[k];
  return t;
}

template <class X>
inline constexpr bool is_plain =
    std::is_base_of_v<Eigen::MatrixBase<X>, X> && (int(X::Flags) & Eigen::DirectAccessBit) != 0;

// expr_terms<X>: the terms of coefficient (i, j) of expression X.
//   supported    X is a node this header knows how to expand exactly
//   max_factors  the most doubles in one term
//   each(x, i, j, f) calls f(term) for every term of x(i, j)
//   check(x)     throws invalid_argument("expr") if operand shapes differ
// The primary template is every node we do not expand.
//   count        the number of terms of one coefficient
template <class X, class = void>
struct expr_terms {
  static constexpr bool supported = false;
  static constexpr int max_factors = 99;
  static constexpr int count = 0;
};

// A leaf: one term of one factor, Leaf::value(x, i, j).
template <class X, class Leaf>
struct one_factor_leaf {
  static constexpr bool supported = true;
  static constexpr int max_factors = 1;
  static constexpr int count = 1;
  template <class F>
  static void each(const X& x, Index i, Index j, F&& f) {
    term t;
    t.f[0] = Leaf::value(x, i, j);
    t.n = 1;
    f(t);
  }
  static void check(const X&) {}
};

template <class X>
struct expr_terms<X, std::enable_if_t<is_plain<X>>> : one_factor_leaf<X, expr_terms<X>> {
  static double value(const X& x, Index i, Index j) { return x.coeff(i, j); }
};

// A scalar: Eigen's `a * x` holds a as a constant nullary expression.
template <class P>
struct expr_terms<Eigen::CwiseNullaryOp<Eigen::internal::scalar_constant_op<double>, P>>
    : one_factor_leaf<Eigen::CwiseNullaryOp<Eigen::internal::scalar_constant_op<double>, P>,
                      expr_terms<Eigen::CwiseNullaryOp<Eigen::internal::scalar_constant_op<double>, P>>> {
  using X = Eigen::CwiseNullaryOp<Eigen::internal::scalar_constant_op<double>, P>;
  static double value(const X& x, Index, Index) { return x.functor()(); }
};

// |leaf|: the absolute value of a double is exact.
template <class A>
struct expr_terms<Eigen::CwiseUnaryOp<Eigen::internal::scalar_abs_op<double>, A>,
                  std::enable_if_t<is_plain<std::remove_const_t<A>>>>
    : one_factor_leaf<Eigen::CwiseUnaryOp<Eigen::internal::scalar_abs_op<double>, A>,
                      expr_terms<Eigen::CwiseUnaryOp<Eigen::internal::scalar_abs_op<double>, A>>> {
  using X = Eigen::CwiseUnaryOp<Eigen::internal::scalar_abs_op<double>, A>;
  static double value(const X& x, Index i, Index j) { return std::fabs(x.nestedExpression().coeff(i, j)); }
};

// A wrapper of one expression A whose terms are A's, changed term by term:
// A's rule and checks.
template <class A>
struct wrapped_terms {
  using sub = expr_terms<std::remove_const_t<A>>;
  static constexpr bool supported = sub::supported;
  static constexpr int max_factors = sub::max_factors;
  static constexpr int count = sub::count;
  template <class X>
  static void check(const X& x) {
    sub::check(x.nestedExpression());
  }
};

// -a
template <class A>
struct expr_terms<Eigen::CwiseUnaryOp<Eigen::internal::scalar_opposite_op<double>, A>> : wrapped_terms<A> {
  using X = Eigen::CwiseUnaryOp<Eigen::internal::scalar_opposite_op<double>, A>;
  using sub = typename wrapped_terms<A>::sub;
  template <class F>
  static void each(const X& x, Index i, Index j, F&& f) {
    sub::each(x.nestedExpression(), i, j, [&](term t) {
      t.f[0] = -t.f[0];  // exact
      f(t);
    });
  }
};

// a^T of an expression (a^T of plain storage is a leaf above).
template <class A>
struct expr_terms<Eigen::Transpose<A>, std::enable_if_t<!is_plain<Eigen::Transpose<A>>>> : wrapped_terms<A> {
  using X = Eigen::Transpose<A>;
  using sub = typename wrapped_terms<A>::sub;
  template <class F>
  static void each(const X& x, Index i, Index j, F&& f) {
    sub::each(x.nestedExpression(), j, i, std::forward<F>(f));
  }
};

inline std::string shape(Index r, Index c) { return num(r) + " x " + num(c); }

template <class L, class R>
void check_same_shape(const L& l, const R& r, const char* op) {
  if (l.rows() != r.rows() || l.cols() != r.cols())
    throw invalid_argument("expr", std::string("has operands of ") + op + " of shapes " +
                                       shape(l.rows(), l.cols()) + " and " +
                                       shape(r.rows(), r.cols()));
}

// a + b, a - b, a .* b (also scalar * a and a * scalar).
template <class Op>
struct binary_kind {
  static constexpr int value = 0;
};
template <>
struct binary_kind<Eigen::internal::scalar_sum_op<double, double>> {
  static constexpr int value = 1;
};
template <>
struct binary_kind<Eigen::internal::scalar_difference_op<double, double>> {
  static constexpr int value = 2;
};
template <>
struct binary_kind<Eigen::internal::scalar_product_op<double, double>> {
  static constexpr int value = 3;
};

template <class Op, class A, class B>
struct expr_terms<Eigen::CwiseBinaryOp<Op, A, B>> {
  using X = Eigen::CwiseBinaryOp<Op, A, B>;
  using left = expr_terms<std::remove_const_t<A>>;
  using right = expr_terms<std::remove_const_t<B>>;
  static constexpr int kind = binary_kind<Op>::value;
  static constexpr bool supported = kind != 0 && left::supported && right::supported;
  static constexpr int max_factors = kind == 3 ? left::max_factors + right::max_factors
                                               : std::max(left::max_factors, right::max_factors);
  static constexpr int count = kind == 3 ? left::count * right::count : left::count + right::count;
  template <class F>
  static void each(const X& x, Index i, Index j, F&& f) {
    if constexpr (kind == 1) {
      left::each(x.lhs(), i, j, f);
      right::each(x.rhs(), i, j, f);
    } else if constexpr (kind == 2) {
      left::each(x.lhs(), i, j, f);
      right::each(x.rhs(), i, j, [&](term t) {
        t.f[0] = -t.f[0];
        f(t);
      });
    } else {
      left::each(x.lhs(), i, j, [&](const term& a) {
        right::each(x.rhs(), i, j, [&](const term& b) { f(times(a, b)); });
      });
    }
  }
  static void check(const X& x) {
    // A scalar operand is a constant expression of the other's shape.
    check_same_shape(x.lhs(), x.rhs(), kind == 1 ? "+" : kind == 2 ? "-" : "*");
    left::check(x.lhs());
    right::check(x.rhs());
  }
};

// The number of doubles in the product of a term of L and a term of R.
template <class L, class R>
inline constexpr int doubles_per_product_term = expr_terms<L>::max_factors + expr_terms<R>::max_factors;

}  // namespace detail

// An Eigen matrix expression that exact() can expand into terms of at most
// three doubles each (see the top of this file).
template <class X>
concept exact_expression =
    std::is_base_of_v<Eigen::MatrixBase<X>, X> && std::is_same_v<typename X::Scalar, double> &&
    detail::expr_terms<X>::supported && detail::expr_terms<X>::max_factors <= 3;

// Two expressions whose coefficient products are products of at most three
// doubles: exact(L).dot(R).
template <class L, class R>
concept exact_product =
    exact_expression<L> && exact_expression<R> && detail::doubles_per_product_term<L, R> <= 3;

// The same with at most two doubles a term: squaredNorm, norm (their square
// root needs the library's superaccumulator), cwiseAbs().sum().
template <class L, class R>
concept exact_product2 = exact_product<L, R> && detail::doubles_per_product_term<L, R> <= 2;

// Plain storage (Eigen's DirectAccessBit), the operands of exact products.
template <class X>
concept plain_storage = detail::is_plain<X> && std::is_same_v<typename X::Scalar, double>;

// The operands of exact(A) * B: plain storage (one gemv / gemm call), or
// sums of plain storage (exact(A + E) * (x - z): every entry's terms are
// products of two doubles, and with alpha three, accumulated exactly).
template <class A, class R>
concept exact_product_operands =
    (plain_storage<A> && plain_storage<R>) ||
    (exact_expression<A> && exact_expression<R> && detail::expr_terms<A>::max_factors == 1 &&
     detail::expr_terms<R>::max_factors == 1);


template <exact_expression X>
class Exact;
template <class A, class R>
class ExactProduct;

namespace detail {

// How an expression is held: plain objects by reference, expression
// objects (which reference their own operands) by value, as Eigen does.
template <class X>
using nested_t = typename Eigen::internal::ref_selector<X>::type;

// The nullary functor of exact(e): coefficient (i, j) as the correctly
// rounded exact sum of its terms. A linear index only for vectors at
// compile time (Eigen then reads v(k), v[k]); a matrix is read by (i, j)
// only, as its linear order would depend on the destination's storage.
template <class X>
struct exact_coeff_op {
  nested_t<X> expr;
  rounding mode;
  double operator()(Index i, Index j) const {
    using terms = expr_terms<X>;
    if constexpr (terms::count <= 64) {
      // Fast path: the terms' bits span at most about 250 bits (no huge
      // cancellation range): a 12-digit window accumulator placed 64 bits
      // below the lowest bit is exact and rounds the same (correctly).
      term ts[terms::count];
      int k = 0, lo = 0, hi = 0;
      bool any = false;
      terms::each(expr, i, j, [&](const term& t) {
        ts[k++] = t;
        int l, h;
        if (!product_span(t.f, t.n, l, h)) return;
        lo = any ? std::min(lo, l) : l;
        hi = any ? std::max(hi, h) : h;
        any = true;
      });
      const int base = any ? window_base(lo) : 0;
      if (window_fits(base, hi)) {
        window_accumulator w(base);
        for (int m = 0; m < k; ++m) w.add(ts[m].f, ts[m].n);
        return w.round(mode);
      }
    }
    accumulator_for<terms::max_factors> acc;
    terms::each(expr, i, j, [&](const term& t) { add_term(acc, t); });
    return acc.round(mode);
  }
  double operator()(Index k) const
    requires(bool(X::IsVectorAtCompileTime))
  {
    return int(X::RowsAtCompileTime) == 1 ? (*this)(0, k) : (*this)(k, 0);
  }
};

// Calls f(i, j) for every coefficient, column by column.
template <class X, class F>
void for_each_coeff(const X& x, F&& f) {
  for (Index j = 0; j < x.cols(); ++j)
    for (Index i = 0; i < x.rows(); ++i) f(i, j);
}

// (row, col) of element k of a vector expression.
template <class X>
Index vrow(Index k) {
  return int(X::RowsAtCompileTime) == 1 ? 0 : k;
}
template <class X>
Index vcol(Index k) {
  return int(X::RowsAtCompileTime) == 1 ? k : 0;
}

// Adds l(i1, j1) * r(i2, j2) exactly: every product of a term of each.
template <class Acc, class L, class R>
void add_products(Acc& acc, const L& l, const R& r, Index i1, Index j1, Index i2, Index j2) {
  expr_terms<L>::each(l, i1, j1, [&](const term& a) {
    expr_terms<R>::each(r, i2, j2, [&](const term& b) { add_term(acc, times(a, b)); });
  });
}

}  // namespace detail

// exact(A) [.transpose()], optionally scaled by one alpha: the left operand
// of an exact product (A plain storage, or a sum of plain storage).
template <class A>
class ExactMatrix {
 public:
  ExactMatrix(const A& a, double alpha, exala::transpose op, bool scaled, const exec& ex)
      : a_(a), alpha_(alpha), op_(op), scaled_(scaled), ex_(ex) {}

  ExactMatrix transpose() const { return ExactMatrix(a_, alpha_, detail::flip(op_), scaled_, ex_); }

  // alpha * exact(A): alpha goes to gemv/gemm, which apply it exactly. A
  // second scalar (s * (t * exact(A))) would need s * t rounded first, so it
  // throws exala::invalid_argument("alpha"); write (s * t) * exact(A).
  friend ExactMatrix operator*(double s, const ExactMatrix& m) {
    if (m.scaled_)
      throw invalid_argument("alpha",
                             "exala::eigen::exact: a product takes one scalar factor; s * (t * "
                             "exact(A)) would round s * t");
    return ExactMatrix(m.a_, s, m.op_, true, m.ex_);
  }

  // exact(A) * B: one exala::gemv (B a vector at compile time) or
  // exala::gemm for plain operands, else exact accumulation per entry.
  template <class R>
    requires exact_product_operands<A, R>
  ExactProduct<A, R> operator*(const Eigen::MatrixBase<R>& rhs) const {
    return ExactProduct<A, R>(*this, rhs.derived());
  }

  const A& matrix() const { return a_; }
  double alpha() const { return alpha_; }
  exala::transpose op() const { return op_; }
  const exec& execution() const { return ex_; }

 private:
  detail::nested_t<A> a_;
  double alpha_;
  exala::transpose op_;
  bool scaled_;
  exec ex_;
};

// exact(A).triangularView<Mode>(): solve(b) is exala::trsv (b a vector at
// compile time) or exala::trsm, through ExactTriangularSolver<Mode>.
template <class A, unsigned int Mode>
class ExactTriangularView {
 public:
  ExactTriangularView(const A& a, const exec& ex) : a_(a), ex_(ex) {}

  // x with T x = b, each x_i the correctly rounded quotient of its exact
  // numerator (exala::trsv / trsm). Throws invalid_argument("A") for a
  // non-square A, exala::singular_matrix for an exact zero on a non-unit
  // diagonal, invalid_argument("b") when b has the wrong number of rows.
  template <class B>
    requires plain_storage<B>
  auto solve(const Eigen::MatrixBase<B>& b) const {
    static constexpr const char* who = "exact(A).triangularView<Mode>().solve";
    if (a_.rows() != a_.cols())
      throw invalid_argument("A", "is " + detail::shape(a_.rows(), a_.cols()) +
                                      ", not square (" + who + ")");
    ExactTriangularSolver<int(Mode)> s;
    s.setExec(ex_);
    s.compute(a_);
    if (s.info() == Eigen::NumericalIssue) throw singular_matrix(who, s.singularRow());
    if (s.info() != Eigen::Success) throw invalid_argument("A", s.lastError());
    return s.solve(b);
  }

 private:
  detail::nested_t<A> a_;
  exec ex_;
};

// exact(e): see the top of this file. An Eigen expression (a nullary one)
// whose coefficients are correctly rounded once each; its members sum,
// dot, squaredNorm, norm, cwiseAbs().sum() are exact reductions rounded
// once, and exact(A) * B, .transpose(), alpha * exact(A),
// .triangularView<Mode>() lead to the exact products and solves.
}  // namespace exala::eigen

namespace Eigen::internal {
// exact(e)'s functor: no packets; linear access for vectors only (Eigen
// infers it from the absence of a binary operator otherwise); not
// repeatable, so that Eigen evaluates exact(e) once before nesting it in a
// larger expression (each coefficient costs an accumulator).
template <class X>
struct functor_has_linear_access<exala::eigen::detail::exact_coeff_op<X>> {
  enum { ret = bool(X::IsVectorAtCompileTime) };
};
template <class X>
struct functor_traits<exala::eigen::detail::exact_coeff_op<X>> {
  enum { Cost = 100, PacketAccess = false, IsRepeatable = false };
};
}  // namespace Eigen::internal

namespace exala::eigen {

template <exact_expression X>
class Exact
    : public Eigen::CwiseNullaryOp<detail::exact_coeff_op<X>, typename X::PlainObject> {
  using Base = Eigen::CwiseNullaryOp<detail::exact_coeff_op<X>, typename X::PlainObject>;
  using terms = detail::expr_terms<X>;
  static constexpr bool plain_vector = plain_storage<X> && bool(X::IsVectorAtCompileTime);

 public:
  Exact(const X& x, const exec& ex)
      : Base(x.rows(), x.cols(), detail::exact_coeff_op<X>{x, ex.mode}), ex_(ex) {}

  const X& expression() const { return this->functor().expr; }
  const exec& execution() const { return ex_; }

  // The correctly rounded sum of every coefficient's exact value (one
  // rounding; exala::sum for a plain vector).
  double sum() const {
    if constexpr (plain_vector) {
      return eigen::sum(expression(), ex_);
    } else {
      detail::accumulator_for<terms::max_factors> acc;
      const X& x = expression();
      detail::for_each_coeff(x, [&](Index i, Index j) {
        terms::each(x, i, j, [&](const detail::term& t) { detail::add_term(acc, t); });
      });
      return acc.round(ex_.mode);
    }
  }

  // The correctly rounded sum over k of e_k * o_k (exact values; one
  // rounding; exala::dot for two plain vectors). Both vectors; every term
  // product of at most three doubles (else a compile-time error).
  // Throws invalid_argument("other") when the sizes differ.
  template <class O>
    requires exact_product<X, O> && (bool(X::IsVectorAtCompileTime) && bool(O::IsVectorAtCompileTime))
  double dot(const Eigen::MatrixBase<O>& other) const {
    const X& x = expression();
    const O& o = other.derived();
    if (o.size() != x.size())
      throw invalid_argument("other", "has " + detail::num(o.size()) + " elements but exact(e) has " +
                                          detail::num(x.size()));
    detail::expr_terms<O>::check(o);
    if constexpr (plain_vector && plain_storage<O>) {
      return eigen::dot(x, o, ex_);
    } else {
      detail::accumulator_for<detail::doubles_per_product_term<X, O>> acc;
      for (Index k = 0; k < x.size(); ++k)
        detail::add_products(acc, x, o, detail::vrow<X>(k), detail::vcol<X>(k), detail::vrow<O>(k),
                             detail::vcol<O>(k));
      return acc.round(ex_.mode);
    }
  }
  template <class O>
  double dot(const Exact<O>& other) const {
    return dot(other.expression());
  }

  // The correctly rounded sum of squares of the exact coefficients
  // (Frobenius for a matrix), every term's square a product of at most two
  // doubles (exact(2*x).squaredNorm() is a compile-time error).
  double squaredNorm() const
    requires exact_product2<X, X>
  {
    if constexpr (plain_vector) {
      return eigen::dot(expression(), expression(), ex_);
    } else {
      return squares().round(ex_.mode);
    }
  }

  // The correctly rounded square root of the exact sum of squares
  // (exala::nrm2 for a plain vector).
  double norm() const
    requires exact_product2<X, X>
  {
    if constexpr (plain_vector) {
      return eigen::nrm2(expression(), ex_);
    } else {
      return squares().round_sqrt(ex_.mode);
    }
  }

  // exact(e).cwiseAbs(): .sum() is the correctly rounded sum of the
  // absolute values of the exact coefficients (exala::asum for a plain
  // vector). The other members of Eigen's cwiseAbs() are not offered.
  class Abs {
   public:
    explicit Abs(const Exact& e) : e_(e) {}
    double sum() const {
      if constexpr (plain_vector) {
        return eigen::asum(e_.expression(), e_.ex_);
      } else {
        const X& x = e_.expression();
        superaccumulator total, c;
        detail::for_each_coeff(x, [&](Index i, Index j) {
          c.clear();
          terms::each(x, i, j, [&](const detail::term& t) { detail::add_term(c, t); });
          if (c.has_special()) {
            total.add(std::fabs(c.round(e_.ex_.mode)));  // NaN, or +inf
            return;
          }
          c.normalize();
          const int s = c.sign();
          if (s == 0) {
            total.add(0.0);  // |exact zero| is +0, whatever the terms' zero signs
            return;
          }
          if (s < 0) c.negate();
          total.merge(c);
        });
        return total.round(e_.ex_.mode);
      }
    }

   private:
    Exact e_;  // a copy (it refers to e's operands, as exact(e) does)
  };
  Abs cwiseAbs() const
    requires(terms::max_factors <= 2)
  {
    return Abs(*this);
  }

  // ---- products (exact(A) with A plain storage or a sum of it) and solves
  // (A plain storage)
  template <class R>
    requires exact_product_operands<X, R>
  ExactProduct<X, R> operator*(const Eigen::MatrixBase<R>& rhs) const {
    return left_operand() * rhs;
  }
  ExactMatrix<X> transpose() const
    requires(terms::max_factors == 1)
  {
    return left_operand().transpose();
  }
  // exact(A) as the left operand of a product (what alpha * exact(A) and
  // exact(A).transpose() build on).
  ExactMatrix<X> left_operand() const
    requires(terms::max_factors == 1)
  {
    return ExactMatrix<X>(expression(), 1.0, exala::transpose::none, false, ex_);
  }
  template <unsigned int Mode>
    requires plain_storage<X>
  ExactTriangularView<X, Mode> triangularView() const {
    return ExactTriangularView<X, Mode>(expression(), ex_);
  }

 private:
  superaccumulator squares() const {
    superaccumulator acc;
    const X& x = expression();
    detail::for_each_coeff(x, [&](Index i, Index j) { detail::add_products(acc, x, x, i, j, i, j); });
    return acc;
  }
  exec ex_;
};

// alpha * exact(A): the scaled left operand of a product.
template <class X>
  requires(detail::expr_terms<X>::max_factors == 1)
ExactMatrix<X> operator*(double alpha, const Exact<X>& e) {
  return alpha * e.left_operand();
}

// exact(e) (see the top of this file): e's shapes are checked here, and
// exala::invalid_argument("expr") names a node whose operands differ.
template <class D>
  requires exact_expression<D>
Exact<D> exact(const Eigen::MatrixBase<D>& e, const exec& ex = {}) {
  detail::expr_terms<D>::check(e.derived());
  return Exact<D>(e.derived(), ex);
}

// ------------------------------------------------------------ products
namespace detail {
template <class R>
using product_plain =
    Eigen::Matrix<double, Eigen::Dynamic, int(R::ColsAtCompileTime) == 1 ? 1 : Eigen::Dynamic>;
}

// alpha op(A) B as an Eigen expression: assigning it (=, +=, -=, with or
// without noalias()) is ONE exala::gemv (B a vector at compile time) or
// exala::gemm with beta = 0 (=) or 1 (+=, -= with -alpha), so every
// destination coefficient is rounded once from its exact value. Used inside
// a larger Eigen expression, it is first evaluated that way into a temporary.
// When A or B is a sum of plain storage (exact(A + E) * (x - z)), each entry
// alpha sum_k op(A)_ik B_kj + beta c_ij is accumulated term by term (two
// doubles a term, three with alpha != +-1: the wide accumulator) and rounded
// once, into a temporary that is then assigned (so operands may alias the
// destination); O(m n k) accumulator steps, no exala kernel.
template <class A, class R>
class ExactProduct : public Eigen::MatrixBase<ExactProduct<A, R>> {
 public:
  using PlainObject = detail::product_plain<R>;
  using Base = Eigen::MatrixBase<ExactProduct>;
  EIGEN_DENSE_PUBLIC_INTERFACE(ExactProduct)

  ExactProduct(const ExactMatrix<A>& m, const R& r) : m_(m), r_(r) {}

  Eigen::Index rows() const {
    return m_.op() == transpose::none ? m_.matrix().rows() : m_.matrix().cols();
  }
  Eigen::Index cols() const { return r_.cols(); }

  // dst = alpha op(A) B (sign 0), dst += ... (sign 1), dst -= ... (sign -1).
  template <class Dst>
  void applyTo(Dst& dst, int sign) const {
    if constexpr (std::is_base_of_v<Eigen::PlainObjectBase<Dst>, Dst>)
      if (sign == 0 && (dst.rows() != rows() || dst.cols() != cols())) dst.resize(rows(), cols());
    const double alpha = sign < 0 ? -m_.alpha() : m_.alpha();  // exact
    const double beta = sign == 0 ? 0.0 : 1.0;
    const exec& ex = m_.execution();
    if constexpr (!(plain_storage<A> && plain_storage<R>)) {
      accumulate_into(dst, sign != 0, alpha);
    } else if constexpr (int(R::ColsAtCompileTime) == 1) {
      if constexpr (int(Dst::ColsAtCompileTime) == 1 && std::is_constructible_v<VectorRef, Dst&>) {
        eigen::gemv(m_.op(), alpha, m_.matrix(), r_, beta, VectorRef(dst), ex);
      } else {
        if (dst.cols() != 1)
          throw invalid_argument("y", "is " + detail::shape(dst.rows(), dst.cols()) +
                                          ", not a column vector");
        Eigen::VectorXd y = dst.col(0);  // bit-exact copy in and out
        eigen::gemv(m_.op(), alpha, m_.matrix(), r_, beta, y, ex);
        dst.col(0) = y;
      }
    } else {
      eigen::gemm(m_.op(), exala::transpose::none, alpha, m_.matrix(), r_, beta, dst, ex);
    }
  }
  template <class Dst>
  void evalTo(Dst& dst) const {
    applyTo(dst, 0);
  }

 private:
  // The per-entry exact path (operands that are sums of plain storage).
  template <class Dst>
  void accumulate_into(Dst& dst, bool add, double alpha) const {
    constexpr bool vec = int(R::ColsAtCompileTime) == 1;
    const A& a = m_.matrix();
    const R& r = r_;
    detail::expr_terms<R>::check(r);
    const bool trans = m_.op() != exala::transpose::none;
    const Index m = rows(), n = cols(), k = trans ? a.rows() : a.cols();
    if (r.rows() != k)
      throw invalid_argument(vec ? "x" : "B", "has " + detail::num(r.rows()) +
                                                  " rows but op(A) has " + detail::num(k) +
                                                  " columns");
    if (dst.rows() != m || dst.cols() != n)
      throw invalid_argument(vec ? "y" : "C", "is " + detail::shape(dst.rows(), dst.cols()) +
                                                  " but op(A) B is " + detail::shape(m, n));
    const rounding mode = m_.execution().mode;
    const bool unit = alpha == 1.0 || alpha == -1.0;
    PlainObject out(m, n);
    for (Index j = 0; j < n; ++j)
      for (Index i = 0; i < m; ++i) {
        auto each_term = [&](auto&& f) {
          for (Index p = 0; p < k; ++p)
            detail::expr_terms<A>::each(a, trans ? p : i, trans ? i : p, [&](const detail::term& u) {
              detail::expr_terms<R>::each(r, p, j, [&](const detail::term& v) {
                f(detail::times(u, v));
              });
            });
        };
        if (unit) {
          superaccumulator acc;  // alpha = +-1: two doubles a term
          each_term([&](detail::term t) {
            if (alpha < 0) t.f[0] = -t.f[0];
            detail::add_term(acc, t);
          });
          if (add) acc.add(dst(i, j));
          out(i, j) = acc.round(mode);
        } else {
          detail::wide_accumulator acc;  // alpha a b: three doubles
          each_term([&](detail::term t) {
            t.f[t.n++] = alpha;
            detail::add_term(acc, t);
          });
          if (add) {
            const double c = dst(i, j);
            acc.add(&c, 1);
          }
          out(i, j) = acc.round(mode);
        }
      }
    dst = out;
  }

 public:

 private:
  ExactMatrix<A> m_;
  detail::nested_t<R> r_;
};

}  // namespace exala::eigen

namespace Eigen::internal {

template <class A, class R>
struct traits<exala::eigen::ExactProduct<A, R>>
    : traits<exala::eigen::detail::product_plain<R>> {
  using PlainObject = exala::eigen::detail::product_plain<R>;
  enum { Flags = traits<PlainObject>::Flags & RowMajorBit };
};

// Inside a larger expression: evaluated (exactly, one rounding per entry)
// into a temporary first, as Eigen does for its own products.
template <class A, class R>
struct evaluator<exala::eigen::ExactProduct<A, R>>
    : evaluator<exala::eigen::detail::product_plain<R>> {
  using Xpr = exala::eigen::ExactProduct<A, R>;
  using PlainObject = exala::eigen::detail::product_plain<R>;
  using Base = evaluator<PlainObject>;
  enum { Flags = Base::Flags | EvalBeforeNestingBit };
  explicit evaluator(const Xpr& x) : m_result(x.rows(), x.cols()) {
    ::new (static_cast<Base*>(this)) Base(m_result);
    x.evalTo(m_result);
  }
  PlainObject m_result;
};

// dst = / += / -= a product: one gemv or gemm with beta 0 / 1 / 1 and the
// product's sign (exact_assign_sign).
template <class Op>
struct exact_assign_sign;
template <>
struct exact_assign_sign<assign_op<double, double>> : std::integral_constant<int, 0> {};
template <>
struct exact_assign_sign<add_assign_op<double, double>> : std::integral_constant<int, 1> {};
template <>
struct exact_assign_sign<sub_assign_op<double, double>> : std::integral_constant<int, -1> {};

template <class Dst, class A, class R, class Op>
struct Assignment<Dst, exala::eigen::ExactProduct<A, R>, Op, Dense2Dense,
                  std::void_t<decltype(exact_assign_sign<Op>::value)>> {
  static void run(Dst& dst, const exala::eigen::ExactProduct<A, R>& src, const Op&) {
    src.applyTo(dst, exact_assign_sign<Op>::value);
  }
};

}  // namespace Eigen::internal
