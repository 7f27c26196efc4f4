// blas1 element-wise routines: axpy, scal, copy, swap, and iamax.
//
// Each output element is rounded at most once (axpy: one fused multiply-add,
// scal: one multiplication, both to nearest) and depends on its own inputs
// only, so the reference loops, the SIMD kernels and any split over OpenMP
// threads give the same bits by construction. Strides follow the BLAS rule of
// blas1.cpp: element i of (p, inc, n) lives at p[i*inc] for inc >= 0 and at
// p[(n-1-i)*|inc|] for inc < 0.
#include <cmath>
#include <cstring>
#include <string>

#include "exala/blas1.hpp"
#include "exala/checked.hpp"
#include "exala/detail/exec.hpp"
#include "exala/error.hpp"
#include "blas1_kernels.hpp"
#include "kernel_set.hpp"

namespace exala {

namespace {

// Memory offset of logical element i of a vector with n elements.
std::int64_t at(std::int64_t i, std::int64_t inc, std::int64_t n) noexcept {
  return detail::vector_offset(i, n, inc);
}

void check_n(std::int64_t n) {
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  detail::check_count("n", n);
}

// Every element offset of (n, inc) within 2^60 - 1 (exala/checked.hpp), so
// that no address below can overflow; checked before any quick return.
void check_span(std::int64_t n, std::int64_t inc, const char* name) {
  detail::check_vector_span(name, n, inc);
}

void check_ptr(std::int64_t n, const void* p, const char* name) {
  if (n > 0 && p == nullptr)
    throw invalid_argument(name, "is a null pointer with n = " + std::to_string(n));
}

// A written vector with increment 0 would receive n results in one cell.
void check_written_inc(std::int64_t n, std::int64_t inc, const char* name) {
  if (inc == 0 && n > 1)
    throw invalid_argument(name, "is 0 for a vector that is written, with n = " + std::to_string(n) +
                                     " (the result would depend on the order)");
}

void check_exec(const exec& ex, bool rounds) {
  detail::check_threads(ex.threads);
  if (rounds && ex.mode != rounding::to_nearest_even)
    throw invalid_argument("mode", "must be to_nearest_even for element-wise routines (the "
                                   "directed rounding modes apply to reductions only)");
  if (!is_compiled_in(ex.backend))
    throw not_compiled_in("backend '" + std::string(to_string(ex.backend)) + "'");
}

// Runs body(begin, end) over [0, n): one call for reference, simd and opencl
// (which runs the simd path on the host: one rounding per element), a
// static split over OpenMP threads (each with at least min_per_thread
// elements) for omp. The split cannot change any result bit.
template <class Body>
void run(std::int64_t n, const exec& ex, Body body) {
  if (ex.backend == backend::omp) {
#ifdef EXALA_HAVE_OPENMP
    constexpr std::int64_t min_per_thread = 32768;
    const std::int64_t wanted = detail::threads_of(ex);
    const std::int64_t useful = (n + min_per_thread - 1) / min_per_thread;
    const int threads = static_cast<int>(wanted < useful ? wanted : useful);
    if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
      for (int t = 0; t < threads; ++t)
        body(detail::split_point(n, t, threads), detail::split_point(n, t + 1, threads));
      return;
    }
#else
    throw not_compiled_in("backend 'omp'");
#endif
  }
  body(std::int64_t{0}, n);
}

}  // namespace

void axpy(std::int64_t n, double alpha, const double* x, std::int64_t incx, double* y,
          std::int64_t incy, const exec& ex) {
  check_n(n);
  check_ptr(n, x, "x");
  check_ptr(n, y, "y");
  check_span(n, incx, "incx");
  check_span(n, incy, "incy");
  check_written_inc(n, incy, "incy");
  check_exec(ex, true);
  // Reference BLAS quick return: y is not touched, even if x holds NaN.
  if (n == 0 || alpha == 0.0) return;
  const bool contiguous = incx == incy && (incx == 1 || incx == -1);
  if (ex.backend == backend::reference || !contiguous) {
    run(n, ex, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) {
        double& yi = y[at(i, incy, n)];
        yi = std::fma(alpha, x[at(i, incx, n)], yi);
      }
    });
    return;
  }
  // inc = -1 for both pairs the same memory cells as inc = 1.
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  run(n, ex, [&](std::int64_t b, std::int64_t e) {
    k.axpy(alpha, x + b, y + b, static_cast<std::size_t>(e - b));
  });
}

void scal(std::int64_t n, double alpha, double* x, std::int64_t incx, const exec& ex) {
  check_n(n);
  check_ptr(n, x, "x");
  check_span(n, incx, "incx");
  check_written_inc(n, incx, "incx");
  check_exec(ex, true);
  if (n == 0) return;
  if (ex.backend == backend::reference || (incx != 1 && incx != -1)) {
    run(n, ex, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) {
        double& xi = x[at(i, incx, n)];
        xi = alpha * xi;
      }
    });
    return;
  }
  const detail::blas1_kernels& k = *detail::active_kernels().blas1;
  run(n, ex, [&](std::int64_t b, std::int64_t e) {
    k.scal(alpha, x + b, static_cast<std::size_t>(e - b));
  });
}

void copy(std::int64_t n, const double* x, std::int64_t incx, double* y, std::int64_t incy,
          const exec& ex) {
  check_n(n);
  check_ptr(n, x, "x");
  check_ptr(n, y, "y");
  check_span(n, incx, "incx");
  check_span(n, incy, "incy");
  check_written_inc(n, incy, "incy");
  check_exec(ex, false);
  if (n == 0) return;
  if (incx == incy && (incx == 1 || incx == -1)) {
    std::memmove(y, x, static_cast<std::size_t>(n) * sizeof(double));
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) y[at(i, incy, n)] = x[at(i, incx, n)];
}

void swap(std::int64_t n, double* x, std::int64_t incx, double* y, std::int64_t incy,
          const exec& ex) {
  check_n(n);
  check_ptr(n, x, "x");
  check_ptr(n, y, "y");
  check_span(n, incx, "incx");
  check_span(n, incy, "incy");
  check_written_inc(n, incx, "incx");
  check_written_inc(n, incy, "incy");
  check_exec(ex, false);
  for (std::int64_t i = 0; i < n; ++i) {
    double& a = x[at(i, incx, n)];
    double& b = y[at(i, incy, n)];
    const double t = a;
    a = b;
    b = t;
  }
}

std::int64_t iamax(std::int64_t n, const double* x, std::int64_t incx, const exec& ex) {
  check_n(n);
  check_ptr(n, x, "x");
  check_span(n, incx, "incx");
  check_exec(ex, false);
  if (n == 0) return -1;
  std::int64_t best = 0;
  double best_abs = -1.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = std::fabs(x[at(i, incx, n)]);
    if (std::isnan(a)) return i;
    if (a > best_abs) best = i, best_abs = a;  // strict: ties keep the first index
  }
  return best;
}

void axpy(double alpha, std::span<const double> x, std::span<double> y, const exec& ex) {
  if (x.size() != y.size())
    throw invalid_argument("y", "has " + std::to_string(y.size()) + " elements but x has " +
                                    std::to_string(x.size()));
  axpy(static_cast<std::int64_t>(x.size()), alpha, x.data(), 1, y.data(), 1, ex);
}

void copy(std::span<const double> x, std::span<double> y, const exec& ex) {
  if (x.size() != y.size())
    throw invalid_argument("y", "has " + std::to_string(y.size()) + " elements but x has " +
                                    std::to_string(x.size()));
  copy(static_cast<std::int64_t>(x.size()), x.data(), 1, y.data(), 1, ex);
}

void swap(std::span<double> x, std::span<double> y, const exec& ex) {
  if (x.size() != y.size())
    throw invalid_argument("y", "has " + std::to_string(y.size()) + " elements but x has " +
                                    std::to_string(x.size()));
  swap(static_cast<std::int64_t>(x.size()), x.data(), 1, y.data(), 1, ex);
}

// ------------------------------------------------------------ plane rotations

namespace {
// round(h0 x + h1 y) of the exact two-term sum, in `mode`: the bounded
// double-double fast path where it decides (simd, omp), else the exact
// accumulator (always on the reference backend, the oracle).
double two_term(double h0, double x, double h1, double y, rounding mode, bool fast,
                superaccumulator& acc) {
  if (fast) {
    const double hv[2] = {h0, h1}, xv[2] = {x, y};
    double out;
    if (detail::dot_decided(hv, xv, 2, mode, out)) return out;
  }
  acc.clear();
  acc.add_product(h0, x);
  acc.add_product(h1, y);
  return acc.round(mode);
}
}  // namespace

void rotm(std::int64_t n, double* x, std::int64_t incx, double* y, std::int64_t incy,
          const double* param, const exec& ex) {
  check_n(n);
  check_ptr(n, x, "x");
  check_ptr(n, y, "y");
  check_span(n, incx, "incx");
  check_span(n, incy, "incy");
  check_written_inc(n, incx, "incx");
  check_written_inc(n, incy, "incy");
  check_exec(ex, false);
  if (param == nullptr) throw invalid_argument("param", "is a null pointer");
  const double flag = param[0];
  double h11, h21, h12, h22;
  if (flag == -2.0) {
    return;
  } else if (flag == -1.0) {
    h11 = param[1], h21 = param[2], h12 = param[3], h22 = param[4];
  } else if (flag == 0.0) {
    h11 = 1.0, h21 = param[2], h12 = param[3], h22 = 1.0;
  } else if (flag == 1.0) {
    h11 = param[1], h21 = -1.0, h12 = 1.0, h22 = param[4];
  } else {
    throw invalid_argument("param", "[0] (the flag) must be -2, -1, 0 or 1, got " + std::to_string(flag));
  }
  if (n == 0) return;
  const bool fast = ex.backend != backend::reference;
  run(n, ex, [&](std::int64_t b, std::int64_t e) {
    superaccumulator acc;
    for (std::int64_t i = b; i < e; ++i) {
      double& xi = x[at(i, incx, n)];
      double& yi = y[at(i, incy, n)];
      const double w = xi, z = yi;
      xi = two_term(h11, w, h12, z, ex.mode, fast, acc);
      yi = two_term(h21, w, h22, z, ex.mode, fast, acc);
    }
  });
}

void rotg(double& a, double& b, double& c, double& s, const exec& ex) {
  check_exec(ex, true);
  const double anorm = std::fabs(a), bnorm = std::fabs(b);
  if (bnorm == 0.0) {
    c = 1.0;
    s = 0.0;
    b = 0.0;  // r = a: a is unchanged
    return;
  }
  if (anorm == 0.0) {
    c = 0.0;
    s = 1.0;
    a = b;
    b = 1.0;
    return;
  }
  const double sigma = anorm > bnorm ? std::copysign(1.0, a) : std::copysign(1.0, b);
  const double v[2] = {a, b};
  exec one = ex;
  one.backend = backend::reference;  // a 2-vector: the exact accumulator is the whole cost
  one.threads = 0;
  const double r = sigma * nrm2(2, v, 1, one);
  c = a / r;
  s = b / r;
  const double z = anorm > bnorm ? s : (c != 0.0 ? 1.0 / c : 1.0);
  a = r;
  b = z;
}

}  // namespace exala
