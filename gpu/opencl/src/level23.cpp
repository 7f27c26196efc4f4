// Device-resident exact gemv, trsv, gemm and trsm (exala/opencl_level23.hpp)
// and the blas2 / blas3 hooks of backend::opencl.
//
// gemv / gemm: exact dot products on the device (kernel l23_dot in
// kernels/level23.cl), a grid of outputs o = (i, j), each the exact sum of K
// products A(i, l) B(l, j) of strided operands, held in superaccumulator
// digits; the device rounds alpha S + beta y where its error bound proves the
// result, the rest go to a fallback list rounded here with exala::round_axpby.
// trsv: exact per-row accumulators on the device, diagonal blocks solved on
// the device where the quotient's rounding is proven, the other rows rounded
// here with exala::round_div (solve_device). trsm: up to 16 right-hand sides
// one by one through solve_device; more: the same blocked algorithm for all of
// them at once, panels on the device (l23_dot, digits back) and the diagonal
// blocks on the host (solve_blocked). Every result is
// the one rounding of its exact value: the bits of the reference backend by
// construction.
#include "exala/opencl_level23.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "exala/checked.hpp"
#include "exala/detail/opencl_hooks2.hpp"
#include "exala/detail/opencl_hooks3.hpp"
#include "exala/error.hpp"
#include "exala/exact_ops.hpp"
#include "exala/superaccumulator.hpp"
#include "runtime.hpp"

namespace exala::opencl {

namespace {

std::atomic<std::int64_t> device_rounded{0}, host_rounded{0};

using detail::check;
using i64 = std::int64_t;
constexpr int ND = superaccumulator::num_digits;

// ---------------------------------------------------------------- checks

void check_nonneg(const char* name, i64 v) {
  if (v < 0) throw invalid_argument(name, "must be >= 0, got " + std::to_string(v));
}
void check_ld(const char* name, i64 ld, i64 rows) {
  const i64 need = std::max<i64>(1, rows);
  if (ld < need)
    throw invalid_argument(name, "must be >= " + std::to_string(need) + ", got " + std::to_string(ld));
}
// The buffer must hold `count` elements (the span an argument touches).
void check_span(const char* name, const buffer& b, i64 count) {
  if (count > 0 && static_cast<i64>(b.size()) < count)
    throw invalid_argument(name, "is a device buffer of " + std::to_string(b.size()) +
                                     " doubles, but the call touches " + std::to_string(count));
}
// Address spans in elements, checked (exala/checked.hpp): a span beyond
// 2^60 - 1 elements throws invalid_argument naming the leading dimension or
// the increment, so no index below overflows (before the buffer checks:
// an overflowing span would otherwise wrap to a small or negative count).
i64 mat_span(const char* ld_name, i64 lines, i64 line_len, i64 ld) {
  exala::detail::check_matrix_span(ld_name, lines, line_len, ld);
  return *exala::detail::matrix_span(lines, line_len, ld);
}
i64 vec_span(const char* inc_name, i64 n, i64 inc) {
  exala::detail::check_vector_span(inc_name, n, inc);
  return *exala::detail::vector_span(n, inc);
}
// Offset of logical element 0 of a strided vector (BLAS: a negative
// increment starts at the far end).
i64 vec_base(i64 n, i64 inc) { return exala::detail::vector_offset(0, n, inc); }

// op(A) as strides: element (i, j) at i * rs + j * cs (exala's op_view).
struct view {
  i64 rs, cs;
};
view op_strides(layout lay, transpose t, i64 ld) {
  const bool row_contiguous = (lay == layout::row_major) == (t == transpose::none);
  return row_contiguous ? view{ld, 1} : view{1, ld};
}

// round(beta * c) of one exact product (the alpha == 0 / empty-sum rule of
// gemv and gemm; beta == 0 gives +0 without reading c).
double scale_only(double beta, double c, rounding mode) {
  if (beta == 0.0) return 0.0;
  superaccumulator t;
  t.add_product(beta, c);
  return t.round(mode);
}

// ---------------------------------------------------------------- the dot engine

// An M x N grid of exact dot products of length K: A(i, l) at
// a[a_off + i a_rs + l a_cs], B(l, j) at b[b_off + l b_rs + j b_cs].
struct grid {
  const cl::Buffer* a;
  i64 a_off, a_rs, a_cs;
  const cl::Buffer* b;
  i64 b_off, b_rs, b_cs;
  i64 M, N, K;
};

struct engine {
  std::shared_ptr<detail::runtime> rt;
  std::unique_lock<std::mutex> lock;
  cl::Kernel dot;
  std::size_t max_wg = 256;

  engine() : rt(detail::current_runtime()), lock(rt->launch_mutex()) {
    dot = rt->kernel("level23", "l23_dot");
    std::size_t w = 0;
    check(dot.getWorkGroupInfo(rt->device(), CL_KERNEL_WORK_GROUP_SIZE, &w), "gemv/gemm: kernel info");
    max_wg = std::min<std::size_t>(256, w);
  }

  // Outputs per group R and work-group size W (W % R == 0), R * 136 digits
  // within the local memory. Contiguous rows of A (a_cs == 1): few outputs per
  // group, the work-items of a row reading consecutive elements, about 64
  // products each. Otherwise (column-major op(A), a_rs == 1): 16 outputs per
  // group, so that neighbouring work-items read neighbouring rows (coalesced).
  void shape(const grid& g, int& R, int& W) const {
    int w = 1;
    while (static_cast<std::size_t>(w) * 2 <= max_wg) w *= 2;
    int r = 1;
    if (g.a_cs == 1) {
      int slices = 1;
      while (slices < w && static_cast<i64>(slices) * 2 * 64 <= g.K) slices *= 2;
      r = w / slices;
    } else {
      // 16 rows: a warp reads two full 128-byte segments per step, and the
      // group's local memory (about 28 KB) leaves room for 8 groups of 256
      // on a GPU multiprocessor (full occupancy; 32 rows would allow 5).
      r = std::min(w, 16);
    }
    const std::size_t local = rt->info().local_mem;
    // R superaccumulators + flags, the expansion tree (w x 4 doubles + flags).
    while (r > 1 && static_cast<std::size_t>(r) * (ND * 8 + 4) + static_cast<std::size_t>(w) * 36 + 1024 > local)
      r /= 2;
    R = r;
    W = g.a_cs == 1 ? r * std::max(1, w / std::max(r, 1)) : w;
    if (W < R) W = R;
  }

  cl::Buffer tmp(int slot, std::size_t bytes) { return rt->scratch(slot, std::max<std::size_t>(bytes, 8)); }

  // Launches l23_dot on outputs [o0, o1) of g.
  void launch(const grid& g, i64 o0, i64 o1, int finish, double alpha, double beta, const cl::Buffer& y,
              i64 y_off, i64 y_is, i64 y_js, rounding mode, const cl::Buffer& digits,
              const cl::Buffer& flags, const cl::Buffer& slot_index, const cl::Buffer& slot_c,
              const cl::Buffer& counter) {
    int R = 1, W = 1;
    shape(g, R, W);
    cl_uint k = 0;
    auto arg = [&](const auto& v) { check(dot.setArg(k++, v), "l23_dot: setArg"); };
    arg(*g.a), arg(cl_long(g.a_off)), arg(cl_long(g.a_rs)), arg(cl_long(g.a_cs));
    arg(*g.b), arg(cl_long(g.b_off)), arg(cl_long(g.b_rs)), arg(cl_long(g.b_cs));
    arg(cl_long(g.M)), arg(cl_long(g.N)), arg(cl_long(g.K)), arg(cl_long(o0)), arg(cl_long(o1));
    arg(cl_int(R));
    check(dot.setArg(k++, cl::Local(static_cast<std::size_t>(R) * ND * 8)), "l23_dot: setArg");
    check(dot.setArg(k++, cl::Local(static_cast<std::size_t>(R) * 4)), "l23_dot: setArg");
    check(dot.setArg(k++, cl::Local(static_cast<std::size_t>(W) * 8 * 4)), "l23_dot: setArg");
    check(dot.setArg(k++, cl::Local(static_cast<std::size_t>(W) * 4)), "l23_dot: setArg");
    arg(cl_int(finish)), arg(alpha), arg(beta), arg(y), arg(cl_long(y_off)), arg(cl_long(y_is)),
        arg(cl_long(y_js)), arg(cl_int(static_cast<int>(mode)));
    arg(digits), arg(flags), arg(slot_index), arg(slot_c), arg(counter);
    const i64 groups = (o1 - o0 + R - 1) / R;
    check(rt->queue().enqueueNDRangeKernel(dot, cl::NullRange,
                                           cl::NDRange(static_cast<std::size_t>(groups * W)),
                                           cl::NDRange(static_cast<std::size_t>(W))),
          "l23_dot: launch");
  }

  // Outputs per launch: bounds the digit scratch (about 70 MB).
  static constexpr i64 chunk = 1 << 16;

  // y(o) = round(alpha S_o + beta y(o)) for every output o of g, y(o) at
  // y[y_off + i y_is + j y_js].
  void round_into(const grid& g, double alpha, double beta, const cl::Buffer& y, i64 y_off, i64 y_is,
                  i64 y_js, rounding mode) {
    const i64 total = g.M * g.N;
    const i64 cap = std::min(total, chunk);
    cl::Buffer digits = tmp(0, static_cast<std::size_t>(cap) * ND * 8);
    cl::Buffer flags = tmp(1, static_cast<std::size_t>(cap) * 4);
    cl::Buffer sidx = tmp(2, static_cast<std::size_t>(cap) * 8);
    cl::Buffer sc = tmp(3, static_cast<std::size_t>(cap) * 8);
    cl::Buffer counter = tmp(4, 8);
    std::vector<std::int64_t> dg;
    std::vector<cl_uint> fl;
    std::vector<std::int64_t> idx;
    std::vector<double> cv;
    for (i64 o0 = 0; o0 < total; o0 += cap) {
      const i64 o1 = std::min(total, o0 + cap);
      const cl_uint zero = 0;
      check(rt->queue().enqueueWriteBuffer(counter, CL_FALSE, 0, 4, &zero), "l23: counter");
      launch(g, o0, o1, 1, alpha, beta, y, y_off, y_is, y_js, mode, digits, flags, sidx, sc, counter);
      cl_uint count = 0;
      check(rt->queue().enqueueReadBuffer(counter, CL_TRUE, 0, 4, &count), "l23: read counter");
      device_rounded += (o1 - o0) - count;
      host_rounded += count;
      if (count == 0) continue;
      dg.resize(static_cast<std::size_t>(count) * ND);
      fl.resize(count);
      idx.resize(count);
      cv.resize(count);
      auto& q = rt->queue();
      check(q.enqueueReadBuffer(digits, CL_FALSE, 0, dg.size() * 8, dg.data()), "l23: read fallback");
      check(q.enqueueReadBuffer(flags, CL_FALSE, 0, fl.size() * 4, fl.data()), "l23: read fallback");
      check(q.enqueueReadBuffer(sidx, CL_FALSE, 0, idx.size() * 8, idx.data()), "l23: read fallback");
      check(q.enqueueReadBuffer(sc, CL_TRUE, 0, cv.size() * 8, cv.data()), "l23: read fallback");
      // The exact host rounding of the undecided entries.
      std::vector<double> val(count);
      std::vector<std::int64_t> pos(count);
      for (cl_uint s = 0; s < count; ++s) {
        superaccumulator acc;
        acc.fold_digits(reinterpret_cast<const std::int64_t(*)[ND]>(dg.data() + std::size_t{s} * ND), 1);
        acc.or_flags(fl[s]);
        val[s] = beta == 0.0 ? round_axpby(alpha, acc, 0.0, 0.0, mode)
                             : round_axpby(alpha, acc, beta, cv[s], mode);
        const i64 o = idx[s];
        pos[s] = y_off + (o % g.M) * y_is + (o / g.M) * y_js;
      }
      scatter(y, pos, val);
    }
  }

  // y[pos[s]] = val[s].
  void scatter(const cl::Buffer& y, const std::vector<std::int64_t>& pos, const std::vector<double>& val) {
    const std::size_t n = pos.size();
    cl::Buffer p = tmp(5, n * 8), v = tmp(6, n * 8);
    auto& q = rt->queue();
    check(q.enqueueWriteBuffer(p, CL_FALSE, 0, n * 8, pos.data()), "l23: scatter");
    check(q.enqueueWriteBuffer(v, CL_FALSE, 0, n * 8, val.data()), "l23: scatter");
    cl::Kernel sk = rt->kernel("level23", "l23_scatter");
    check(sk.setArg(0, y), "l23_scatter: setArg");
    check(sk.setArg(1, p), "l23_scatter: setArg");
    check(sk.setArg(2, v), "l23_scatter: setArg");
    check(sk.setArg(3, cl_long(n)), "l23_scatter: setArg");
    check(q.enqueueNDRangeKernel(sk, cl::NullRange, cl::NDRange(n), cl::NullRange), "l23_scatter: launch");
    check(q.finish(), "l23_scatter: finish");
  }

  // The exact sums of every output of g into acc[o] (added to what is there).
  void sums_into(const grid& g, superaccumulator* acc) {
    const i64 total = g.M * g.N;
    const i64 cap = std::min(total, chunk);
    cl::Buffer digits = tmp(0, static_cast<std::size_t>(cap) * ND * 8);
    cl::Buffer flags = tmp(1, static_cast<std::size_t>(cap) * 4);
    cl::Buffer none = tmp(7, 8);
    std::vector<std::int64_t> dg;
    std::vector<cl_uint> fl;
    for (i64 o0 = 0; o0 < total; o0 += cap) {
      const i64 o1 = std::min(total, o0 + cap);
      launch(g, o0, o1, 0, 1.0, 0.0, none, 0, 0, 0, rounding::to_nearest_even, digits, flags, none, none,
             none);
      dg.resize(static_cast<std::size_t>(o1 - o0) * ND);
      fl.resize(static_cast<std::size_t>(o1 - o0));
      check(rt->queue().enqueueReadBuffer(digits, CL_FALSE, 0, dg.size() * 8, dg.data()), "l23: read digits");
      check(rt->queue().enqueueReadBuffer(flags, CL_TRUE, 0, fl.size() * 4, fl.data()), "l23: read flags");
      for (i64 o = o0; o < o1; ++o) {
        const std::size_t s = static_cast<std::size_t>(o - o0);
        acc[o].fold_digits(reinterpret_cast<const std::int64_t(*)[ND]>(dg.data() + s * ND), 1);
        acc[o].or_flags(fl[s]);
      }
    }
  }

  // Elements [off + e * pitch] for e < count: the first count - 1 with one
  // rectangular copy, the last with a plain read. (NVIDIA's OpenCL rejects a
  // rectangle whose implied slice, rows x pitch, passes the buffer's end even
  // when no element read does; without the last row it never does.)
  std::vector<double> read_strided(const cl::Buffer& b, i64 off, i64 pitch, i64 count) {
    std::vector<double> out(static_cast<std::size_t>(count));
    if (count == 0) return out;
    if (count > 1) {
      const std::array<cl::size_type, 3> origin = {static_cast<cl::size_type>(off) * 8, 0, 0};
      const std::array<cl::size_type, 3> host = {0, 0, 0};
      const std::array<cl::size_type, 3> region = {8, static_cast<cl::size_type>(count - 1), 1};
      check(rt->queue().enqueueReadBufferRect(b, CL_FALSE, origin, host, region,
                                              static_cast<cl::size_type>(pitch) * 8, 0, 8, 0, out.data()),
            "l23: strided read");
    }
    check(rt->queue().enqueueReadBuffer(b, CL_TRUE, static_cast<cl::size_type>(off + (count - 1) * pitch) * 8, 8,
                                        out.data() + (count - 1)),
          "l23: strided read (last element)");
    return out;
  }
};

// ---------------------------------------------------------------- triangular solves

// Solves op(A) X = alpha B for nrhs right-hand sides: element e of right-hand
// side r at b[b_off + e b_es + r b_rs] (na elements each), in place. The
// blocked algorithm of Iakymchuk et al. (ITNG 2015): for each block of rows in
// solve order, the exact panel products with the solutions already known come
// from the device (l23_dot, digits back); the host adds alpha b_i and the
// block's own products exactly and rounds each x_i = round_div(numerator,
// a_ii) (or the rounded numerator for a unit diagonal). Each x_i is a
// function of its exact numerator alone, as in blas2/src/trsv.cpp.
void solve_blocked(engine& en, const char* routine, layout lay, uplo ul, transpose trans, diag dg, i64 na,
                   double alpha, const cl::Buffer& a, i64 lda, const cl::Buffer& b, i64 b_off, i64 b_es,
                   i64 b_rs, i64 nrhs, i64 b_span, rounding mode) {
  const bool unit = dg == diag::unit;
  const view A = op_strides(lay, trans, lda);
  const bool forward = (ul == uplo::lower) == (trans == transpose::none);
  if (!unit) {
    const std::vector<double> d = en.read_strided(a, 0, lda + 1, na);
    for (i64 i = 0; i < na; ++i)
      if (d[static_cast<std::size_t>(i)] == 0.0) throw singular_matrix(routine, i);
  }
  auto& q = en.rt->queue();
  std::vector<double> bh(static_cast<std::size_t>(b_span));
  check(q.enqueueReadBuffer(b, CL_TRUE, 0, bh.size() * 8, bh.data()), "trsv: read b");
  // -x, element (l, r) at xneg[l nrhs + r], on the host and on the device.
  std::vector<double> xneg(static_cast<std::size_t>(na * nrhs), 0.0);
  cl_int err = CL_SUCCESS;
  cl::Buffer xd(en.rt->context(), CL_MEM_READ_WRITE, static_cast<std::size_t>(na * nrhs) * 8, nullptr, &err);
  check(err, "trsv: clCreateBuffer");
  const i64 bs = std::min<i64>(na, 128);
  const i64 nblocks = (na + bs - 1) / bs;
  std::vector<superaccumulator> acc;
  std::vector<double> blk;
  for (i64 kb = 0; kb < nblocks; ++kb) {
    const i64 i0 = forward ? kb * bs : std::max<i64>(0, na - (kb + 1) * bs);
    const i64 i1 = forward ? std::min(na, i0 + bs) : na - kb * bs;
    const i64 rows = i1 - i0;
    const i64 k0 = forward ? 0 : i1, k1 = forward ? i0 : na;
    acc.assign(static_cast<std::size_t>(rows * nrhs), superaccumulator());
    if (k1 > k0) {
      // Output (i, r) = row i0 + i of op(A) over columns [k0, k1) with -x.
      const grid g{&a, i0 * A.rs + k0 * A.cs, A.rs, A.cs, &xd, k0 * nrhs, nrhs, 1, rows, nrhs, k1 - k0};
      // acc is indexed (i, r) -> i + rows r, the grid's output order.
      en.sums_into(g, acc.data());
    }
    // The diagonal block of the storage, rows x rows (row pitch lda).
    blk.assign(static_cast<std::size_t>(rows * rows), 0.0);
    {
      // All lines but the last with one rectangle, the last with a plain read
      // (see engine::read_strided: NVIDIA's bound check of rectangles).
      if (rows > 1) {
        const std::array<cl::size_type, 3> origin = {static_cast<cl::size_type>(i0) * 8,
                                                     static_cast<cl::size_type>(i0), 0};
        const std::array<cl::size_type, 3> host = {0, 0, 0};
        const std::array<cl::size_type, 3> region = {static_cast<cl::size_type>(rows) * 8,
                                                     static_cast<cl::size_type>(rows - 1), 1};
        check(q.enqueueReadBufferRect(a, CL_FALSE, origin, host, region, static_cast<cl::size_type>(lda) * 8, 0,
                                      static_cast<cl::size_type>(rows) * 8, 0, blk.data()),
              "trsv: read diagonal block");
      }
      check(q.enqueueReadBuffer(a, CL_TRUE, static_cast<cl::size_type>((i0 + rows - 1) * lda + i0) * 8,
                                static_cast<cl::size_type>(rows) * 8, blk.data() + (rows - 1) * rows),
            "trsv: read diagonal block (last line)");
    }
    // op(A)(i0 + i, i0 + j) from the stored block (storage line i0 + p, element i0 + q at blk[p rows + q]).
    auto at = [&](i64 i, i64 j) {
      return A.cs == 1 ? blk[static_cast<std::size_t>(i * rows + j)] : blk[static_cast<std::size_t>(j * rows + i)];
    };
    for (i64 r = 0; r < nrhs; ++r)
      for (i64 s = 0; s < rows; ++s) {
        const i64 i = forward ? s : rows - 1 - s;
        superaccumulator& ai = acc[static_cast<std::size_t>(i + rows * r)];
        ai.add_product(alpha, bh[static_cast<std::size_t>(b_off + (i0 + i) * b_es + r * b_rs)]);
        const i64 j0 = forward ? 0 : i + 1, j1 = forward ? i : rows;
        for (i64 j = j0; j < j1; ++j) ai.add_product(at(i, j), xneg[static_cast<std::size_t>((i0 + j) * nrhs + r)]);
        const double xi = unit ? ai.round(mode) : round_div(ai, at(i, i), mode);
        xneg[static_cast<std::size_t>((i0 + i) * nrhs + r)] = -xi;
      }
    if (kb + 1 < nblocks)
      check(q.enqueueWriteBuffer(xd, CL_TRUE, static_cast<std::size_t>(i0 * nrhs) * 8,
                                 static_cast<std::size_t>(rows * nrhs) * 8, xneg.data() + i0 * nrhs),
            "trsv: write x block");
  }
  for (i64 e = 0; e < na; ++e)
    for (i64 r = 0; r < nrhs; ++r)
      bh[static_cast<std::size_t>(b_off + e * b_es + r * b_rs)] = -xneg[static_cast<std::size_t>(e * nrhs + r)];
  check(q.enqueueWriteBuffer(b, CL_TRUE, 0, bh.size() * 8, bh.data()), "trsv: write x");
}

// Solves op(A) x = alpha b for one right-hand side (element e of b at
// b[b_off + e b_inc]) on the device: the right-looking blocked algorithm of
// Iakymchuk et al. (ITNG 2015) with exact per-row accumulators in device
// memory and the diagonal blocks solved on the device wherever the rounding
// of the quotient is proven (kernels l23_trsv_*, level23.cl). A row whose
// rounding the device cannot prove stops the kernel sequence; the host forms
// that x_i from the exact numerator (digits plus the block's products) with
// exala::round_div, as blas2/src/trsv.cpp does, and resumes after it.
void solve_device(engine& en, const char* routine, layout lay, uplo ul, transpose trans, diag dg, i64 n,
                  double alpha, const cl::Buffer& a, i64 lda, const cl::Buffer& b, i64 b_off, i64 b_inc,
                  rounding mode) {
  if (n > (i64{1} << 30)) throw invalid_argument("n", "is above 2^30 for the opencl trsv");
  const bool unit = dg == diag::unit;
  const view A = op_strides(lay, trans, lda);
  const bool forward = (ul == uplo::lower) == (trans == transpose::none);
  if (!unit) {
    const std::vector<double> d = en.read_strided(a, 0, lda + 1, n);
    for (i64 i = 0; i < n; ++i)
      if (d[static_cast<std::size_t>(i)] == 0.0) throw singular_matrix(routine, i);
  }
  auto& q = en.rt->queue();
  const std::size_t un = static_cast<std::size_t>(n);
  // The runtime's reusable scratch (held under the launch lock): every
  // element is written (l23_trsv_init, the solves, the status write) before
  // it is read, so no allocation or clearing per call.
  const cl::Buffer acc = en.tmp(0, un * ND * 8);
  const cl::Buffer accf = en.tmp(1, un * 4);
  const cl::Buffer fpe = en.tmp(2, un * 4 * 8);
  const cl::Buffer xneg = en.tmp(3, un * 8);
  const cl::Buffer status = en.tmp(4, 8);
  const cl_int running[2] = {-1, -1};
  check(q.enqueueWriteBuffer(status, CL_FALSE, 0, 8, running), "trsv: status");

  cl::Kernel init = en.rt->kernel("level23", "l23_trsv_init");
  cl::Kernel upd = en.rt->kernel("level23", "l23_trsv_update");
  cl::Kernel dia = en.rt->kernel("level23", "l23_trsv_diag");
  cl::Kernel sto = en.rt->kernel("level23", "l23_trsv_store");
  std::size_t dia_max = 0;
  check(dia.getWorkGroupInfo(en.rt->device(), CL_KERNEL_WORK_GROUP_SIZE, &dia_max), "trsv: kernel info");
  i64 bs = 1;
  while (bs * 2 <= std::min<i64>(256, static_cast<i64>(dia_max))) bs *= 2;
  // Update groups: W work-items, R rows of S = W / R column slices (lanes
  // along the rows for column-major op(A), along a row otherwise).
  std::size_t upd_max = 0;
  check(upd.getWorkGroupInfo(en.rt->device(), CL_KERNEL_WORK_GROUP_SIZE, &upd_max), "trsv: kernel info");
  i64 uw = 1;
  while (uw * 2 <= std::min<i64>(256, static_cast<i64>(upd_max))) uw *= 2;
  const bool rows_in_lanes = A.cs != 1;
  const i64 ur = rows_in_lanes ? std::min<i64>(32, uw) : std::max<i64>(1, uw / 32);
  const i64 nblocks = (n + bs - 1) / bs;
  auto round_up = [](i64 v, i64 m) { return (v + m - 1) / m * m; };
  auto set = [](cl::Kernel& k, cl_uint& idx, const auto& v) { check(k.setArg(idx++, v), "trsv: setArg"); };
  {
    cl_uint k = 0;
    set(init, k, b), set(init, k, cl_long(b_off)), set(init, k, cl_long(b_inc)), set(init, k, alpha);
    set(init, k, cl_long(n)), set(init, k, acc), set(init, k, accf), set(init, k, fpe);
    check(q.enqueueNDRangeKernel(init, cl::NullRange, cl::NDRange(static_cast<std::size_t>(round_up(n, 64))),
                                 cl::NDRange(64)),
          "trsv: init");
  }
  auto block_rows = [&](i64 kb, i64& i0, i64& i1) {
    i0 = forward ? kb * bs : std::max<i64>(0, n - (kb + 1) * bs);
    i1 = forward ? std::min(n, i0 + bs) : n - kb * bs;
  };
  // Enqueues the diagonal solve of block kb from position s0, then the
  // update of every later row with that block's solutions, for kb onwards.
  auto enqueue_from = [&](i64 kb0, int s0) {
    for (i64 kb = kb0; kb < nblocks; ++kb) {
      i64 i0 = 0, i1 = 0;
      block_rows(kb, i0, i1);
      cl_uint k = 0;
      set(dia, k, a), set(dia, k, cl_long(A.rs)), set(dia, k, cl_long(A.cs)), set(dia, k, xneg);
      set(dia, k, acc), set(dia, k, accf), set(dia, k, fpe), set(dia, k, cl_long(i0));
      set(dia, k, cl_int(i1 - i0)), set(dia, k, cl_int(forward)), set(dia, k, cl_int(kb == kb0 ? s0 : 0));
      set(dia, k, cl_int(unit)), set(dia, k, cl_int(static_cast<int>(mode))), set(dia, k, status);
      check(dia.setArg(k++, cl::Local(16)), "trsv: setArg");
      check(dia.setArg(k++, cl::Local(8)), "trsv: setArg");
      check(q.enqueueNDRangeKernel(dia, cl::NullRange, cl::NDRange(static_cast<std::size_t>(bs)),
                                   cl::NDRange(static_cast<std::size_t>(bs))),
            "trsv: diagonal block");
      const i64 r0 = forward ? i1 : 0, r1 = forward ? n : i0;
      if (r1 > r0) {
        k = 0;
        set(upd, k, a), set(upd, k, cl_long(A.rs)), set(upd, k, cl_long(A.cs)), set(upd, k, xneg);
        set(upd, k, acc), set(upd, k, accf), set(upd, k, fpe), set(upd, k, cl_long(i0));
        set(upd, k, cl_long(i1)), set(upd, k, cl_long(r0)), set(upd, k, cl_long(r1)), set(upd, k, status);
        set(upd, k, cl_int(ur)), set(upd, k, cl_int(rows_in_lanes));
        check(upd.setArg(k++, cl::Local(static_cast<std::size_t>(uw) * 4 * 8)), "trsv: setArg");
        check(upd.setArg(k++, cl::Local(static_cast<std::size_t>(uw) * 4)), "trsv: setArg");
        const i64 groups = (r1 - r0 + ur - 1) / ur;
        check(q.enqueueNDRangeKernel(upd, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups * uw)),
                                     cl::NDRange(static_cast<std::size_t>(uw))),
              "trsv: update");
      }
    }
  };
  enqueue_from(0, 0);
  for (;;) {
    cl_int st[2] = {0, 0};
    check(q.enqueueReadBuffer(status, CL_TRUE, 0, 8, st), "trsv: read status");
    if (st[0] < 0) break;
    // Row i at position s of its block: exact numerator on the host.
    const i64 i = st[0];
    const int s = st[1];
    const i64 kb = forward ? i / bs : (n - 1 - i) / bs;
    i64 i0 = 0, i1 = 0;
    block_rows(kb, i0, i1);
    const i64 rows = i1 - i0;
    superaccumulator ai;
    std::int64_t digits[ND];
    cl_uint flags = 0;
    check(q.enqueueReadBuffer(acc, CL_FALSE, static_cast<std::size_t>(i) * ND * 8, ND * 8, digits), "trsv: read row");
    double terms[4] = {0.0, 0.0, 0.0, 0.0};
    check(q.enqueueReadBuffer(fpe, CL_FALSE, static_cast<std::size_t>(i) * 4 * 8, 4 * 8, terms), "trsv: read row");
    check(q.enqueueReadBuffer(accf, CL_TRUE, static_cast<std::size_t>(i) * 4, 4, &flags), "trsv: read row");
    // The row's exact value: digits plus its expansion (finite terms; the
    // term flags are complete in accf, whose bit 64 is the kernels' own).
    ai.fold_digits(&digits, 1);
    for (double v : terms)
      if (v != 0.0) ai.deposit(v);
    ai.or_flags(flags & 63u);
    const std::vector<double> arow = en.read_strided(a, i * A.rs + i0 * A.cs, A.cs, rows);
    std::vector<double> xb(static_cast<std::size_t>(rows));
    check(q.enqueueReadBuffer(xneg, CL_TRUE, static_cast<std::size_t>(i0) * 8, xb.size() * 8, xb.data()),
          "trsv: read x block");
    const i64 j0 = forward ? i0 : i + 1, j1 = forward ? i : i1;
    for (i64 j = j0; j < j1; ++j)
      ai.add_product(arow[static_cast<std::size_t>(j - i0)], xb[static_cast<std::size_t>(j - i0)]);
    const double xi = unit ? ai.round(mode) : round_div(ai, arow[static_cast<std::size_t>(i - i0)], mode);
    const double xn = -xi;
    check(q.enqueueWriteBuffer(xneg, CL_FALSE, static_cast<std::size_t>(i) * 8, 8, &xn), "trsv: write x_i");
    check(q.enqueueWriteBuffer(status, CL_TRUE, 0, 8, running), "trsv: status");
    host_rounded += 1;
    enqueue_from(kb, s + 1);
  }
  {
    cl_uint k = 0;
    set(sto, k, xneg), set(sto, k, b), set(sto, k, cl_long(b_off)), set(sto, k, cl_long(b_inc)),
        set(sto, k, cl_long(n));
    check(q.enqueueNDRangeKernel(sto, cl::NullRange, cl::NDRange(static_cast<std::size_t>(round_up(n, 64))),
                                 cl::NDRange(64)),
          "trsv: store");
    check(q.finish(), "trsv: finish");
  }
}

// round(beta * y) entrywise on device data (the conventions that read no A).
void scale_strided(engine& en, const cl::Buffer& y, i64 span, const std::vector<i64>& pos, double beta,
                   rounding mode) {
  std::vector<double> h(static_cast<std::size_t>(span));
  auto& q = en.rt->queue();
  check(q.enqueueReadBuffer(y, CL_TRUE, 0, h.size() * 8, h.data()), "l23: read");
  for (i64 p : pos) h[static_cast<std::size_t>(p)] = scale_only(beta, h[static_cast<std::size_t>(p)], mode);
  check(q.enqueueWriteBuffer(y, CL_TRUE, 0, h.size() * 8, h.data()), "l23: write");
}

}  // namespace

// ---------------------------------------------------------------- public API

// Correctly rounded gemv on device data (ExBLAS, Iakymchuk et al. 2015): exact
// row sums on the device, one rounding each (device where proven, else host).
void gemv(layout lay, transpose trans, i64 m, i64 n, double alpha, const buffer& a, i64 lda, const buffer& x,
          i64 incx, double beta, buffer& y, i64 incy, rounding mode) {
  check_nonneg("m", m);
  check_nonneg("n", n);
  check_ld("lda", lda, lay == layout::row_major ? n : m);
  const i64 rows = trans == transpose::none ? m : n, cols = trans == transpose::none ? n : m;
  const bool reads_a = alpha != 0.0 && cols > 0 && rows > 0;
  if (reads_a) {
    check_span("a", a, lay == layout::row_major ? mat_span("lda", m, n, lda) : mat_span("lda", n, m, lda));
    check_span("x", x, vec_span("incx", cols, incx));
  }
  check_span("y", y, vec_span("incy", rows, incy));
  if (incy == 0 && rows > 1)
    throw invalid_argument("incy", "is 0 for a written vector of " + std::to_string(rows) + " elements");
  if (rows == 0) return;
  // One element: its increment is never used (and may be any value, even
  // INT64_MIN); 1 keeps every index the device forms from it trivially small.
  if (cols == 1) incx = 1;
  if (rows == 1) incy = 1;
  engine en;
  const cl::Buffer& yd = detail::mem(y, *en.rt, "y");
  if (!reads_a) {
    std::vector<i64> pos;
    for (i64 i = 0; i < rows; ++i) pos.push_back(vec_base(rows, incy) + i * incy);
    scale_strided(en, yd, vec_span("incy", rows, incy), pos, beta, mode);
    return;
  }
  const view A = op_strides(lay, trans, lda);
  const grid g{&detail::mem(a, *en.rt, "a"), 0, A.rs, A.cs, &detail::mem(x, *en.rt, "x"), vec_base(cols, incx),
               incx, 0, rows, 1, cols};
  en.round_into(g, alpha, beta, yd, vec_base(rows, incy), incy, 0, mode);
  check(en.rt->queue().finish(), "gemv: finish");
}

// Reproducible trsv on device data (Iakymchuk et al., ITNG 2015): each x_i the
// correctly rounded quotient of its exact numerator.
void trsv(layout lay, uplo ul, transpose trans, diag dg, i64 n, const buffer& a, i64 lda, buffer& x, i64 incx,
          rounding mode) {
  check_nonneg("n", n);
  check_ld("lda", lda, n);
  check_span("x", x, vec_span("incx", n, incx));
  if (incx == 0 && n > 1)
    throw invalid_argument("incx", "is 0 for a written vector of " + std::to_string(n) + " elements");
  if (n == 0) return;
  check_span("a", a, mat_span("lda", n, n, lda));
  if (n == 1) incx = 1;  // one element: the increment is never used
  engine en;
  solve_device(en, "trsv", lay, ul, trans, dg, n, 1.0, detail::mem(a, *en.rt, "a"), lda,
               detail::mem(x, *en.rt, "x"), vec_base(n, incx), incx, mode);
}

// Correctly rounded gemm on device data (ExBLAS-style exact dot products per
// entry, Iakymchuk et al. 2015), one rounding per entry.
void gemm(layout lay, transpose ta, transpose tb, i64 m, i64 n, i64 k, double alpha, const buffer& a, i64 lda,
          const buffer& b, i64 ldb, double beta, buffer& c, i64 ldc, rounding mode) {
  check_nonneg("m", m);
  check_nonneg("n", n);
  check_nonneg("k", k);
  const bool col = lay == layout::col_major;
  const bool at = ta == transpose::trans, bt = tb == transpose::trans;
  const i64 a_rows = at ? k : m, a_cols = at ? m : k;
  const i64 b_rows = bt ? n : k, b_cols = bt ? k : n;
  check_ld("lda", lda, col ? a_rows : a_cols);
  check_ld("ldb", ldb, col ? b_rows : b_cols);
  check_ld("ldc", ldc, col ? m : n);
  const bool reads_ab = alpha != 0.0 && k > 0 && m > 0 && n > 0;
  if (reads_ab) {
    check_span("a", a, col ? mat_span("lda", a_cols, a_rows, lda) : mat_span("lda", a_rows, a_cols, lda));
    check_span("b", b, col ? mat_span("ldb", b_cols, b_rows, ldb) : mat_span("ldb", b_rows, b_cols, ldb));
  }
  const i64 c_span = col ? mat_span("ldc", n, m, ldc) : mat_span("ldc", m, n, ldc);
  check_span("c", c, c_span);
  if (m == 0 || n == 0) return;
  engine en;
  const cl::Buffer& cd = detail::mem(c, *en.rt, "c");
  // C(i, j) at i * c_is + j * c_js.
  const i64 c_is = col ? 1 : ldc, c_js = col ? ldc : 1;
  if (!reads_ab) {
    std::vector<i64> pos;
    for (i64 j = 0; j < n; ++j)
      for (i64 i = 0; i < m; ++i) pos.push_back(i * c_is + j * c_js);
    scale_strided(en, cd, c_span, pos, beta, mode);
    return;
  }
  // op(A)(i, l) and op(B)(l, j) as strides.
  const view A = op_strides(lay, ta, lda);
  const view B = op_strides(lay, tb, ldb);
  const grid g{&detail::mem(a, *en.rt, "a"), 0, A.rs, A.cs, &detail::mem(b, *en.rt, "b"), 0, B.rs, B.cs,
               m, n, k};
  en.round_into(g, alpha, beta, cd, 0, c_is, c_js, mode);
  check(en.rt->queue().finish(), "gemm: finish");
}

// Reproducible trsm on device data: every column (left) or row (right) of X is
// what trsv gives (Iakymchuk et al., ITNG 2015), all right-hand sides solved
// together block by block.
void trsm(layout lay, side sd, uplo ul, transpose trans, diag dg, i64 m, i64 n, double alpha, const buffer& a,
          i64 lda, buffer& b, i64 ldb, rounding mode) {
  check_nonneg("m", m);
  check_nonneg("n", n);
  const bool left = sd == side::left;
  const i64 na = left ? m : n;
  const bool col = lay == layout::col_major;
  check_ld("lda", lda, na);
  check_ld("ldb", ldb, col ? m : n);
  const i64 b_span = col ? mat_span("ldb", n, m, ldb) : mat_span("ldb", m, n, ldb);
  check_span("b", b, b_span);
  if (m == 0 || n == 0) return;
  engine en;
  const cl::Buffer& bd = detail::mem(b, *en.rt, "b");
  // B(i, j) at i * b_is + j * b_js.
  const i64 b_is = col ? 1 : ldb, b_js = col ? ldb : 1;
  if (alpha == 0.0) {  // X = +0 without reading A (trsv_scaled's convention)
    std::vector<double> h(static_cast<std::size_t>(b_span));
    check(en.rt->queue().enqueueReadBuffer(bd, CL_TRUE, 0, h.size() * 8, h.data()), "trsm: read");
    for (i64 i = 0; i < m; ++i)
      for (i64 j = 0; j < n; ++j) h[static_cast<std::size_t>(i * b_is + j * b_js)] = 0.0;
    check(en.rt->queue().enqueueWriteBuffer(bd, CL_TRUE, 0, h.size() * 8, h.data()), "trsm: write");
    return;
  }
  check_span("a", a, mat_span("lda", na, na, lda));
  // Right: X op(A) = alpha B is op(A)^T x_r = alpha b_r for each row r of B.
  const transpose t = left ? trans : (trans == transpose::none ? transpose::trans : transpose::none);
  const i64 nrhs = left ? n : m;
  if (nrhs <= 16) {
    // Few right-hand sides: each one through the device trsv (diagonal blocks
    // on the device too). The first solve checks the diagonal before any
    // element of B is written.
    const i64 es = left ? b_is : b_js, rs = left ? b_js : b_is;
    for (i64 r = 0; r < nrhs; ++r)
      solve_device(en, "trsm", lay, ul, t, dg, na, alpha, detail::mem(a, *en.rt, "a"), lda, bd, r * rs, es, mode);
    return;
  }
  if (left)
    solve_blocked(en, "trsm", lay, ul, t, dg, na, alpha, detail::mem(a, *en.rt, "a"), lda, bd, 0, b_is, b_js, n,
                  b_span, mode);
  else
    solve_blocked(en, "trsm", lay, ul, t, dg, na, alpha, detail::mem(a, *en.rt, "a"), lda, bd, 0, b_js, b_is, m,
                  b_span, mode);
}

// ---------------------------------------------------------------- host-pointer hooks

namespace {

// A device copy of the span [p, p + count) (an empty buffer for count 0).
buffer upload(const double* p, i64 count) { return count > 0 ? buffer(p, static_cast<std::size_t>(count)) : buffer(); }

void hook_gemv(layout lay, transpose trans, i64 m, i64 n, double alpha, const double* a, i64 lda, const double* x,
               i64 incx, double beta, double* y, i64 incy, rounding mode) {
  const i64 rows = trans == transpose::none ? m : n, cols = trans == transpose::none ? n : m;
  const buffer ad = upload(a, lay == layout::row_major ? mat_span("lda", m, n, lda) : mat_span("lda", n, m, lda));
  const buffer xd = upload(x, vec_span("incx", cols, incx));
  buffer yd = upload(y, vec_span("incy", rows, incy));
  gemv(lay, trans, m, n, alpha, ad, lda, xd, incx, beta, yd, incy, mode);
  yd.read(y, static_cast<std::size_t>(vec_span("incy", rows, incy)));
}

void hook_trsv(const char* routine, layout lay, uplo ul, transpose trans, diag dg, i64 n, double alpha,
               const double* a, i64 lda, double* x, i64 incx, rounding mode) {
  const buffer ad = upload(a, mat_span("lda", n, n, lda));
  buffer xd = upload(x, vec_span("incx", n, incx));
  if (n == 1) incx = 1;  // one element: the increment is never used
  {
    engine en;
    solve_device(en, routine, lay, ul, trans, dg, n, alpha, detail::mem(ad, *en.rt, "a"), lda,
                 detail::mem(xd, *en.rt, "x"), vec_base(n, incx), incx, mode);
  }
  xd.read(x, static_cast<std::size_t>(vec_span("incx", n, incx)));
}

void hook_gemm(layout lay, transpose ta, transpose tb, i64 m, i64 n, i64 k, double alpha, const double* a,
               i64 lda, const double* b, i64 ldb, double beta, double* c, i64 ldc, rounding mode) {
  const bool col = lay == layout::col_major;
  const bool at = ta == transpose::trans, bt = tb == transpose::trans;
  const i64 a_rows = at ? k : m, a_cols = at ? m : k;
  const i64 b_rows = bt ? n : k, b_cols = bt ? k : n;
  const buffer ad = upload(a, col ? mat_span("lda", a_cols, a_rows, lda) : mat_span("lda", a_rows, a_cols, lda));
  const buffer bd = upload(b, col ? mat_span("ldb", b_cols, b_rows, ldb) : mat_span("ldb", b_rows, b_cols, ldb));
  const i64 c_span = col ? mat_span("ldc", n, m, ldc) : mat_span("ldc", m, n, ldc);
  buffer cd = upload(c, c_span);
  gemm(lay, ta, tb, m, n, k, alpha, ad, lda, bd, ldb, beta, cd, ldc, mode);
  cd.read(c, static_cast<std::size_t>(c_span));
}

void hook_trsm(layout lay, side sd, uplo ul, transpose trans, diag dg, i64 m, i64 n, double alpha, const double* a,
               i64 lda, double* b, i64 ldb, rounding mode) {
  const i64 na = sd == side::left ? m : n;
  const bool col = lay == layout::col_major;
  const buffer ad = upload(a, mat_span("lda", na, na, lda));
  const i64 b_span = col ? mat_span("ldb", n, m, ldb) : mat_span("ldb", m, n, ldb);
  buffer bd = upload(b, b_span);
  trsm(lay, sd, ul, trans, dg, m, n, alpha, ad, lda, bd, ldb, mode);
  bd.read(b, static_cast<std::size_t>(b_span));
}

const exala::detail::opencl_blas2_hooks hooks2{hook_gemv, hook_trsv};
const exala::detail::opencl_blas3_hooks hooks3{hook_gemm, hook_trsm};

}  // namespace

detail::level23_stats detail::level23_counts() noexcept { return {device_rounded.load(), host_rounded.load()}; }

void detail::register_level23() noexcept {
  exala::detail::register_hooks(backend::opencl, exala::detail::hook_kind::blas2, &hooks2);
  exala::detail::register_hooks(backend::opencl, exala::detail::hook_kind::blas3, &hooks3);
}

}  // namespace exala::opencl
