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

#include <cstddef>
#include <cstdint>
#include <functional>
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
  // out[j] = a[j + j*lda], j < k, into host memory (the pivot checks read the
  // diagonal through this, so that a device engine's operands may be device
  // pointers).
  virtual void read_diagonal(const double* a, std::int64_t lda, std::int64_t k, double* out) {
    for (std::int64_t j = 0; j < k; ++j) out[j] = a[j + j * lda];
  }
};

// An engine whose operands live in its own (device) memory: every pointer
// passed to the dense_engine calls above must come from alloc(). The stripe LU
// moves host stripes in and out with the asynchronous copies below (see
// device_driver.hpp). Work is ordered on three queues: h2d (uploads), compute
// (every dense_engine call) and d2h (downloads); events order them.
class device_engine : public dense_engine {
 public:
  enum queue { h2d = 0, compute = 1, d2h = 2 };
  using event = int;  // an index into the engine's event pool

  // Device memory that a new allocation may still take (bytes).
  virtual std::size_t free_bytes() = 0;
  // count doubles of device memory (throws exala::error naming `what` when
  // the device is out of memory); release() frees it.
  virtual double* alloc(std::size_t count, const char* what) = 0;
  virtual void release(double* p) noexcept = 0;
  // Pins host memory for asynchronous copies (best effort: false when the
  // system refuses; copies then still work, synchronously). unpin() undoes it.
  virtual bool pin(void* p, std::size_t bytes) = 0;
  virtual void unpin(void* p) noexcept = 0;
  // rows x cols column-major copies, host (ldh) -> device (ldd) on the h2d
  // queue and device -> host on the d2h queue.
  virtual void upload(const double* host, std::int64_t ldh, double* dev, std::int64_t ldd,
                      std::int64_t rows, std::int64_t cols) = 0;
  virtual void download(const double* dev, std::int64_t ldd, double* host, std::int64_t ldh,
                        std::int64_t rows, std::int64_t cols) = 0;
  // An event recorded now on queue q; wait(q, e) makes queue q wait for it;
  // sync(e) blocks the host until it has happened. An event handle stays
  // valid for the next 4096 records (a ring), which bounds what a driver may
  // keep outstanding.
  virtual event record(queue q) = 0;
  virtual void wait(queue q, event e) = 0;
  virtual void sync(event e) = 0;
  // Blocks until every queue is idle (and reports a device error, if any).
  virtual void sync_all() = 0;
  // A few words on the device (name, memory) for reports.
  virtual std::string device_name() const = 0;
};

// Device engines are provided by the gpu layer, which sits above the solvers:
// it registers a factory under its backend (cuda) with the one registration
// point (exala/detail/backend_hooks.hpp, hook_kind::stripe_engine) when a
// program links it (exala/cuda.hpp). The engine name is the backend's name.
struct stripe_engine_hooks {
  std::unique_ptr<device_engine> (*make)(int threads);
};
// make_device_engine returns nullptr for a name that is no backend or whose
// backend registered no engine.
std::unique_ptr<device_engine> make_device_engine(const std::string& name, int threads);

// The CPU engine over the system BLAS/LAPACK (dgemm_, dtrsm_, dgetrf_;
// OpenBLAS on the reference setup). threads <= 0: all hardware threads.
// While it exists, the BLAS library's own threading is set to 1 (restored
// by the destructor) so that our tiles are the only parallelism.
std::unique_ptr<dense_engine> make_cpu_engine(int threads);

}  // namespace exala::detail::stripe
