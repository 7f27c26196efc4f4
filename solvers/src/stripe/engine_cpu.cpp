// stripe/engine_cpu.cpp - the stripe LU's CPU dense_engine over the system
// BLAS/LAPACK (dgemm_, dtrsm_, dgetrf_, dlaswp_; OpenBLAS on the reference
// setup).
//
// Guarantee: reproducible by construction. Every call is cut into tiles whose
// shapes are a function of the call's sizes only (fixed target widths below);
// each tile is one single-threaded BLAS call on a disjoint part of the output,
// and the tiles are spread over the engine's OpenMP threads. The thread count
// (and the schedule) changes which thread computes a tile, never how, so the
// bits of a call depend only on its sizes and values (and on the BLAS library
// and CPU). Leading dimensions do not enter the arithmetic either: the BLAS
// packs its operands before computing (tests check both properties).
//
// Assumptions, stated once:
//  - The BLAS/LAPACK use the gfortran calling convention with 32-bit INTEGER
//    (LP64). Character arguments are passed with their hidden size_t lengths
//    appended, as gfortran does (a C-implemented BLAS such as OpenBLAS
//    ignores them).
//  - A single-threaded BLAS call is a deterministic function of its sizes and
//    values. For OpenBLAS this holds when its own thread count is 1 (then it
//    runs the *_single drivers on the calling thread); the engine sets it to 1
//    while any engine exists (found with dlsym, so other BLAS libraries link
//    too; for them, single-threaded operation is the user's job).
//  - Every size and leading dimension must fit in a 32-bit int: checked, with
//    exala::invalid_argument naming the argument otherwise.
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine.hpp"
#include "exala/error.hpp"

#ifdef EXALA_SOLVERS_HAVE_OPENMP
#include <omp.h>
#endif

extern "C" {
// Fortran BLAS/LAPACK (LP64, gfortran ABI: hidden string lengths last).
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, std::size_t transa_len,
            std::size_t transb_len);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb, std::size_t side_len, std::size_t uplo_len, std::size_t transa_len,
            std::size_t diag_len);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dlaswp_(const int* n, double* a, const int* lda, const int* k1, const int* k2, const int* ipiv,
             const int* incx);
}

namespace exala::detail::stripe {
namespace {

// ---- tile shapes (the only tuning knobs; each is a target, see split()) ----
// Measured on the reference machine (OpenBLAS 0.3.21 Haswell kernels, AMD
// EPYC, 2 cores): single-threaded dgemm reaches ~50 GF/s from 512 x 256 x k
// tiles (k >= 128), 2-3% more at 512 x 512; 256-column tiles keep the load
// balanced when a call has only a few tiles per thread.
constexpr std::int64_t gemm_cols = 256;   // C columns per gemm tile
constexpr std::int64_t gemm_rows = 1024;  // C rows per gemm tile (tall C only)
constexpr std::int64_t gemm_rows_narrow = 256;  // rows per tile when C has < 64 columns
constexpr std::int64_t trsm_rows = 128;   // rows of B per trsm_right tile
constexpr std::int64_t trsm_cols = 256;   // columns of B per trsm_left tile
constexpr std::int64_t laswp_cols = 512;  // columns per laswp tile
constexpr std::int64_t tile_align = 8;    // tile widths are multiples of this (but the last)

// A dimension of `len` cut into `count` pieces of `width` (the last one
// shorter): count = ceil(len / target), widths as equal as the alignment
// allows. A function of (len, target) only.
struct split {
  std::int64_t count = 0;
  std::int64_t width = 0;
  std::int64_t begin(std::int64_t i) const { return i * width; }
};

split make_split(std::int64_t len, std::int64_t target) {
  if (len <= 0) return {0, 0};
  std::int64_t count = (len + target - 1) / target;
  std::int64_t width = (len + count - 1) / count;
  width = (width + tile_align - 1) / tile_align * tile_align;
  if (width > len) width = len;
  count = (len + width - 1) / width;
  return {count, width};
}

std::int64_t piece(const split& s, std::int64_t i, std::int64_t len) {
  return std::min(s.width, len - s.begin(i));
}

// ---- argument checks ----
void check_size(std::int64_t v, const char* name) {
  if (v < 0) throw invalid_argument(name, "must be >= 0 (got " + std::to_string(v) + ")");
  if (v > INT_MAX)
    throw invalid_argument(name, "= " + std::to_string(v) +
                                     " does not fit the BLAS's 32-bit integers (max " +
                                     std::to_string(INT_MAX) + ")");
}

void check_ld(std::int64_t ld, std::int64_t rows, const char* name) {
  if (ld < std::max<std::int64_t>(1, rows))
    throw invalid_argument(name, "= " + std::to_string(ld) + " is less than max(1, " +
                                     std::to_string(rows) + ")");
  check_size(ld, name);
}

void check_ptr(const void* p, bool needed, const char* name) {
  if (needed && p == nullptr) throw invalid_argument(name, "is a null pointer");
}

int i32(std::int64_t v) { return static_cast<int>(v); }

// ---- the BLAS library's own threading: 1 while any engine exists ----
class blas_threading {
 public:
  static void acquire() {
    std::lock_guard<std::mutex> lock(mutex());
    auto& st = state();
    if (st.users++ > 0) return;
    auto get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    auto set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    st.set = (get != nullptr && set != nullptr) ? set : nullptr;
    if (st.set != nullptr) {
      st.saved = get();
      st.set(1);
    }
  }
  static void release() {
    std::lock_guard<std::mutex> lock(mutex());
    auto& st = state();
    if (--st.users > 0) return;
    if (st.set != nullptr && st.saved > 0) st.set(st.saved);
    st.set = nullptr;
  }

 private:
  struct data {
    int users = 0;
    int saved = 0;
    void (*set)(int) = nullptr;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static data& state() {
    static data d;
    return d;
  }
};

// Runs body(i) for i in [0, count) on up to `threads` threads. Each i writes
// a disjoint part of the output, so the order does not matter.
template <class F>
void for_tiles(int threads, std::int64_t count, const F& body) {
  if (count <= 0) return;
#ifdef EXALA_SOLVERS_HAVE_OPENMP
  const int nt = static_cast<int>(std::min<std::int64_t>(threads, count));
  if (nt > 1) {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (std::int64_t i = 0; i < count; ++i) body(i);
    return;
  }
#else
  (void)threads;
#endif
  for (std::int64_t i = 0; i < count; ++i) body(i);
}

class cpu_engine final : public dense_engine {
 public:
  explicit cpu_engine(int threads) {
#ifdef EXALA_SOLVERS_HAVE_OPENMP
    threads_ = threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    threads_ = 1;
#endif
    if (threads_ < 1) threads_ = 1;
    blas_threading::acquire();
  }
  ~cpu_engine() override { blas_threading::release(); }
  cpu_engine(const cpu_engine&) = delete;
  cpu_engine& operator=(const cpu_engine&) = delete;

  std::string name() const override { return "cpu"; }
  int threads() const override { return threads_; }

  // C := C - A B: the tiles are blocks of C (columns of gemm_cols, rows of
  // gemm_rows), each one full-k dgemm; entry (i, j) of C gets the bits of
  // the tile's dgemm, whose shape depends on (m, n, k) only.
  void gemm_sub(std::int64_t m, std::int64_t n, std::int64_t k, const double* a, std::int64_t lda,
                const double* b, std::int64_t ldb, double* c, std::int64_t ldc) override {
    check_size(m, "m");
    check_size(n, "n");
    check_size(k, "k");
    check_ld(lda, m, "lda");
    check_ld(ldb, k, "ldb");
    check_ld(ldc, m, "ldc");
    if (m == 0 || n == 0 || k == 0) return;
    check_ptr(a, true, "a");
    check_ptr(b, true, "b");
    check_ptr(c, true, "c");
    const split rs = make_split(m, n < 64 ? gemm_rows_narrow : gemm_rows);
    const split cs = make_split(n, gemm_cols);
    const int ik = i32(k), ila = i32(lda), ilb = i32(ldb), ilc = i32(ldc);
    for_tiles(threads_, rs.count * cs.count, [&](std::int64_t t) {
      const std::int64_t ti = t % rs.count, tj = t / rs.count;
      const std::int64_t i0 = rs.begin(ti), j0 = cs.begin(tj);
      const int mm = i32(piece(rs, ti, m)), nn = i32(piece(cs, tj, n));
      const double minus_one = -1.0, one = 1.0;
      dgemm_("N", "N", &mm, &nn, &ik, &minus_one, a + i0, &ila, b + j0 * ldb, &ilb, &one,
             c + i0 + j0 * ldc, &ilc, 1, 1);
    });
  }

  // B := B U^-1: rows of B are independent; tiles of trsm_rows rows.
  void trsm_right_upper(std::int64_t m, std::int64_t k, const double* u, std::int64_t ldu,
                        double* b, std::int64_t ldb) override {
    check_size(m, "m");
    check_size(k, "k");
    check_ld(ldu, k, "ldu");
    check_ld(ldb, m, "ldb");
    if (m == 0 || k == 0) return;
    check_ptr(u, true, "u");
    check_ptr(b, true, "b");
    const split rs = make_split(m, trsm_rows);
    const int ik = i32(k), ilu = i32(ldu), ilb = i32(ldb);
    for_tiles(threads_, rs.count, [&](std::int64_t t) {
      const int mm = i32(piece(rs, t, m));
      const double one = 1.0;
      dtrsm_("R", "U", "N", "N", &mm, &ik, &one, u, &ilu, b + rs.begin(t), &ilb, 1, 1, 1, 1);
    });
  }

  void trsm_left_lower_unit(std::int64_t k, std::int64_t n, const double* l, std::int64_t ldl,
                            double* b, std::int64_t ldb) override {
    trsm_left('L', 'U', k, n, l, ldl, b, ldb, "ldl", "l");
  }

  void trsm_left_upper(std::int64_t k, std::int64_t n, const double* u, std::int64_t ldu,
                       double* b, std::int64_t ldb) override {
    trsm_left('U', 'N', k, n, u, ldu, b, ldb, "ldu", "u");
  }

  // One dgetrf call (its pivot search runs down whole columns, so it cannot
  // be tiled without changing the algorithm); single-threaded BLAS inside.
  std::int64_t getrf(std::int64_t m, std::int64_t n, double* a, std::int64_t lda,
                     std::int64_t* ipiv) override {
    check_size(m, "m");
    check_size(n, "n");
    check_ld(lda, m, "lda");
    const std::int64_t mn = std::min(m, n);
    if (mn == 0) return 0;
    check_ptr(a, true, "a");
    check_ptr(ipiv, true, "ipiv");
    std::vector<int> piv(static_cast<std::size_t>(mn));
    const int im = i32(m), in = i32(n), ila = i32(lda);
    int info = 0;
    dgetrf_(&im, &in, a, &ila, piv.data(), &info);
    if (info < 0)
      throw invalid_argument("getrf", "dgetrf_ rejected argument " + std::to_string(-info));
    for (std::int64_t i = 0; i < mn; ++i) ipiv[i] = piv[static_cast<std::size_t>(i)] - 1;
    return info;
  }

  // Row interchanges: columns are independent; tiles of laswp_cols columns.
  void laswp(std::int64_t ncols, double* a, std::int64_t lda, std::int64_t k1, std::int64_t k2,
             const std::int64_t* ipiv) override {
    check_size(ncols, "ncols");
    check_size(k1, "k1");
    check_size(k2, "k2");
    if (k2 < k1)
      throw invalid_argument("k2", "= " + std::to_string(k2) + " is less than k1 = " +
                                       std::to_string(k1));
    if (ncols == 0 || k2 == k1) return;
    check_ptr(a, true, "a");
    check_ptr(ipiv, true, "ipiv");
    std::int64_t rows = k2;  // rows touched: every i and ipiv[i] must be < lda
    std::vector<int> piv(static_cast<std::size_t>(k2));
    for (std::int64_t i = k1; i < k2; ++i) {
      if (ipiv[i] < 0 || ipiv[i] >= INT_MAX)
        throw invalid_argument("ipiv", "[" + std::to_string(i) + "] = " +
                                           std::to_string(ipiv[i]) + " is out of range");
      rows = std::max(rows, ipiv[i] + 1);
      piv[static_cast<std::size_t>(i)] = static_cast<int>(ipiv[i] + 1);
    }
    check_ld(lda, rows, "lda");
    const split cs = make_split(ncols, laswp_cols);
    const int ila = i32(lda), ik1 = i32(k1 + 1), ik2 = i32(k2), inc = 1;
    for_tiles(threads_, cs.count, [&](std::int64_t t) {
      const int nn = i32(piece(cs, t, ncols));
      dlaswp_(&nn, a + cs.begin(t) * lda, &ila, &ik1, &ik2, piv.data(), &inc);
    });
  }

 private:
  // B := T^-1 B for a left triangular T (uplo 'L' + unit, or 'U' + non-unit):
  // columns of B are independent; tiles of trsm_cols columns.
  void trsm_left(char uplo, char diag, std::int64_t k, std::int64_t n, const double* t,
                 std::int64_t ldt, double* b, std::int64_t ldb, const char* ldt_name,
                 const char* t_name) {
    check_size(k, "k");
    check_size(n, "n");
    check_ld(ldt, k, ldt_name);
    check_ld(ldb, k, "ldb");
    if (k == 0 || n == 0) return;
    check_ptr(t, true, t_name);
    check_ptr(b, true, "b");
    const split cs = make_split(n, trsm_cols);
    const int ik = i32(k), ilt = i32(ldt), ilb = i32(ldb);
    for_tiles(threads_, cs.count, [&](std::int64_t j) {
      const int nn = i32(piece(cs, j, n));
      const double one = 1.0;
      dtrsm_("L", &uplo, "N", &diag, &ik, &nn, &one, t, &ilt, b + cs.begin(j) * ldb, &ilb, 1, 1,
             1, 1);
    });
  }

  int threads_ = 1;
};

}  // namespace

std::unique_ptr<dense_engine> make_cpu_engine(int threads) {
  return std::make_unique<cpu_engine>(threads);
}

}  // namespace exala::detail::stripe
