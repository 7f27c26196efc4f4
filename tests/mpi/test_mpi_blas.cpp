// test_mpi_blas.cpp - distributed gemv (row and column blocks) and the
// block-row cyclic trsv (exala/mpi.hpp), run under mpirun -np 1..4.
//
// Every rank builds the same global problem from a seed, takes its part
// (row or column blocks from split() of every kind, empty ranks included, or
// the block-row cyclic rows), calls the distributed routine, and compares the
// result bit for bit (the whole storage of the written vector, gaps between
// strided elements included) with the single-process exala::gemv /
// exala::trsv on the whole problem with the reference backend - on every
// rank. The single-process routines are the oracle here (they are tested
// against MPFR in tests/test_blas2.cpp); the data are chosen so that the
// conventions that a distributed algorithm could easily miss are exercised:
// signed zeros (the sign of an exact zero sum comes from the term flags of
// partial accumulators on other ranks), NaN/inf, overflow and subnormals,
// alpha == 0 / beta == 0 (A, x or y not read), every rounding direction,
// NaN in the parts of A that must not be read (the other triangle, the
// unit diagonal, the padding beyond the leading dimension).
#define BOOST_TEST_MODULE exala_mpi_blas
#include "mpi_test_main.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exala/blas2.hpp"
#include "exala/mpi.hpp"

namespace {

using exala_mpi_test::all_ranks;
using exala_mpi_test::rank;
using exala_mpi_test::size;
using exala_mpi_test::split;
using i64 = std::int64_t;
using exala::diag;
using exala::layout;
using exala::transpose;
using exala::uplo;

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();
// Storage that must never be written (gaps of strided vectors).
const double sentinel = -0x1.5555555555555p+777;

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 8) == 0);
}

// The value kinds of the generated data.
// The first data_kinds rotate in the sweeps; the constant kinds build
// uniform sign patterns of zero sums (every product -0, or +0 with a -0
// term elsewhere) whose IEEE sign only the complete term flags give.
enum class data { mixed, zeros, special, extreme, plus_one, plus_zero, minus_zero };
constexpr int data_kinds = 4;
const char* name(data k) {
  switch (k) {
    case data::mixed: return "mixed";
    case data::zeros: return "zeros";
    case data::special: return "special";
    case data::extreme: return "extreme";
    case data::plus_one: return "+1";
    case data::plus_zero: return "+0";
    default: return "-0";
  }
}

struct gen {
  std::mt19937_64 g;
  explicit gen(std::uint64_t seed) : g(seed) {}
  double u() { return std::uniform_real_distribution<double>(-1.0, 1.0)(g); }
  int pick(int n) { return int(g() % std::uint64_t(n)); }
  // A gemv entry (or a right-hand side entry) of the given kind.
  double value(data k) {
    switch (k) {
      case data::mixed: return std::ldexp(u(), pick(81) - 40);
      case data::zeros: {  // mostly signed zeros: many exactly zero sums
        static const double v[] = {0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 1.0, -1.0};
        return v[pick(10)];
      }
      case data::special: {
        const int r = pick(40);
        if (r == 0) return qnan;
        if (r == 1) return inf;
        if (r == 2) return -inf;
        return std::ldexp(u(), pick(41) - 20);
      }
      case data::extreme:  // huge (sums overflow) or subnormal/tiny (products underflow in doubles)
        return pick(2) == 0 ? std::ldexp(u(), 1000 + pick(24)) : std::ldexp(u(), -1074 + pick(100));
      case data::plus_one: return 1.0;
      case data::plus_zero: return 0.0;
      default: return -0.0;
    }
  }
  // An off-diagonal triangular entry: small, so that solutions stay finite
  // for the mixed kind.
  double offdiag(data k, i64 n) {
    switch (k) {
      case data::mixed:
        return std::ldexp(u(), -pick(20) - 2 - int(std::ceil(std::log2(double(n + 1)))));
      case data::zeros: {
        static const double v[] = {0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.5, -0.25};
        return v[pick(10)];
      }
      case data::special: {
        const int r = pick(60);
        if (r == 0) return qnan;
        if (r == 1) return inf;
        if (r == 2) return -inf;
        return std::ldexp(u(), -pick(10) - 4);
      }
      default:
        return pick(2) == 0 ? std::ldexp(u(), pick(40) - 20) : std::ldexp(u(), -1074 + pick(60));
    }
  }
  double diagonal(data k) {
    switch (k) {
      case data::mixed: return (pick(2) ? 1 : -1) * std::ldexp(1.0 + std::fabs(u()), pick(5) - 2);
      case data::zeros: {
        static const double v[] = {1.0, -1.0, 2.0, -2.0, 3.0, -0.5, 4.0, -3.0};
        return v[pick(8)];
      }
      case data::special: return (pick(2) ? 1 : -1) * (1.0 + std::fabs(u()));
      default:  // quotients that overflow or underflow
        return (pick(2) ? 1 : -1) * std::ldexp(1.0 + std::fabs(u()), pick(2) ? 1000 - pick(20) : -1000 + pick(20));
    }
  }
};

// BLAS strided storage of a vector of n logical elements (increment inc,
// negative = backwards), the gaps filled with `fill`.
i64 vec_index(i64 i, i64 n, i64 inc) { return inc >= 0 ? i * inc : (n - 1 - i) * -inc; }
std::vector<double> strided(const std::vector<double>& v, i64 inc, double fill = sentinel) {
  const i64 n = i64(v.size());
  if (n == 0) return {};
  std::vector<double> s(std::size_t(1 + (n - 1) * std::abs(inc)), fill);
  for (i64 i = 0; i < n; ++i) s[std::size_t(vec_index(i, n, inc))] = v[std::size_t(i)];
  return s;
}

// A rows x cols matrix in `lay` with leading dimension (row length or column
// height) + pad; everything outside the entries set is NaN.
struct mat {
  layout lay = layout::row_major;
  i64 rows = 0, cols = 0, ld = 1;
  std::vector<double> v;
  mat(layout l, i64 r, i64 c, i64 pad) : lay(l), rows(r), cols(c) {
    ld = std::max<i64>(1, (l == layout::row_major ? c : r) + pad);
    v.assign(std::size_t((l == layout::row_major ? r : c) * ld), qnan);
  }
  double& at(i64 i, i64 j) { return v[std::size_t(lay == layout::row_major ? i * ld + j : i + j * ld)]; }
  double at(i64 i, i64 j) const {
    return v[std::size_t(lay == layout::row_major ? i * ld + j : i + j * ld)];
  }
  // An empty matrix is passed as a null pointer (allowed: nothing is read).
  const double* ptr() const { return v.empty() ? nullptr : v.data(); }
};

const exala::rounding modes[] = {exala::rounding::to_nearest_even, exala::rounding::upward,
                                 exala::rounding::downward, exala::rounding::toward_zero};
const exala::backend backends[] = {exala::backend::reference, exala::backend::simd,
                                   exala::backend::omp};

exala::exec ref_exec(exala::rounding mode) { return {exala::backend::reference, 0, mode, 0}; }

// ------------------------------------------------------------ gemv

struct gemv_case {
  i64 m = 0, n = 0;
  layout lay = layout::row_major;
  i64 pad = 0, incx = 1, incy = 1;
  double alpha = 1, beta = 0;
  exala::exec ex;
  int split_kind = 0;
  data a_kind = data::mixed, x_kind = data::mixed, y_kind = data::mixed;
  std::uint64_t seed = 1;
};

std::string describe(const gemv_case& c) {
  return "m " + std::to_string(c.m) + " n " + std::to_string(c.n) + " lay " +
         std::to_string(int(c.lay)) + " pad " + std::to_string(c.pad) + " incx " +
         std::to_string(c.incx) + " incy " + std::to_string(c.incy) + " alpha " +
         std::to_string(c.alpha) + " beta " + std::to_string(c.beta) + " backend " +
         std::string(exala::to_string(c.ex.backend)) + " mode " + std::to_string(int(c.ex.mode)) + " block " + std::to_string(c.ex.block) +
         " split " + std::to_string(c.split_kind) + " data " + name(c.a_kind) + "/" + name(c.x_kind) +
         "/" + name(c.y_kind) + " seed " + std::to_string(c.seed);
}

struct gemv_problem {
  mat a;
  std::vector<double> x, y, want;  // logical elements; want = the reference result
};

gemv_problem make_gemv(const gemv_case& c) {
  gen g(c.seed);
  gemv_problem p{mat(c.lay, c.m, c.n, c.pad), {}, {}, {}};
  for (i64 i = 0; i < c.m; ++i)
    for (i64 j = 0; j < c.n; ++j) p.a.at(i, j) = g.value(c.a_kind);
  for (i64 j = 0; j < c.n; ++j) p.x.push_back(g.value(c.x_kind));
  for (i64 i = 0; i < c.m; ++i) p.y.push_back(g.value(c.y_kind));
  // incx == 0 repeats element 0: the logical x is then x[0] everywhere.
  std::vector<double> xs = c.incx == 0 ? std::vector<double>(p.x.begin(), p.x.begin() + (c.n > 0)) : strided(p.x, c.incx);
  std::vector<double> ys = strided(p.y, c.incy);
  exala::gemv(c.lay, transpose::none, c.m, c.n, c.alpha, p.a.ptr(), p.a.ld, xs.empty() ? nullptr : xs.data(),
              c.incx, c.beta, ys.empty() ? nullptr : ys.data(), c.incy, ref_exec(c.ex.mode));
  p.want = ys;  // storage, gaps included
  if (c.incx == 0)
    for (auto& v : p.x) v = p.x[0];
  return p;
}

// Runs the row-block gemv on this rank's rows; true when its y has the
// reference bits (the gaps of its storage untouched).
bool run_row_block(const gemv_case& c) {
  const gemv_problem p = make_gemv(c);
  const auto cut = split(c.m, c.split_kind, c.seed);
  const i64 lo = cut[std::size_t(rank())], ml = cut[std::size_t(rank()) + 1] - lo;
  mat al(c.lay, ml, c.n, c.pad);
  for (i64 i = 0; i < ml; ++i)
    for (i64 j = 0; j < c.n; ++j) al.at(i, j) = p.a.at(lo + i, j);
  std::vector<double> yl(p.y.begin() + lo, p.y.begin() + lo + ml), wl;
  std::vector<double> ys = strided(yl, c.incy);
  // The expected local storage: this rank's logical elements of the result.
  for (i64 i = 0; i < ml; ++i) wl.push_back(p.want[std::size_t(vec_index(lo + i, c.m, c.incy))]);
  const std::vector<double> want = strided(wl, c.incy);
  std::vector<double> xs = c.incx == 0 ? std::vector<double>(p.x.begin(), p.x.begin() + (c.n > 0)) : strided(p.x, c.incx);
  try {
    exala::mpi::gemv_row_block(MPI_COMM_WORLD, c.lay, ml, c.n, c.alpha, al.ptr(), al.ld,
                               xs.empty() ? nullptr : xs.data(), c.incx, c.beta,
                               ys.empty() ? nullptr : ys.data(), c.incy, c.ex);
  } catch (const std::exception& e) {
    BOOST_ERROR("gemv_row_block threw: " << e.what() << " (" << describe(c) << ")");
    return false;
  }
  if (!same_bits(ys, want)) {
    BOOST_ERROR("gemv_row_block differs from exala::gemv on rank " << rank() << ": " << describe(c));
    return false;
  }
  return true;
}

// Runs the column-block gemv with this rank's columns; true when the
// replicated y has the reference bits on this rank.
bool run_col_block(const gemv_case& c) {
  const gemv_problem p = make_gemv(c);
  const auto cut = split(c.n, c.split_kind, c.seed);
  const i64 lo = cut[std::size_t(rank())], nl = cut[std::size_t(rank()) + 1] - lo;
  mat al(c.lay, c.m, nl, c.pad);
  for (i64 i = 0; i < c.m; ++i)
    for (i64 j = 0; j < nl; ++j) al.at(i, j) = p.a.at(i, lo + j);
  std::vector<double> xl(p.x.begin() + lo, p.x.begin() + lo + nl);
  // incx == 0 in the column split: a local x of one element repeated (the
  // logical x is constant, so every rank's part is that constant).
  std::vector<double> xs = c.incx == 0 ? std::vector<double>(xl.begin(), xl.begin() + (nl > 0)) : strided(xl, c.incx);
  std::vector<double> ys = strided(p.y, c.incy);
  try {
    exala::mpi::gemv_col_block(MPI_COMM_WORLD, c.lay, c.m, nl, c.alpha, al.ptr(), al.ld,
                               xs.empty() ? nullptr : xs.data(), c.incx, c.beta,
                               ys.empty() ? nullptr : ys.data(), c.incy, c.ex);
  } catch (const std::exception& e) {
    BOOST_ERROR("gemv_col_block threw: " << e.what() << " (" << describe(c) << ")");
    return false;
  }
  if (!same_bits(ys, p.want)) {
    BOOST_ERROR("gemv_col_block differs from exala::gemv on rank " << rank() << ": " << describe(c));
    return false;
  }
  return true;
}

const double alphas[] = {1.0, -0.75, 0.0, 0x1.8p+1000, 0x1p-1070, qnan, -3.0};
const double betas[] = {0.0, 1.0, -2.5, -0.0, inf, 0x1.3p-1060};

// A varied case for (m, n, split kind, variant v): layouts, paddings,
// strides, alpha/beta, backends, modes and data kinds rotate with v and a
// counter, so that every value of each appears many times.
gemv_case vary(i64 m, i64 n, int split_kind, int v, std::uint64_t& counter) {
  gen g(++counter * 0x9e3779b97f4a7c15u);
  gemv_case c;
  c.m = m, c.n = n, c.split_kind = split_kind, c.seed = counter;
  c.lay = v % 2 ? layout::col_major : layout::row_major;
  c.pad = (v / 2) % 2 ? 3 : 0;
  static const i64 incxs[] = {1, -2, 0, 3, -1};
  static const i64 incys[] = {1, -1, 2, -3};
  c.incx = incxs[g.pick(5)];
  c.incy = incys[g.pick(4)];
  if (m == 1 && g.pick(2)) c.incy = 0;  // allowed for one written element
  c.alpha = g.pick(3) ? (g.pick(2) ? 1.0 : -0.75) : alphas[g.pick(7)];
  c.beta = g.pick(3) ? (g.pick(2) ? 0.0 : -2.5) : betas[g.pick(6)];
  // exec.block: rows per allreduce in gemv_col_block (0 = its default).
  static const long long blocks[] = {0, 0, 1, 7};
  c.ex = {backends[g.pick(3)], 0, modes[g.pick(4)], blocks[g.pick(4)]};
  c.a_kind = data(g.pick(data_kinds));
  c.x_kind = g.pick(3) ? c.a_kind : data(g.pick(data_kinds));
  c.y_kind = data(g.pick(data_kinds));
  return c;
}

// ------------------------------------------------------------ trsv

struct trsv_case {
  i64 n = 0, nb = 1;
  layout lay = layout::row_major;
  uplo ul = uplo::lower;
  transpose trans = transpose::none;
  diag dg = diag::non_unit;
  i64 pad = 0, incx = 1;
  exala::exec ex;
  data kind = data::mixed;
  std::uint64_t seed = 1;
};

std::string describe(const trsv_case& c) {
  return "n " + std::to_string(c.n) + " nb " + std::to_string(c.nb) + " lay " +
         std::to_string(int(c.lay)) + " ul " + std::to_string(int(c.ul)) + " trans " +
         std::to_string(int(c.trans)) + " dg " + std::to_string(int(c.dg)) + " pad " +
         std::to_string(c.pad) + " incx " + std::to_string(c.incx) + " backend " +
         std::string(exala::to_string(c.ex.backend)) + " mode " + std::to_string(int(c.ex.mode)) + " block " + std::to_string(c.ex.block) +
         " data " + name(c.kind) + " seed " + std::to_string(c.seed);
}

// The whole triangular matrix (NaN outside the `ul` triangle and on a unit
// diagonal) and b.
struct trsv_problem {
  mat a;
  std::vector<double> b;
};

trsv_problem make_trsv(const trsv_case& c) {
  gen g(c.seed);
  trsv_problem p{mat(c.lay, c.n, c.n, c.pad), {}};
  for (i64 i = 0; i < c.n; ++i)
    for (i64 j = 0; j < c.n; ++j) {
      if (i == j) {
        if (c.dg == diag::non_unit) p.a.at(i, j) = g.diagonal(c.kind);
      } else if ((c.ul == uplo::lower) == (j < i)) {
        p.a.at(i, j) = g.offdiag(c.kind, c.n);
      }
    }
  for (i64 i = 0; i < c.n; ++i) p.b.push_back(c.kind == data::extreme ? g.value(data::mixed) : g.value(c.kind));
  if (c.kind == data::plus_zero || c.kind == data::minus_zero) {
    // b = +-0 and off-diagonal entries of one sign (+-1) chosen by the seed,
    // positive or negative diagonal: every x_i is a zero whose sign comes
    // from the zero signs of b_i and of all the products.
    const double off = c.seed % 2 ? 1.0 : -1.0, dg = (c.seed / 2) % 2 ? 2.0 : -0.5;
    for (i64 i = 0; i < c.n; ++i)
      for (i64 j = 0; j < c.n; ++j)
        if (i == j ? c.dg == diag::non_unit : (c.ul == uplo::lower) == (j < i)) p.a.at(i, j) = i == j ? dg : off;
  }
  return p;
}

// This rank's block-row cyclic rows of the whole matrix.
mat local_rows(const trsv_case& c, const mat& a) {
  const exala::mpi::block_cyclic d{c.n, c.nb, size()};
  const i64 rows = d.local_rows(rank());
  mat al(c.lay, rows, c.n, c.pad);
  for (i64 l = 0; l < rows; ++l) {
    const i64 g = d.global_row(rank(), l);
    for (i64 j = 0; j < c.n; ++j) al.at(l, j) = a.at(g, j);
  }
  return al;
}

bool run_trsv(const trsv_case& c) {
  const trsv_problem p = make_trsv(c);
  std::vector<double> want = strided(p.b, c.incx);
  exala::trsv(c.lay, c.ul, c.trans, c.dg, c.n, p.a.ptr(), p.a.ld, want.empty() ? nullptr : want.data(),
              c.incx, ref_exec(c.ex.mode));
  const mat al = local_rows(c, p.a);
  std::vector<double> x = strided(p.b, c.incx);
  try {
    exala::mpi::trsv_block_cyclic(MPI_COMM_WORLD, c.lay, c.ul, c.trans, c.dg, c.n, c.nb, al.ptr(),
                                  al.ld, x.empty() ? nullptr : x.data(), c.incx, c.ex);
  } catch (const std::exception& e) {
    BOOST_ERROR("trsv_block_cyclic threw: " << e.what() << " (" << describe(c) << ")");
    return false;
  }
  if (!same_bits(x, want)) {
    BOOST_ERROR("trsv_block_cyclic differs from exala::trsv on rank " << rank() << ": " << describe(c));
    return false;
  }
  return true;
}

trsv_case vary_trsv(i64 n, i64 nb, int combo, std::uint64_t& counter) {
  gen g(++counter * 0xd1b54a32d192ed03u);
  trsv_case c;
  c.n = n, c.nb = nb, c.seed = counter;
  c.lay = combo & 1 ? layout::col_major : layout::row_major;
  c.ul = combo & 2 ? uplo::upper : uplo::lower;
  c.trans = combo & 4 ? transpose::trans : transpose::none;
  c.dg = combo & 8 ? diag::unit : diag::non_unit;
  c.pad = g.pick(2) ? 2 : 0;
  static const i64 incs[] = {1, -1, 2, -3};
  c.incx = incs[g.pick(4)];
  if (n == 1 && g.pick(2)) c.incx = 0;  // allowed for one written element
  // exec.block: the batch width of the pending-row updates (trans none)
  // or the rows per reduction (trans); 0 = the defaults.
  static const long long blocks[] = {0, 1, 3, 16};
  c.ex = {backends[g.pick(3)], 0, modes[g.pick(4)], blocks[g.pick(4)]};
  c.kind = data(g.pick(data_kinds));
  return c;
}

// The nb values for n: 1, small ones that do or do not divide n, and
// nb >= n (one block, on rank 0).
std::vector<i64> nbs_for(i64 n) {
  std::vector<i64> v{1, 2, 5, 16, std::max<i64>(1, n), n + 3};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// ------------------------------------------------------------ errors

// Calls f on every rank; `bad` ranks must throw exala::invalid_argument
// naming `arg`, the others exala::mpi::remote_error carrying the lowest bad
// rank. Returns true when this rank behaved so.
template <class F>
bool expect_invalid(F f, const std::vector<bool>& bad, const std::string& arg, const char* what) {
  int lowest = -1;
  for (int r = 0; r < size(); ++r)
    if (bad[std::size_t(r)]) {
      lowest = r;
      break;
    }
  try {
    f();
  } catch (const exala::mpi::remote_error& e) {
    if (bad[std::size_t(rank())] || e.rank() != lowest) {
      BOOST_ERROR(what << ": rank " << rank() << " got remote_error from rank " << e.rank()
                       << " (expected " << (bad[std::size_t(rank())] ? "its own error" : "rank ") << lowest
                       << "): " << e.what());
      return false;
    }
    if (std::string(e.what()).find("'" + arg + "'") == std::string::npos) {
      BOOST_ERROR(what << ": remote_error does not carry the message naming " << arg << ": " << e.what());
      return false;
    }
    return true;
  } catch (const exala::invalid_argument& e) {
    if (!bad[std::size_t(rank())] || e.argument() != arg) {
      BOOST_ERROR(what << ": rank " << rank() << " got invalid_argument(" << e.argument()
                       << "), expected " << (bad[std::size_t(rank())] ? arg : "remote_error") << ": "
                       << e.what());
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    BOOST_ERROR(what << ": rank " << rank() << " got an unexpected exception: " << e.what());
    return false;
  }
  BOOST_ERROR(what << ": rank " << rank() << " did not throw");
  return false;
}

std::vector<bool> only(int r) {
  std::vector<bool> v(std::size_t(size()), false);
  v[std::size_t(r)] = true;
  return v;
}
std::vector<bool> everyone() { return std::vector<bool>(std::size_t(size()), true); }

}  // namespace

// ------------------------------------------------------------ test cases

BOOST_AUTO_TEST_CASE(block_cyclic_rows) {
  // Against a direct enumeration of the blocks: block b (rows [b*nb,
  // min(n, (b+1)*nb))) goes to rank b % P, stored in increasing b.
  bool ok = true;
  for (int P = 1; P <= 5; ++P)
    for (i64 n : {0, 1, 2, 7, 12, 13, 64})
      for (i64 nb : {1, 2, 3, 5, 12, 13, 100}) {
        auto rows = std::vector<std::vector<i64>>(std::size_t(P));
        for (i64 b = 0; b * nb < n; ++b)
          for (i64 i = b * nb; i < std::min(n, (b + 1) * nb); ++i) rows[std::size_t(b % P)].push_back(i);
        const exala::mpi::block_cyclic d{n, nb, P};
        for (int r = 0; r < P; ++r) {
          const auto& want = rows[std::size_t(r)];
          if (d.local_rows(r) != i64(want.size())) {
            ok = false;
            BOOST_ERROR("local_rows n " << n << " nb " << nb << " P " << P << " rank " << r << ": "
                                        << d.local_rows(r) << " want " << want.size());
            continue;
          }
          for (std::size_t l = 0; l < want.size(); ++l)
            if (d.global_row(r, i64(l)) != want[l]) {
              ok = false;
              BOOST_ERROR("global_row n " << n << " nb " << nb << " P " << P << " rank " << r << " row "
                                          << l << ": " << d.global_row(r, i64(l)) << " want " << want[l]);
            }
        }
      }
  // Bad queries throw naming the argument instead of dividing by zero.
  auto throws_arg = [](auto f, const std::string& arg) {
    try {
      f();
    } catch (const exala::invalid_argument& e) {
      return e.argument() == arg;
    }
    return false;
  };
  ok &= throws_arg([] { (void)exala::mpi::block_cyclic{10, 0, 2}.local_rows(0); }, "nb");
  ok &= throws_arg([] { (void)exala::mpi::block_cyclic{10, 3, 0}.local_rows(0); }, "ranks");
  ok &= throws_arg([] { (void)exala::mpi::block_cyclic{10, 3, 2}.local_rows(2); }, "rank");
  ok &= throws_arg([] { (void)exala::mpi::block_cyclic{10, 3, 2}.global_row(1, 4); }, "i");
  ok &= throws_arg([] { (void)exala::mpi::block_cyclic{10, 3, 2}.global_row(0, -1); }, "i");
  BOOST_TEST(ok);
}

BOOST_AUTO_TEST_CASE(gemv_row_block_matches_gemv) {
  int bad = 0;
  std::uint64_t counter = 100;
  for (i64 m : {0, 1, 5, 33})
    for (i64 n : {0, 1, 6, 50})
      for (int kind = 0; kind <= 4; ++kind)
        for (int v = 0; v < 3; ++v) bad += !run_row_block(vary(m, n, kind, v + kind, counter));
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(gemv_col_block_matches_gemv) {
  int bad = 0;
  std::uint64_t counter = 200;
  for (i64 m : {0, 1, 5, 33})
    for (i64 n : {0, 1, 6, 50})
      for (int kind = 0; kind <= 4; ++kind)
        for (int v = 0; v < 3; ++v) bad += !run_col_block(vary(m, n, kind, v + kind, counter));
  // Longer rows: the SIMD kernel path (rows of >= 48 local columns) and
  // both packing directions.
  for (int v = 0; v < 4; ++v) bad += !run_col_block(vary(20, 300, v % 2 ? 0 : 1, v, counter));
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(gemv_alpha_beta_conventions) {
  // Every alpha x beta pair, with NaN/inf in A, x and y: alpha == 0 must not
  // read A and x, beta == 0 must not read y, exactly as exala::gemv.
  int bad = 0;
  std::uint64_t counter = 300;
  for (double alpha : alphas)
    for (double beta : betas)
      for (int which = 0; which < 2; ++which) {
        gemv_case c = vary(7, 9, 4, int(counter), counter);
        c.alpha = alpha, c.beta = beta;
        c.a_kind = data::special, c.x_kind = data::special, c.y_kind = data::special;
        bad += which == 0 ? !run_row_block(c) : !run_col_block(c);
      }
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(gemv_signed_zeros_and_roundings) {
  // Many exact zero sums whose sign comes from the zero signs of the terms
  // (and from the rounding direction), every mode and backend.
  int bad = 0;
  std::uint64_t counter = 400;
  for (exala::rounding mode : modes)
    for (exala::backend be : backends)
      for (int which = 0; which < 4; ++which) {
        // >= 48 local columns on every rank of an even split: the kernel
        // path, whose term flags must be completed before the merge.
        gemv_case c = vary(40, 200, which % 2 ? 0 : 4, int(counter), counter);
        c.ex = {be, 0, mode, c.ex.block};
        c.a_kind = c.x_kind = c.y_kind = data::zeros;
        c.alpha = which / 2 ? -1.0 : 1.0, c.beta = which / 2 ? -0.0 : 1.0;
        bad += !run_row_block(c) + !run_col_block(c);
      }
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(zero_sign_patterns) {
  // Uniform sign patterns over long rows (the kernel path on every rank):
  // a sum of -0 products alone is -0, with one +0 term it is +0 (to
  // nearest). Partial sums merged from other ranks must carry their terms'
  // zero signs for these to come out right.
  int bad = 0;
  std::uint64_t counter = 1000;
  for (i64 n : {240, 401})
  for (data xk : {data::plus_zero, data::minus_zero})
    for (data yk : {data::plus_zero, data::minus_zero})
      for (exala::rounding mode : {exala::rounding::to_nearest_even, exala::rounding::downward}) {
        gemv_case c = vary(6, n, int(counter % 5), int(counter), counter);
        c.a_kind = counter % 3 ? data::plus_one : data::minus_zero;
        c.x_kind = xk, c.y_kind = yk;
        c.alpha = 1.0, c.beta = 1.0;
        c.ex = {counter % 2 ? exala::backend::simd : exala::backend::omp, 0, mode, c.ex.block};
        bad += !run_row_block(c) + !run_col_block(c);
      }
  for (data kind : {data::plus_zero, data::minus_zero})
    for (int combo = 0; combo < 16; ++combo)
      for (int s = 0; s < 4; ++s) {
        trsv_case c = vary_trsv(200, combo % 2 ? 7 : 50, combo, counter);
        c.kind = kind;
        c.seed = std::uint64_t(s);  // the four sign choices of make_trsv
        c.ex = {s % 2 ? exala::backend::simd : exala::backend::omp, 0,
                s < 2 ? exala::rounding::to_nearest_even : exala::rounding::downward, c.ex.block};
        bad += !run_trsv(c);
      }
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(trsv_matches_trsv) {
  // Every layout x uplo x trans x diag, several n and nb (1, not dividing n,
  // nb >= n), rotating backends, modes, strides and data kinds.
  int bad = 0;
  std::uint64_t counter = 500;
  for (i64 n : {0, 1, 5, 23, 64})
    for (i64 nb : nbs_for(n))
      for (int combo = 0; combo < 16; ++combo) bad += !run_trsv(vary_trsv(n, nb, combo, counter));
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(trsv_signed_zeros_specials_and_roundings) {
  int bad = 0;
  std::uint64_t counter = 600;
  for (data kind : {data::zeros, data::special, data::extreme})
    for (exala::rounding mode : modes)
      for (int combo = 0; combo < 16; ++combo) {
        trsv_case c = vary_trsv(30, 1 + i64(counter % 7), combo, counter);
        c.kind = kind;
        c.ex.mode = mode;
        bad += !run_trsv(c);
      }
  // Signed zeros with long rows (kernel path on every rank, partial
  // numerators of other ranks that are exactly zero).
  for (exala::rounding mode : modes)
    for (int combo = 0; combo < 16; ++combo) {
      trsv_case c = vary_trsv(260, combo % 3 == 0 ? 64 : 5, combo, counter);
      c.kind = data::zeros;
      c.ex = {counter % 2 ? exala::backend::simd : exala::backend::omp, 0, mode, c.ex.block};
      bad += !run_trsv(c);
    }
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(trsv_kernel_path) {
  // Rows long enough for the SIMD kernels (>= 48 products) in every part of
  // the algorithm: the panels, the batched updates, the in-block rows.
  int bad = 0;
  std::uint64_t counter = 700;
  for (i64 nb : {3, 64, 300})
    for (int combo = 0; combo < 16; combo += (nb == 64 ? 1 : 3)) {
      trsv_case c = vary_trsv(300, nb, combo, counter);
      c.ex.backend = counter % 2 ? exala::backend::simd : exala::backend::omp;
      bad += !run_trsv(c);
    }
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(different_kernel_sets_per_rank) {
  // The ranks use different SIMD kernel sets (as on a heterogeneous
  // cluster): the bits must not change.
  const exala::kernel_set before = exala::active_kernel_set();
  std::vector<exala::kernel_set> sets{exala::kernel_set::generic};
  for (exala::kernel_set k : {exala::kernel_set::avx2, exala::kernel_set::avx512}) {
    try {
      exala::force_kernel_set(k);
      sets.push_back(k);
    } catch (const exala::error&) {
    }
  }
  exala::force_kernel_set(sets[std::size_t(rank()) % sets.size()]);
  int bad = 0;
  std::uint64_t counter = 800;
  for (int v = 0; v < 4; ++v) {
    gemv_case c = vary(40, 120, v, v, counter);
    c.ex.backend = exala::backend::simd;
    bad += !run_row_block(c) + !run_col_block(c);
    trsv_case t = vary_trsv(120, 7 + v * 20, v * 5, counter);
    t.ex.backend = exala::backend::simd;
    bad += !run_trsv(t);
  }
  exala::force_kernel_set(before);
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(bad_arguments_fail_on_every_rank) {
  const int P = size(), last = P - 1;
  const MPI_Comm w = MPI_COMM_WORLD;
  bool ok = true;
  std::vector<double> a(400, 1.0), x(20, 1.0), y(20, 1.0);
  const double* A = a.data();
  // gemv_row_block: 3 rows per rank of a 3P x 4 matrix.
  auto row = [&](i64 ml, i64 n, double alpha, const double* aa, i64 lda, const double* xx, i64 incy) {
    return [=, &y] { exala::mpi::gemv_row_block(w, layout::row_major, ml, n, alpha, aa, lda, xx, 1, 1.0, y.data(), incy); };
  };
  ok &= expect_invalid(row(rank() == last ? -1 : 3, 4, 1.0, A, 4, x.data(), 1), only(last), "m_local",
                       "row: negative m_local (the blocks cannot tile)");
  ok &= expect_invalid(row(3, 4, 1.0, rank() == last ? nullptr : A, 4, x.data(), 1), only(last), "a",
                       "row: null a");
  ok &= expect_invalid(row(3, 4, 1.0, A, rank() == 0 ? 3 : 4, x.data(), 1), only(0), "lda", "row: lda < n");
  ok &= expect_invalid(row(3, 4, 1.0, A, 4, x.data(), rank() == last ? 0 : 1), only(last), "incy",
                       "row: incy 0");
  ok &= expect_invalid(row(3, -2, 1.0, A, 4, x.data(), 1), everyone(), "n", "row: n < 0 everywhere");
  ok &= expect_invalid(
      [&] { exala::mpi::gemv_row_block(w, layout::row_major, 3, 4, 1.0, A, 4, x.data(), 1, 1.0, y.data(), 1,
                                       {exala::backend::simd, rank() == last ? -1 : 0}); },
      only(last), "threads", "row: bad exec.threads");
  if (P > 1) {
    ok &= expect_invalid(row(3, 4, rank() == last ? 2.0 : 1.0, A, 4, x.data(), 1), only(last), "alpha",
                         "row: alpha differs");
    ok &= expect_invalid(row(3, rank() == last ? 5 : 4, 1.0, A, 5, x.data(), 1), only(last), "n",
                         "row: n differs");
    std::vector<double> x2 = x;
    if (rank() == last) x2[2] = -0.0 * x2[2];  // replicated x differs in one element
    ok &= expect_invalid(row(3, 4, 1.0, A, 4, x2.data(), 1), only(last), "x", "row: x not replicated");
    // A rank without rows may pass null pointers and any x: no error.
    bool fine = true;
    std::vector<double> y3(4, 1.0);
    try {
      exala::mpi::gemv_row_block(w, layout::row_major, rank() == last ? 0 : 2, 4, 1.0,
                                 rank() == last ? nullptr : A, 4, rank() == last ? nullptr : x.data(), 1,
                                 0.0, rank() == last ? nullptr : y3.data(), 1);
    } catch (const std::exception& e) {
      fine = false;
      BOOST_ERROR("row: an empty rank with null pointers: " << e.what());
    }
    ok &= fine;
  }
  // gemv_col_block: 2 local columns per rank, m = 5.
  auto col = [&](i64 m, i64 nl, const double* aa, i64 lda, double* yy, double beta) {
    return [=] { exala::mpi::gemv_col_block(w, layout::col_major, m, nl, 1.0, aa, lda, x.data(), 1, beta, yy, 1); };
  };
  ok &= expect_invalid(col(5, rank() == last ? -1 : 2, A, 5, y.data(), 1.0), only(last), "n_local",
                       "col: negative n_local");
  ok &= expect_invalid(col(5, 2, A, rank() == 0 ? 4 : 5, y.data(), 1.0), only(0), "lda", "col: lda < m");
  ok &= expect_invalid(col(5, 2, A, 5, rank() == last ? nullptr : y.data(), 1.0), only(last), "y",
                       "col: null y");
  if (P > 1) {
    ok &= expect_invalid(col(rank() == last ? 6 : 5, 2, A, 6, y.data(), 1.0), only(last), "m", "col: m differs");
    std::vector<double> y2 = y;
    if (rank() == last) y2[4] = 2.0;
    ok &= expect_invalid(col(5, 2, A, 5, y2.data(), 1.0), only(last), "y", "col: y not replicated");
    // beta == 0: y is not read, so it need not be replicated.
    bool fine = true;
    try {
      col(5, 2, A, 5, y2.data(), 0.0)();
    } catch (const std::exception& e) {
      fine = false;
      BOOST_ERROR("col: beta == 0 with different y: " << e.what());
    }
    ok &= fine;
  }
  // trsv_block_cyclic: n = 6, nb = 2, identity-like rows (lda 6); x must be
  // left as it was by a failing call.
  const exala::mpi::block_cyclic d{6, 2, P};
  mat al(layout::row_major, std::max<i64>(1, d.local_rows(rank())), 6, 0);
  for (i64 i = 0; i < d.local_rows(rank()); ++i)
    for (i64 j = 0; j < 6; ++j) al.at(i, j) = d.global_row(rank(), i) == j ? 2.0 : 0.5;
  std::vector<double> b{1, 2, 3, 4, 5, 6};
  auto tr = [&](i64 n, i64 nb, const double* aa, i64 lda, i64 incx, double* xx) {
    return [=] {
      exala::mpi::trsv_block_cyclic(w, layout::row_major, uplo::lower, transpose::none, diag::non_unit, n, nb,
                                    aa, lda, xx, incx);
    };
  };
  std::vector<double> xb = b;
  ok &= expect_invalid(tr(6, rank() == last ? 0 : 2, al.ptr(), 6, 1, xb.data()), only(last), "nb", "trsv: nb 0");
  ok &= expect_invalid(tr(6, -3, al.ptr(), 6, 1, xb.data()), everyone(), "nb", "trsv: nb < 0 everywhere");
  ok &= expect_invalid(tr(6, 2, al.ptr(), rank() == 0 ? 5 : 6, 1, xb.data()), only(0), "lda", "trsv: lda < n");
  ok &= expect_invalid(tr(6, 2, al.ptr(), 6, rank() == last ? 0 : 1, xb.data()), only(last), "incx",
                       "trsv: incx 0");
  ok &= expect_invalid(tr(6, 2, rank() == 0 ? nullptr : al.ptr(), 6, 1, xb.data()), only(0), "a",
                       "trsv: null a on rank 0 (which owns block 0)");
  ok &= expect_invalid(tr(6, 2, al.ptr(), 6, 1, rank() == last ? nullptr : xb.data()), only(last), "x",
                       "trsv: null x");
  if (P > 1) {
    ok &= expect_invalid(tr(6, rank() == last ? 3 : 2, al.ptr(), 6, 1, xb.data()), only(last), "nb",
                         "trsv: nb differs");
    std::vector<double> x2 = b;
    if (rank() == last) x2[5] = 7;
    ok &= expect_invalid(tr(6, 2, al.ptr(), 6, 1, x2.data()), only(last), "x", "trsv: b not replicated");
  }
  ok &= same_bits(xb, b);  // untouched by the failed calls
  BOOST_TEST(all_ranks(ok));
}

BOOST_AUTO_TEST_CASE(global_arguments_agree_on_every_rank) {
  // exec.block sets how many collectives gemv_col_block (rows per
  // allreduce) and the transposed trsv (rows per reduction) make, so it is
  // a global argument there; so is the routine. A rank that differs must be
  // named on every rank instead of pairing unrelated collectives.
  const int P = size(), last = P - 1;
  if (P == 1) return;
  const MPI_Comm w = MPI_COMM_WORLD;
  bool ok = true;
  std::vector<double> a(400, 1.0), x(20, 1.0), y(20, 1.0);
  const exala::exec by2{exala::backend::simd, 0, exala::rounding::to_nearest_even, 2};
  const exala::exec dflt{exala::backend::simd, 0, exala::rounding::to_nearest_even, 0};
  // m = 5: 3 allreduces of 2, 2, 1 rows on the last rank, 1 of 5 elsewhere.
  ok &= expect_invalid(
      [&] {
        exala::mpi::gemv_col_block(w, layout::col_major, 5, 2, 1.0, a.data(), 5, x.data(), 1, 0.0,
                                   y.data(), 1, rank() == last ? by2 : dflt);
      },
      only(last), "block", "col: exec.block differs");
  // trsv, transposed: n = 6, nb = 6 (one block, rank 0's), reduced 2 rows
  // at a time on the last rank, all 6 at once elsewhere.
  const exala::mpi::block_cyclic d{6, 6, P};
  mat al(layout::row_major, std::max<i64>(1, d.local_rows(rank())), 6, 0);
  for (i64 i = 0; i < d.local_rows(rank()); ++i)
    for (i64 j = 0; j < 6; ++j) al.at(i, j) = d.global_row(rank(), i) == j ? 2.0 : 0.5;
  std::vector<double> b{1, 2, 3, 4, 5, 6};
  ok &= expect_invalid(
      [&] {
        exala::mpi::trsv_block_cyclic(w, layout::row_major, uplo::upper, transpose::trans,
                                      diag::non_unit, 6, 6, al.ptr(), 6, b.data(), 1,
                                      rank() == last ? by2 : dflt);
      },
      only(last), "block", "trsv: exec.block differs");
  ok &= same_bits(b, {1, 2, 3, 4, 5, 6});
  // Rank 0 calls the row-block gemv, the others the column-block gemv.
  ok &= expect_invalid(
      [&] {
        if (rank() == 0)
          exala::mpi::gemv_row_block(w, layout::row_major, 2, 5, 1.0, a.data(), 5, x.data(), 1, 0.0,
                                     y.data(), 1);
        else
          exala::mpi::gemv_col_block(w, layout::col_major, 5, 2, 1.0, a.data(), 5, x.data(), 1, 0.0,
                                     y.data(), 1);
      },
      only(1), "operation", "row-block gemv on rank 0, column-block gemv elsewhere");
  // The last rank solves while the others multiply.
  ok &= expect_invalid(
      [&] {
        if (rank() == last)
          exala::mpi::trsv_block_cyclic(w, layout::row_major, uplo::upper, transpose::none,
                                        diag::non_unit, 6, 6, al.ptr(), 6, b.data(), 1);
        else
          exala::mpi::gemv_col_block(w, layout::col_major, 5, 2, 1.0, a.data(), 5, x.data(), 1, 0.0,
                                     y.data(), 1);
      },
      only(last), "operation", "trsv on the last rank, gemv elsewhere");
  BOOST_TEST(all_ranks(ok));
}

BOOST_AUTO_TEST_CASE(singular_diagonal_on_every_rank) {
  // Zeros on the diagonal at rows owned by different ranks: every rank must
  // throw singular_matrix with the row exala::trsv reports (the lowest),
  // even the ranks that do not hold it; x is left as it was.
  const int P = size();
  bool ok = true;
  for (int t = 0; t < 4; ++t) {
    trsv_case c;
    c.n = 40, c.nb = 3, c.seed = 900 + std::uint64_t(t);
    c.lay = t % 2 ? layout::col_major : layout::row_major;
    c.ul = t / 2 ? uplo::upper : uplo::lower;
    c.trans = t / 2 ? transpose::trans : transpose::none;
    trsv_problem p = make_trsv(c);
    // Row 31 (block 10, owner 10 % P) and row 7 (block 2, owner 2 % P).
    p.a.at(31, 31) = -0.0;
    p.a.at(7, 7) = 0.0;
    long long want_row = -1;
    std::vector<double> xr = p.b;
    try {
      exala::trsv(c.lay, c.ul, c.trans, c.dg, c.n, p.a.ptr(), p.a.ld, xr.data(), 1);
    } catch (const exala::singular_matrix& e) {
      want_row = e.row();
    }
    BOOST_TEST(want_row == 7);
    const mat al = local_rows(c, p.a);
    std::vector<double> x = p.b;
    long long got = -2;
    try {
      exala::mpi::trsv_block_cyclic(MPI_COMM_WORLD, c.lay, c.ul, c.trans, c.dg, c.n, c.nb, al.ptr(), al.ld,
                                    x.data(), 1);
    } catch (const exala::singular_matrix& e) {
      got = e.row();
    } catch (const std::exception& e) {
      BOOST_ERROR("rank " << rank() << ": expected singular_matrix, got " << e.what());
    }
    if (got != want_row || !same_bits(x, p.b)) {
      ok = false;
      BOOST_ERROR("rank " << rank() << " of " << P << ": singular row " << got << ", want " << want_row);
    }
  }
  BOOST_TEST(all_ranks(ok));
}

// ------------------------------------------------------------ long

BOOST_AUTO_TEST_CASE(long_gemv_sweep, *boost::unit_test::label("long")) {
  int bad = 0;
  std::uint64_t counter = 10000;
  for (i64 m : {2, 17, 130, 1100})
    for (i64 n : {3, 64, 257, 1500})
      for (int kind = 0; kind <= 4; ++kind)
        for (int v = 0; v < 4; ++v) {
          bad += !run_row_block(vary(m, n, kind, v, counter));
          bad += !run_col_block(vary(m, n, kind, v, counter));
        }
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(long_trsv_sweep, *boost::unit_test::label("long")) {
  int bad = 0;
  std::uint64_t counter = 20000;
  for (i64 n : {97, 256, 700})
    for (i64 nb : {1, 13, 64, 256, 1024})
      for (int combo = 0; combo < 16; ++combo) bad += !run_trsv(vary_trsv(n, nb, combo, counter));
  BOOST_TEST(all_ranks(bad == 0));
}
