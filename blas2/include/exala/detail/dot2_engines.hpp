// exala/detail/dot2_engines.hpp - the host side of the CUDA dot and gemv
// (gpu/cuda/src/blas12_cuda.cu): the chunk combination the device results
// go through, and host engines that run the device's decomposition (the same
// chains, trees and bounds of exala/detail/dot2_hd.hpp) so that CI tests it
// against the reference backend bit for bit. Internal.
#pragma once

#include <cstdint>

#include "exala/backend.hpp"
#include "exala/blas2.hpp"
#include "exala/detail/dot2_hd.hpp"

namespace exala::detail::dot2 {

// round(S) in `mode` (nrm2: round(sqrt(S))) for S = the sum over the
// chunks' exact values, chunk c holding terms [c dot_chunk, min(n, (c + 1)
// dot_chunk)) in dot_chains chains merged pairwise: the chunks' hi + lo
// summed exactly, their bounds added (doubled: a rigorous bound on the
// rounded sum of nonnegative terms for fewer than 2^50 chunks); false when
// that cannot decide.
bool round_chunks(const state* parts, std::int64_t chunks, std::int64_t n, reduction r, rounding mode,
                  double& out);

// A gemv in the engines' form: output o (of `outputs`) is
// round(alpha sum_l A(o, l) x_l + beta y_o), A(o, l) = a[o so + l sl].
struct gemv_form {
  std::int64_t outputs, terms;
  const double* a;
  std::int64_t so, sl;  // one of them is 1 (the contiguous dimension)
};
gemv_form form_of(layout lay, transpose trans, std::int64_t m, std::int64_t n, const double* a, std::int64_t lda);

// Output o formed exactly (an accumulator and round_axpby, the reference
// semantics): the engines' fallback.
void gemv_output_exact(const gemv_form& f, std::int64_t o, double alpha, const double* x, std::int64_t incx,
                       double beta, double* yo, rounding mode);

struct run_stats {
  std::int64_t exact = 0;  // outputs (dot: 1 or 0) formed exactly
};

// The device decompositions on the host (tests; single-threaded). dot:
// chunks of dot_chunk terms, dot_chains interleaved chains each, a
// pairwise tree, round_chunks; gemv: outputs along A's contiguous dimension
// get row_groups() contiguous chains, the others col_chains interleaved
// chains, a pairwise tree, round_state; what cannot be decided is formed
// exactly. Arguments as exala::dot / exala::gemv (checked by the caller).
// (reduce_host: sum, asum and nrm2 read x only; y is ignored.)
double reduce_host(reduction r, std::int64_t n, const double* x, std::int64_t incx, const double* y,
                   std::int64_t incy, rounding mode, run_stats* st = nullptr);
// The exact result of a reduction on host memory (the fallback of both).
double reduce_exact(reduction r, std::int64_t n, const double* x, std::int64_t incx, const double* y,
                    std::int64_t incy, rounding mode);
void gemv_host(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha, const double* a,
               std::int64_t lda, const double* x, std::int64_t incx, double beta, double* y, std::int64_t incy,
               rounding mode, run_stats* st = nullptr);

// The forward form of a trsv (exala::trsv's arguments; `a`, `x` may be
// device pointers: nothing is read here).
trsv_form trsv_form_of(layout lay, uplo ul, transpose trans, std::int64_t n, const double* a, std::int64_t lda,
                       double* x, std::int64_t incx);
// x_i exactly (detail::trsv_entry_exact): row i of the forward form as
// row[0..i] (row[i] the diagonal), the solutions before it as
// xneg[j] = -x_j, b = x_i's right-hand side.
double trsv_row_exact(diag dg, std::int64_t n, const double* row, const double* xneg, std::int64_t i, double b,
                      rounding mode);
// The device decomposition on the host (tests): row i's sum over j < i in
// one Dot2 chain (in j order, as the CUDA update and diagonal kernels add
// it), trsv_decide, else trsv_row_exact. Arguments as exala::trsv
// (checked by the caller; a zero diagonal throws singular_matrix first).
void trsv_host(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n, const double* a, std::int64_t lda,
               double* x, std::int64_t incx, rounding mode, run_stats* st = nullptr);

}  // namespace exala::detail::dot2
