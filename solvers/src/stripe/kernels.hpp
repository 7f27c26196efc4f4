// stripe/kernels.hpp - the stripe LU's in-memory steps, over a dense_engine.
//
// Notation (M. Carcenac, "From tile algorithm to stripe algorithm: a
// CUBLAS-based parallel implementation on GPUs of Gauss method for the
// resolution of extremely large dense linear systems stored on an array of
// solid state devices", J. Supercomputing 2014): the n x n matrix is cut into
// stripes of S rows (the last one may be shorter); stripe J's diagonal block
// starts at row = column J*S. Pivot stripe J, once factored, eliminates its
// columns from every later stripe I (areas JI: L_IJ = A_IJ U_JJ^-1, and JK:
// A_IK -= L_IJ U_JK); factoring stripe J itself (areas II and IK) is a blocked
// LU by substripes of S' rows, so that nearly all flops are in gemm_sub.
//
// A stripe in memory is a `block`: its `rows` rows, columns [col0, n) valid,
// column-major with leading dimension ld (>= rows), data pointing at column
// col0. Out of core, col0 advances as columns become final and move to disk;
// in core, blocks are views into one n x n matrix (ld = n).
//
// Bits: every function is a fixed sequence of engine calls whose sizes depend
// only on (n, the stripe's row0/rows, S') - never on col0, ld, threads or the
// caller's order - so a stripe gets the same bits in core and out of core,
// with any cache size, traversal order or meta-stripe count.
#pragma once

#include <cstdint>
#include <span>

#include "engine.hpp"

namespace exala::detail::stripe {

struct block {
  double* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t col0 = 0;
  std::int64_t n = 0;
  std::int64_t ld = 0;
  double* col(std::int64_t c) const { return data + (c - col0) * ld; }
};

// Thrown (an exala::error) for a zero or numerically singular pivot: the
// message names the 0-based column and the pivot's value.
// threshold: |pivot| <= threshold counts as numerically singular (0: only
// exact zeros). Non-finite pivots are reported too.

// Factor pivot stripe `s` (global first row r0 = its diagonal column; valid
// from a column <= r0) in place: blocked LU of columns [r0, n) by substripes of
// `substripe` rows; pivot search within each substripe's rows only (the
// seed's local partial pivoting). ipiv[i] (i < s.rows) is the 0-based row
// within the stripe swapped with row i, in order; the swaps are applied to
// columns [s.col0, n) (the caller applies them to columns left of col0).
// On return columns [r0, r0 + rows) hold L_JJ (unit, below) and U_JJ, columns
// [r0 + rows, n) hold U_JK.
void factor_stripe_local(dense_engine& e, const block& s, std::int64_t r0, std::int64_t substripe,
                         double threshold, std::int64_t* ipiv);

// Eliminate the columns of factored pivot stripe p (first row p_r0, p.rows
// rows, valid from a column <= p_r0) from the later stripe t (valid from a
// column <= p_r0): L = T[:, p_r0 : p_r0+p.rows] U_pp^-1 (stored in place),
// then T[:, p_r0+p.rows : n] -= L * U_p[:, p_r0+p.rows : n].
void apply_pivot_stripe(dense_engine& e, const block& p, std::int64_t p_r0, const block& t);

// In-core LU with (global) partial pivoting of the n x n matrix a (lda),
// right-looking by stripes of S columns, each panel factored by the engine's
// getrf; ipiv[i] (i < n) 0-based global rows as LAPACK. Throws as above.
void factor_partial(dense_engine& e, std::int64_t n, double* a, std::int64_t lda, std::int64_t S,
                    double threshold, std::int64_t* ipiv);

// Solve phase, one stripe at a time. y is n x nrhs (ldy), holding P b (all
// row interchanges applied) on the first forward call.
// forward: y_J := L_JJ^-1 (y_J - L_J[:, 0:r0] y[0:r0]); lu valid from col 0.
void forward_stripe(dense_engine& e, const block& lu, std::int64_t r0, std::int64_t nrhs, double* y,
                    std::int64_t ldy);
// backward (J descending): y_J := U_JJ^-1 (y_J - U_J[:, r0+rows : n] y[r0+rows : n]);
// lu valid from a column <= r0.
void backward_stripe(dense_engine& e, const block& lu, std::int64_t r0, std::int64_t nrhs,
                     double* y, std::int64_t ldy);

}  // namespace exala::detail::stripe
