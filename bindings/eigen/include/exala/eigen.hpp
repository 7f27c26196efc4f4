// exala/eigen.hpp - ExaLA for Eigen 3.4 users: exact and correctly rounded
// BLAS on Eigen vectors and matrices, and ExaLA's solvers as Eigen-style
// classes. Header-only, over the C++ API; link exala::eigen (ExaLA::eigen
// when installed), which brings exala::blas3, exala::solvers, Eigen3::Eigen
// and the numeric flags (-ffp-contract=off, no fast math).
//
//   exala/eigen/blas.hpp     sum, asum, dot, nrm2, gemv, gemm
//   exala/eigen/solvers.hpp  ExactTriangularSolver<Mode>,
//                            CompensatedTriangularSolver<Mode>, StripeLU
//   exala/eigen/exact.hpp    exact(expr): Eigen expressions evaluated
//                            exactly, rounded once (reductions,
//                            coefficients, products, solves)
//
// The one rule to know: EXPRESSIONS ARE EVALUATED BY EIGEN FIRST.
// An argument that is an Eigen expression rather than plain storage
// (x + y, 2 * A, A * B, x.cwiseProduct(y), v.reverse(), ...) is evaluated by
// Eigen into a temporary vector or matrix, each element rounded by ordinary
// floating-point arithmetic, and only then does ExaLA's exact routine see
// it. So exala::eigen::sum(x + y) is the correctly rounded sum of the
// ROUNDED elements fl(x_i + y_i), not the exact sum of all x_i and y_i
// (for that, add x and y into one exala::superaccumulator with
// exala::sum_into and round once), and dot(x.cwiseProduct(y), ones) is not
// dot(x, y). Exactness starts where the data is plain storage -- unless the
// expression is wrapped in exact(...) (exala/eigen/exact.hpp): exact(x + y)
// .sum() is the exact sum rounded once, exact(A) * x one exala::gemv.
//
// Plain storage is never copied: vectors with any inner stride (a matrix row
// of a column-major matrix, a segment, a Map with InnerStride<>, negative
// strides), matrices and blocks in either storage order with any outer
// stride, and the .transpose() of such a matrix (read as the other storage
// order, no copy) all go straight to the exact routine, which then gives
// exactly the bits of the raw exala::sum/dot/gemv/gemm call on that storage.
//
// Bad input throws exala::invalid_argument naming the argument (x, y, A, B,
// C, b, ...) in the functions; the solver classes record failures in info()
// and lastError() Eigen-style (see exala/eigen/solvers.hpp).
#pragma once

#include "exala/eigen/blas.hpp"
#include "exala/eigen/solvers.hpp"
#include "exala/eigen/exact.hpp"
