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
// packs its operands before computing (tests check both properties). (With
// OpenBLAS even the m/n partition of a gemm or trsm leaves the bits alone -
// only a split of k would change them - but nothing here relies on that.)
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
#include "exala/detail/backend_hooks.hpp"
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

// ---- which BLAS: the system's, even under ExaLA's drop-in BLAS ----
// When libexala_blas.so (bindings/blas_abi) is preloaded, the names dgemm_
// and dtrsm_ resolve to its exact, correctly rounded routines. The engine
// does not need them (its bits are reproducible by the tiling above, not by
// exactness) and they are far slower, so it asks the drop-in library for the
// next library's symbols (registered with the one registration point,
// exala/detail/backend_hooks.hpp: system_blas_lookup). Without the drop-in
// library the linked symbols are used directly.
struct system_blas {
  decltype(&::dgemm_) dgemm = &::dgemm_;
  decltype(&::dtrsm_) dtrsm = &::dtrsm_;
  decltype(&::dgetrf_) dgetrf = &::dgetrf_;
  decltype(&::dlaswp_) dlaswp = &::dlaswp_;
};

template <class F>
void take_next(void* (*next)(const char*), const char* name, F& fn) {
  if (void* sym = next(name)) fn = reinterpret_cast<F>(sym);
}

const system_blas& sys() {
  static const system_blas blas = [] {
    system_blas b;
    if (auto next = system_blas_lookup()) {
      take_next(next, "dgemm_", b.dgemm);
      take_next(next, "dtrsm_", b.dtrsm);
      take_next(next, "dgetrf_", b.dgetrf);
      take_next(next, "dlaswp_", b.dlaswp);
    }
    return b;
  }();
  return blas;
}

// ---- tile shapes (the only tuning knobs) ----
// A tiled dimension of length len is cut into `count` pieces:
//   count = ceil(len / max_width), rounded up to a multiple of `multiple`,
//   but no more than len / min_width (pieces stay >= min_width wide) and at
//   least 1;
// each piece a whole number of tile_align-wide units, shared out as evenly as
// possible (the first pieces get one more unit), the last piece cut at len.
// A function of len and the constants only: never of the thread count.
//
// Measured on the reference machine (OpenBLAS 0.3.21 Haswell kernels, AMD
// EPYC, 2 cores, ld = 8000): a single-threaded 512 x w x 512 dgemm tile runs
// at 46.7 / 48.3 / 49.2 / 51.6 GF/s for w = 256 / 512 / 1024 / 2048 (each tile
// repacks A), so gemm tiles are as wide as 2048 columns; the count is a
// multiple of 4 so that 1, 2 or 4 threads get equal shares of a wide call.
struct tiling {
  std::int64_t max_width;
  std::int64_t min_width;
  std::int64_t multiple;
};
constexpr tiling gemm_col_tiles{2048, 256, 4};    // columns of C
constexpr tiling gemm_row_tiles{1024, 1024, 1};   // rows of C (tall C only)
constexpr tiling gemm_row_tiles_narrow{256, 256, 1};  // rows of C with < 64 columns
constexpr std::int64_t gemm_narrow = 64;
constexpr tiling trsm_row_tiles{256, 64, 2};      // rows of B, trsm_right_upper
constexpr tiling trsm_col_tiles{2048, 256, 4};    // columns of B, trsm_left_*
constexpr tiling laswp_col_tiles{512, 512, 1};    // columns, laswp
constexpr std::int64_t tile_align = 8;            // piece widths: multiples of 8 (but the last)

struct split {
  std::int64_t len = 0;
  std::int64_t count = 0;
  std::int64_t units_each = 0;  // tile_align units per piece (the first `extra` get one more)
  std::int64_t extra = 0;
  std::int64_t begin(std::int64_t i) const {
    return (i * units_each + std::min(i, extra)) * tile_align;
  }
  std::int64_t size(std::int64_t i) const { return std::min(len, begin(i + 1)) - begin(i); }
};

split make_split(std::int64_t len, const tiling& t) {
  if (len <= 0) return {};
  const std::int64_t units = (len + tile_align - 1) / tile_align;
  std::int64_t count = (len + t.max_width - 1) / t.max_width;
  count = (count + t.multiple - 1) / t.multiple * t.multiple;
  count = std::min(count, len / t.min_width);
  count = std::max<std::int64_t>(1, std::min(count, units));
  return {len, count, units / count, units % count};
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

  // Reproducible C := C - A B (each entry a k-term dot product as the BLAS
  // computes it): the tiles are blocks of C (gemm_col_tiles columns,
  // gemm_row_tiles rows), each one full-k dgemm, so entry (i, j) gets the bits
  // of its tile's dgemm, whose shape depends on (m, n, k) only.
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
    const split rs = make_split(m, n < gemm_narrow ? gemm_row_tiles_narrow : gemm_row_tiles);
    const split cs = make_split(n, gemm_col_tiles);
    const int ik = i32(k), ila = i32(lda), ilb = i32(ldb), ilc = i32(ldc);
    for_tiles(threads_, rs.count * cs.count, [&](std::int64_t t) {
      const std::int64_t ti = t % rs.count, tj = t / rs.count;
      const std::int64_t i0 = rs.begin(ti), j0 = cs.begin(tj);
      const int mm = i32(rs.size(ti)), nn = i32(cs.size(tj));
      const double minus_one = -1.0, one = 1.0;
      sys().dgemm("N", "N", &mm, &nn, &ik, &minus_one, a + i0, &ila, b + j0 * ldb, &ilb, &one,
             c + i0 + j0 * ldc, &ilc, 1, 1);
    });
  }

  // Reproducible B := B U^-1 (the BLAS's dtrsm per tile): rows of B are
  // independent; tiles of trsm_row_tiles rows.
  void trsm_right_upper(std::int64_t m, std::int64_t k, const double* u, std::int64_t ldu,
                        double* b, std::int64_t ldb) override {
    check_size(m, "m");
    check_size(k, "k");
    check_ld(ldu, k, "ldu");
    check_ld(ldb, m, "ldb");
    if (m == 0 || k == 0) return;
    check_ptr(u, true, "u");
    check_ptr(b, true, "b");
    const split rs = make_split(m, trsm_row_tiles);
    const int ik = i32(k), ilu = i32(ldu), ilb = i32(ldb);
    for_tiles(threads_, rs.count, [&](std::int64_t t) {
      const int mm = i32(rs.size(t));
      const double one = 1.0;
      sys().dtrsm("R", "U", "N", "N", &mm, &ik, &one, u, &ilu, b + rs.begin(t), &ilb, 1, 1, 1, 1);
    });
  }

  // Reproducible B := L^-1 B (unit diagonal): see trsm_left.
  void trsm_left_lower_unit(std::int64_t k, std::int64_t n, const double* l, std::int64_t ldl,
                            double* b, std::int64_t ldb) override {
    trsm_left('L', 'U', k, n, l, ldl, b, ldb, "ldl", "l");
  }

  // Reproducible B := U^-1 B: see trsm_left.
  void trsm_left_upper(std::int64_t k, std::int64_t n, const double* u, std::int64_t ldu,
                       double* b, std::int64_t ldb) override {
    trsm_left('U', 'N', k, n, u, ldu, b, ldb, "ldu", "u");
  }

  // Reproducible LU with partial pivoting (LAPACK dgetrf, backward stable):
  // one call, since its pivot search runs down whole columns and cannot be
  // tiled without changing the algorithm; single-threaded BLAS inside.
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
    sys().dgetrf(&im, &in, a, &ila, piv.data(), &info);
    if (info < 0)
      throw invalid_argument("getrf", "dgetrf_ rejected argument " + std::to_string(-info));
    for (std::int64_t i = 0; i < mn; ++i) ipiv[i] = piv[static_cast<std::size_t>(i)] - 1;
    return info;
  }

  // Exact row interchanges (data movement only, as dlaswp): columns are
  // independent; tiles of laswp_col_tiles columns.
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
    const split cs = make_split(ncols, laswp_col_tiles);
    const int ila = i32(lda), ik1 = i32(k1 + 1), ik2 = i32(k2), inc = 1;
    for_tiles(threads_, cs.count, [&](std::int64_t t) {
      const int nn = i32(cs.size(t));
      sys().dlaswp(&nn, a + cs.begin(t) * lda, &ila, &ik1, &ik2, piv.data(), &inc);
    });
  }

 private:
  // Reproducible B := T^-1 B for a left triangular T (uplo 'L' + unit, or
  // 'U' + non-unit; the BLAS's dtrsm per tile): columns of B are independent;
  // tiles of trsm_col_tiles columns.
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
    const split cs = make_split(n, trsm_col_tiles);
    const int ik = i32(k), ilt = i32(ldt), ilb = i32(ldb);
    for_tiles(threads_, cs.count, [&](std::int64_t j) {
      const int nn = i32(cs.size(j));
      const double one = 1.0;
      sys().dtrsm("L", &uplo, "N", &diag, &ik, &nn, &one, t, &ilt, b + cs.begin(j) * ldb, &ilb, 1, 1,
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
