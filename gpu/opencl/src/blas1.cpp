// Exact level-1 reductions on an OpenCL device (kernels/blas1.cl), the
// device-resident routines of exala/opencl.hpp and the host-pointer hooks of
// the blas1 `opencl` backend.
//
// A reduction is two launches: the reduction kernel (every group writes its
// partial superaccumulator, carries partly resolved, as one column of a
// digit-major array) and exala_merge_rows (one group per digit row), then a
// read of 136 digits and the flags, folded exactly into a host
// exala::superaccumulator and rounded there once, by the same code as the
// reference backend: hence the same bits for every input.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "exala/detail/opencl_hooks.hpp"
#include "exala/error.hpp"
#include "exala/opencl_level23.hpp"
#include "exala/superaccumulator.hpp"
#include "runtime.hpp"

namespace exala::opencl {

namespace {

using detail::check;
using detail::runtime;

constexpr int num_digits = superaccumulator::num_digits;
static_assert(num_digits == 136 && superaccumulator::min_exponent == -2176 &&
                  superaccumulator::digit_bits == 32,
              "kernels/common.cl hard-codes the superaccumulator layout");

// Elements one group may take (EXALA_MAX_PER_GROUP in common.cl): keeps the
// raw local digits below 2^62.
constexpr std::int64_t max_per_group = std::int64_t{1} << 27;
// Groups one merge may add (each written digit < 2^33 in magnitude: the sums
// stay below 2^61, as fold_digits requires).
constexpr std::int64_t max_groups = std::int64_t{1} << 27;

enum class op { sum, asum, dot };

// A device vector: element i at start + i * inc of mem.
struct dvec {
  const cl::Buffer* mem;
  std::int64_t start;
  std::int64_t inc;
};

// Adds the exact terms of n elements to acc (digits and term flags), on rt.
// The caller holds rt.launch_mutex(). n <= max_per_group * max_groups.
//
// Guarantee: exact (Collange, Defour, Graillat, Iakymchuk, ParCo 2015;
// ExBLAS, Iakymchuk et al. 2015): acc gains exactly the sum of the terms.
void reduce(runtime& rt, op o, std::int64_t n, const dvec& x, const dvec& y, superaccumulator& acc) {
  if (n <= 0) return;
  // Work-group size: the device's, halved down to 64 for short vectors.
  std::int64_t local = static_cast<std::int64_t>(rt.reduction_local_size());
  while (local > 64 && local / 2 >= n) local /= 2;
  // Local memory: the superaccumulator (1088 bytes), flags, and
  // EXALA_FPE_N = 4 doubles per work-item for the group merge.
  const auto local_mem = static_cast<std::int64_t>(rt.info().local_mem);
  while (local > 1 && local * 32 + 2048 > local_mem) local /= 2;
  std::int64_t groups = std::min<std::int64_t>(static_cast<std::int64_t>(rt.reduction_groups()),
                                               (n + local - 1) / local);
  groups = std::max<std::int64_t>(groups, (n + max_per_group - 1) / max_per_group);
  groups = std::max<std::int64_t>(groups, 1);
  if (groups > max_groups) throw invalid_argument("n", "is too large for one reduction: " + std::to_string(n));
  const std::size_t rows = num_digits + 1;
  cl::Buffer partial = rt.scratch(0, rows * static_cast<std::size_t>(groups) * sizeof(cl_long));
  cl::Buffer merged = rt.scratch(1, rows * sizeof(cl_long));

  const char* name = o == op::sum ? "exala_sum" : o == op::asum ? "exala_asum" : "exala_dot";
  cl::Kernel& k = rt.shared_kernel("blas1", name);
  cl_uint a = 0;
  check(k.setArg(a++, static_cast<cl_long>(n)), "setArg(n)");
  check(k.setArg(a++, *x.mem), "setArg(x)");
  check(k.setArg(a++, static_cast<cl_long>(x.start)), "setArg(xstart)");
  check(k.setArg(a++, static_cast<cl_long>(x.inc)), "setArg(incx)");
  if (o == op::dot) {
    check(k.setArg(a++, *y.mem), "setArg(y)");
    check(k.setArg(a++, static_cast<cl_long>(y.start)), "setArg(ystart)");
    check(k.setArg(a++, static_cast<cl_long>(y.inc)), "setArg(incy)");
  }
  const std::size_t ls = static_cast<std::size_t>(local);  // a power of two
  check(k.setArg(a++, partial), "setArg(partial)");
  check(k.setArg(a++, cl::Local(ls * 4 * sizeof(cl_double))), "setArg(fbuf)");  // EXALA_FPE_N = 4
  check(rt.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups) * ls),
                                        cl::NDRange(ls)),
        std::string("launch ") + name);

  // Merge: one group per row, a power of two >= the number of columns (at
  // most the reduction's group size).
  std::size_t ms = 1;
  while (ms < ls && ms < static_cast<std::size_t>(groups)) ms *= 2;
  cl::Kernel& m = rt.shared_kernel("blas1", "exala_merge_rows");
  check(m.setArg(0, partial), "setArg(partial)");
  check(m.setArg(1, static_cast<cl_long>(groups)), "setArg(groups)");
  check(m.setArg(2, merged), "setArg(out)");
  check(m.setArg(3, cl::Local(ms * sizeof(cl_long))), "setArg(scratch)");
  check(rt.queue().enqueueNDRangeKernel(m, cl::NullRange, cl::NDRange(rows * ms), cl::NDRange(ms)),
        "launch exala_merge_rows");

  std::int64_t out[1][num_digits + 1];
  check(rt.queue().enqueueReadBuffer(merged, CL_TRUE, 0, sizeof(out), out), "reading the merged digits");
  acc.fold_digits(reinterpret_cast<const std::int64_t(*)[num_digits]>(out), 1);
  acc.or_flags(static_cast<std::uint32_t>(out[0][num_digits]));
}

// Checks a device vector argument and returns it as start/inc.
dvec device_vector(const runtime& rt, std::int64_t n, const buffer& b, std::int64_t off, std::int64_t inc,
                   const char* name) {
  const cl::Buffer& mem = detail::mem(b, rt, name);
  if (n == 0) return {&mem, 0, inc};
  using i128 = __int128;
  const i128 span = static_cast<i128>(n - 1) * (inc < 0 ? -static_cast<i128>(inc) : static_cast<i128>(inc));
  const i128 last = static_cast<i128>(off) + span;
  if (off < 0 || last >= static_cast<i128>(b.size()))
    throw invalid_argument(name, "holds " + std::to_string(b.size()) + " doubles, but offset " +
                                     std::to_string(off) + ", increment " + std::to_string(inc) +
                                     " and n = " + std::to_string(n) + " reach element " +
                                     (off < 0 ? std::to_string(off) : std::to_string(static_cast<long long>(last))));
  const std::int64_t start = inc >= 0 ? off : static_cast<std::int64_t>(last);
  // One element: any increment means the same; 0 keeps the kernels' index
  // arithmetic (start + i * inc for every work-item) far from overflow.
  return {&mem, start, n == 1 ? 0 : inc};
}

void check_n(std::int64_t n) {
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
}

superaccumulator device_reduce(op o, std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx,
                               const buffer* y, std::int64_t offy, std::int64_t incy) {
  check_n(n);
  superaccumulator acc;
  auto rt = detail::current_runtime();
  const dvec dx = device_vector(*rt, n, x, offx, incx, "x");
  const dvec dy = y != nullptr ? device_vector(*rt, n, *y, offy, incy, "y") : dvec{nullptr, 0, 0};
  if (n == 0) return acc;
  std::lock_guard<std::mutex> lock(rt->launch_mutex());
  reduce(*rt, o, n, dx, dy, acc);
  return acc;
}

// ---------------------------------------------------------------- host hooks

// Elements per upload: the data travels in chunks of this many doubles per
// vector (bounded scratch memory, any n).
constexpr std::int64_t host_chunk = std::int64_t{1} << 24;

// Uploads logical elements [c, c + m) of the BLAS vector (p, inc, n) into
// scratch slot `slot` (or wraps them, on a CPU device that shares host
// memory) and returns the device view: unit increments go up as
// one contiguous region (a negative one read backwards on the device, so
// pairs stay paired), increment 0 as one element, other increments packed
// on the host first. `pack` keeps packed data alive until the reduction ends.
dvec upload(runtime& rt, int slot, const double* p, std::int64_t inc, std::int64_t n, std::int64_t c,
            std::int64_t m, std::vector<double>& pack, cl::Buffer& keep) {
  const double* src;
  std::int64_t count, start, dinc;
  if (n == 1) inc = 0;  // one element: the increment does not matter
  if (inc == 0) {
    src = p;
    count = 1;
    start = 0;
    dinc = 0;
  } else if (inc == 1) {
    src = p + c;
    count = m;
    start = 0;
    dinc = 1;
  } else if (inc == -1) {
    src = p + (n - c - m);  // logical element c + k is src[m - 1 - k]
    count = m;
    start = m - 1;
    dinc = -1;
  } else {
    pack.resize(static_cast<std::size_t>(m));
    const std::int64_t a = inc < 0 ? -inc : inc;
    for (std::int64_t k = 0; k < m; ++k) {
      const std::int64_t i = c + k;
      pack[static_cast<std::size_t>(k)] = p[inc > 0 ? i * a : (n - 1 - i) * a];
    }
    src = pack.data();
    count = m;
    start = 0;
    dinc = 1;
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(double);
  if (rt.zero_copy()) {
    // A CPU device reads the host data in place (read-only: never written).
    cl_int err = CL_SUCCESS;
    keep = cl::Buffer(rt.context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, const_cast<double*>(src),
                      &err);
    check(err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    return {&keep, start, dinc};
  }
  keep = rt.scratch(slot, bytes);
  check(rt.queue().enqueueWriteBuffer(keep, CL_FALSE, 0, bytes, src), "uploading a vector");
  return {&keep, start, dinc};
}

// Adds the exact terms of host vectors to acc, chunk by chunk (exact: the
// chunks' digits are folded into the same accumulator).
void host_reduce(superaccumulator& acc, op o, std::int64_t n, const double* x, std::int64_t incx,
                 const double* y, std::int64_t incy) {
  if (n <= 0) return;
  auto rt = detail::current_runtime();
  std::lock_guard<std::mutex> lock(rt->launch_mutex());
  std::vector<double> px, py;
  cl::Buffer bx, by;
  const bool same = o == op::dot && x == y && incx == incy;  // nrm2
  for (std::int64_t c = 0; c < n; c += host_chunk) {
    const std::int64_t m = std::min(host_chunk, n - c);
    const dvec dx = upload(*rt, 2, x, incx, n, c, m, px, bx);
    dvec dy{nullptr, 0, 0};
    if (o == op::dot) dy = same ? dx : upload(*rt, 3, y, incy, n, c, m, py, by);
    // The blocking read at the end of reduce() also waits for the uploads
    // (one in-order queue), so the host data stays untouched until then.
    reduce(*rt, o, m, dx, dy, acc);
  }
}

void hook_sum(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx) {
  host_reduce(acc, op::sum, n, x, incx, nullptr, 0);
}
void hook_asum(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx) {
  host_reduce(acc, op::asum, n, x, incx, nullptr, 0);
}
void hook_dot(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx, const double* y,
              std::int64_t incy) {
  host_reduce(acc, op::dot, n, x, incx, y, incy);
}

constexpr exala::detail::opencl_blas1_hooks blas1_hooks{hook_sum, hook_asum, hook_dot};

}  // namespace

void register_backend() noexcept { exala::detail::register_hooks(backend::opencl, exala::detail::hook_kind::blas1, &blas1_hooks); detail::register_level23(); }

// Correctly rounded sum (Collange et al., ParCo 2015; ExBLAS): exact device
// accumulation, one rounding on the host.
double sum(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx, rounding mode) {
  return device_reduce(op::sum, n, x, offx, incx, nullptr, 0, 0).round(mode);
}
double sum(std::int64_t n, const buffer& x, std::int64_t incx, rounding mode) {
  return sum(n, x, 0, incx, mode);
}

// Correctly rounded sum of magnitudes (Collange et al., ParCo 2015; ExBLAS).
double asum(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx, rounding mode) {
  return device_reduce(op::asum, n, x, offx, incx, nullptr, 0, 0).round(mode);
}
double asum(std::int64_t n, const buffer& x, std::int64_t incx, rounding mode) {
  return asum(n, x, 0, incx, mode);
}

// Correctly rounded dot product, exact products (FMA TwoProd or integer
// products; Collange et al., ParCo 2015; ExBLAS).
double dot(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx, const buffer& y,
           std::int64_t offy, std::int64_t incy, rounding mode) {
  return device_reduce(op::dot, n, x, offx, incx, &y, offy, incy).round(mode);
}
double dot(std::int64_t n, const buffer& x, std::int64_t incx, const buffer& y, std::int64_t incy,
           rounding mode) {
  return dot(n, x, 0, incx, y, 0, incy, mode);
}

// Correctly rounded 2-norm: exact sum of squares (as dot), one rounded sqrt.
double nrm2(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx, rounding mode) {
  return device_reduce(op::dot, n, x, offx, incx, &x, offx, incx).round_sqrt(mode);
}
double nrm2(std::int64_t n, const buffer& x, std::int64_t incx, rounding mode) {
  return nrm2(n, x, 0, incx, mode);
}

}  // namespace exala::opencl
