// stripe/engine.hpp - the dense compute interface of the stripe LU.
//
// Every floating-point operation of the stripe LU (factorization, solve
// phase) goes through a dense_engine, so that a GPU engine (the GPU issue)
// only has to implement this class. All matrices are column-major with a
// leading dimension; sizes are int64.
//
// Reproducibility contract of an engine: the bits of every call depend only
// on its arguments (sizes, values, leading dimensions do NOT matter), never on
// the number of threads, scheduling or the run. The CPU engine gets this by
// cutting each call into tiles whose shape depends only on the call's sizes
// (fixed tile widths), running one single-threaded BLAS call per tile, and
// spreading the tiles over its threads: a thread count changes who computes
// a tile, not how. (Bits may differ between BLAS libraries or CPUs.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace exala::detail::stripe {

class dense_engine {
 public:
  virtual ~dense_engine() = default;
  virtual std::string name() const = 0;
  virtual int threads() const = 0;

  // C := C - A * B, A m x k, B k x n, C m x n.
  virtual void gemm_sub(std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                        std::int64_t lda, const double* b, std::int64_t ldb, double* c,
                        std::int64_t ldc) = 0;
  // B := B * U^-1, U k x k upper triangular with a non-unit diagonal, B m x k.
  virtual void trsm_right_upper(std::int64_t m, std::int64_t k, const double* u, std::int64_t ldu,
                                double* b, std::int64_t ldb) = 0;
  // B := L^-1 * B, L k x k unit lower triangular (diagonal not read), B k x n.
  virtual void trsm_left_lower_unit(std::int64_t k, std::int64_t n, const double* l,
                                    std::int64_t ldl, double* b, std::int64_t ldb) = 0;
  // B := U^-1 * B, U k x k upper triangular, non-unit diagonal, B k x n.
  virtual void trsm_left_upper(std::int64_t k, std::int64_t n, const double* u, std::int64_t ldu,
                               double* b, std::int64_t ldb) = 0;
  // LU with partial pivoting of an m x n panel (m >= n), LAPACK dgetrf
  // semantics with 0-based pivots: row i was swapped with row ipiv[i] >= i
  // (i < n). Returns 0, or 1 + the first column with an exact zero pivot
  // (the factorization is still completed, as dgetrf does).
  virtual std::int64_t getrf(std::int64_t m, std::int64_t n, double* a, std::int64_t lda,
                             std::int64_t* ipiv) = 0;
  // Row interchanges on the ncols columns of a (lda): for i = k1 .. k2-1 in
  // order, swap rows i and ipiv[i] (0-based, relative to a), as dlaswp.
  virtual void laswp(std::int64_t ncols, double* a, std::int64_t lda, std::int64_t k1,
                     std::int64_t k2, const std::int64_t* ipiv) = 0;
};

// The CPU engine over the system BLAS/LAPACK (dgemm_, dtrsm_, dgetrf_;
// OpenBLAS on the reference setup). threads <= 0: all hardware threads.
// While it exists, the BLAS library's own threading is set to 1 (restored
// by the destructor) so that our tiles are the only parallelism.
std::unique_ptr<dense_engine> make_cpu_engine(int threads);

}  // namespace exala::detail::stripe
