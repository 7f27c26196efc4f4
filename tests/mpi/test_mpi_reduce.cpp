// test_mpi_reduce.cpp - distributed exact sum/asum/dot/nrm2 and the
// superaccumulator MPI_Op (exala/mpi.hpp), run under mpirun -np 1..4.
//
// Every rank builds the same global vectors from a seed, takes its part under
// a distribution (contiguous blocks of every split kind, cyclic, reversed
// rank order, negative increments, empty ranks), and the distributed result
// must have the bits of the single-process reference backend on the whole
// vector - on every rank. Values exact by construction check the reference
// itself where the sum is known without floating-point arithmetic.
#define BOOST_TEST_MODULE exala_mpi_reduce
#include "mpi_test_main.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/mpi.hpp"

namespace {

using exala_mpi_test::all_ranks;
using exala_mpi_test::rank;
using exala_mpi_test::size;
using exala_mpi_test::split;
using i64 = std::int64_t;

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

// Same bits on every rank (NaN payloads included).
bool same_on_all_ranks(double v) {
  std::uint64_t b = bits(v), lo = 0, hi = 0;
  MPI_Allreduce(&b, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&b, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

enum class data { mixed, cancel, tiny, huge, nan, infs, inf_pos, negzero, zeros };

// A global vector of n entries (the same on every rank for the same seed).
std::vector<double> make(i64 n, data kind, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-60, 60);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) {
    double v = 0;
    switch (kind) {
      case data::mixed: v = std::ldexp(u(g), e(g)); break;
      case data::cancel:  // pairs +-v with a small residue: the sum is tiny
        v = (i % 2 == 0) ? std::ldexp(u(g), 900) : -x[std::size_t(i - 1)] + std::ldexp(u(g), -900);
        break;
      case data::tiny: v = std::ldexp(u(g), -1074 + int(g() % 60)); break;  // subnormals
      case data::huge: v = std::ldexp(0.75 + 0.25 * std::fabs(u(g)), 1023); break;  // sum overflows
      case data::nan: v = (i == n / 2) ? std::numeric_limits<double>::quiet_NaN() : u(g); break;
      case data::infs:
        v = (i == 0) ? HUGE_VAL : (i == n - 1) ? -HUGE_VAL : u(g);
        break;
      case data::inf_pos: v = (i == n / 3) ? HUGE_VAL : std::ldexp(u(g), 1000); break;
      // Exact zeros: the sign of the result comes from the signs of the
      // terms (all -0: -0), which a rank holding only some of them, or
      // none, must not lose.
      case data::negzero: v = -0.0; break;
      case data::zeros: v = (g() % 3 == 0) ? 0.0 : -0.0; break;
    }
    x[std::size_t(i)] = v;
  }
  return x;
}

// This rank's part of a global vector under a distribution: pointer, count
// and increment into `g` (or into `local`, when the part is rearranged).
struct part {
  const double* p = nullptr;
  i64 n = 0;
  i64 inc = 1;
};

// kinds 0..4: contiguous blocks of split(kind); 5: cyclic (entries r, r+P,
// ...); 6: blocks in reversed rank order; 7: contiguous blocks passed with a
// negative increment.
constexpr int distributions = 8;
part part_of(const std::vector<double>& g, int kind) {
  const i64 n = i64(g.size());
  const int r = rank(), P = size();
  if (kind == 5) {
    const i64 cnt = n > r ? (n - r + P - 1) / P : 0;
    return {cnt > 0 ? g.data() + r : nullptr, cnt, P};
  }
  const int who = kind == 6 ? P - 1 - r : r;
  const auto cut = split(n, kind == 6 || kind == 7 ? 1 : kind, 17);
  const i64 lo = cut[std::size_t(who)], cnt = cut[std::size_t(who) + 1] - lo;
  // A negative increment starts from the highest address (BLAS convention).
  return {cnt > 0 ? g.data() + lo : nullptr, cnt, kind == 7 ? -1 : 1};
}

const exala::exec backends[] = {
    {exala::backend::reference, 0, exala::rounding::to_nearest_even, 0},
    {exala::backend::simd, 0, exala::rounding::to_nearest_even, 0},
    {exala::backend::omp, 1, exala::rounding::to_nearest_even, 0},
    {exala::backend::omp, 2, exala::rounding::to_nearest_even, 0},
};
const exala::rounding modes[] = {exala::rounding::to_nearest_even, exala::rounding::upward,
                                 exala::rounding::downward, exala::rounding::toward_zero};

// The single-process result of the whole vector(s), reference backend.
double expect(char op, const std::vector<double>& x, const std::vector<double>& y,
              exala::rounding mode) {
  const exala::exec ref{exala::backend::reference, 0, mode, 0};
  const i64 n = i64(x.size());
  switch (op) {
    case 's': return exala::sum(n, x.data(), 1, ref);
    case 'a': return exala::asum(n, x.data(), 1, ref);
    case 'd': return exala::dot(n, x.data(), 1, y.data(), 1, ref);
    default: return exala::nrm2(n, x.data(), 1, ref);
  }
}

double distributed(char op, const part& x, const part& y, const exala::exec& ex) {
  switch (op) {
    case 's': return exala::mpi::sum(MPI_COMM_WORLD, x.n, x.p, x.inc, ex);
    case 'a': return exala::mpi::asum(MPI_COMM_WORLD, x.n, x.p, x.inc, ex);
    case 'd': return exala::mpi::dot(MPI_COMM_WORLD, x.n, x.p, x.inc, y.p, y.inc, ex);
    default: return exala::mpi::nrm2(MPI_COMM_WORLD, x.n, x.p, x.inc, ex);
  }
}

// Runs every op x distribution x backend x mode on (x, y); returns the number
// of mismatches on this rank (and checks that all ranks agree).
int sweep(const std::vector<double>& x, const std::vector<double>& y, bool all_backends) {
  int bad = 0;
  for (char op : {'s', 'a', 'd', 'n'})
    for (exala::rounding mode : modes) {
      const double want = expect(op, x, y, mode);
      for (int dist = 0; dist < distributions; ++dist)
        for (const exala::exec& b : backends) {
          if (!all_backends && b.backend == exala::backend::omp) continue;
          exala::exec ex = b;
          ex.mode = mode;
          const double got = distributed(op, part_of(x, dist), part_of(y, dist), ex);
          if (bits(got) != bits(want) || !same_on_all_ranks(got)) {
            if (bad < 5)
              BOOST_ERROR("op " << op << " n " << x.size() << " dist " << dist << " backend "
                                << exala::to_string(b.backend) << " mode " << int(mode) << ": got "
                                << got << " want " << want);
            ++bad;
          }
        }
    }
  return bad;
}

}  // namespace

BOOST_AUTO_TEST_CASE(matches_single_process_reference_bit_for_bit) {
  // Sizes below, at and above the rank count (empty ranks), odd sizes.
  int bad = 0;
  std::uint64_t seed = 1;
  for (i64 n : {0, 1, 2, 3, 5, 17, 1000, 4099})
    for (data kind : {data::mixed, data::cancel, data::tiny, data::huge, data::nan, data::infs,
                      data::inf_pos, data::negzero, data::zeros}) {
      // Zeros pair with mixed signs in dot (x_i * y_i = -0 for some i only).
      const auto x = make(n, kind, seed++);
      const auto y = make(n, kind == data::negzero ? data::zeros : data::mixed, seed++);
      bad += sweep(x, y, n == 1000 || n == 4099);
    }
  BOOST_TEST(all_ranks(bad == 0));
}

BOOST_AUTO_TEST_CASE(exact_by_construction) {
  // Entries 2^k for k = -1074..1023, each with both signs except one term t:
  // the exact sum is t, whatever the split. asum is known too: the sum of
  // 2*2^k over that range plus |t| is 2^1025 - 2^-1073 + |t|, which overflows
  // the doubles (inf when rounding up or to nearest, DBL_MAX down / to zero).
  std::vector<double> x;
  for (int k = -1074; k <= 1023; ++k) x.push_back(std::ldexp(1.0, k));
  for (int k = 1023; k >= -1074; --k) x.push_back(-std::ldexp(1.0, k));
  const double t = 0x1.23456789abcdep-1000;
  x.insert(x.begin() + 777, t);
  for (int dist = 0; dist < distributions; ++dist) {
    const part p = part_of(x, dist);
    const double s = exala::mpi::sum(MPI_COMM_WORLD, p.n, p.p, p.inc);
    BOOST_TEST(bits(s) == bits(t));
    const double a_up = exala::mpi::asum(MPI_COMM_WORLD, p.n, p.p, p.inc,
                                         {exala::backend::simd, 0, exala::rounding::upward, 0});
    BOOST_TEST(a_up == HUGE_VAL);
    const double a_dn = exala::mpi::asum(MPI_COMM_WORLD, p.n, p.p, p.inc,
                                         {exala::backend::simd, 0, exala::rounding::downward, 0});
    BOOST_TEST(a_dn == std::numeric_limits<double>::max());
  }
  // dot of (2^k) with (2^-k) over k = -537..537: 1075 ones, exactly 1075.
  std::vector<double> a, b;
  for (int k = -537; k <= 537; ++k) a.push_back(std::ldexp(1.0, k)), b.push_back(std::ldexp(1.0, -k));
  for (int dist = 0; dist < distributions; ++dist) {
    const part pa = part_of(a, dist), pb = part_of(b, dist);
    BOOST_TEST(exala::mpi::dot(MPI_COMM_WORLD, pa.n, pa.p, pa.inc, pb.p, pb.inc) == 1075.0);
    // nrm2 of 3*2^-600 and 4*2^-600 spread over the ranks: exactly 5*2^-600
    // (the squares underflow in double arithmetic, not in the accumulator).
    std::vector<double> v(std::size_t(size() * 3), 0.0);
    v[0] = 3 * std::ldexp(1.0, -600), v.back() = 4 * std::ldexp(1.0, -600);
    const part pv = part_of(v, dist);
    BOOST_TEST(exala::mpi::nrm2(MPI_COMM_WORLD, pv.n, pv.p, pv.inc) == 5 * std::ldexp(1.0, -600));
  }
}

BOOST_AUTO_TEST_CASE(allreduce_is_elementwise_and_custom_reductions_work) {
  // Each rank adds its own terms to 5 accumulators; the allreduce must give
  // every rank the sums over all ranks, which the test also forms locally by
  // replaying every rank's terms.
  const int P = size(), r = rank();
  auto terms = [](int who, int i) {
    return std::vector<double>{std::ldexp(1.0 + who, 300 - 100 * i), -std::ldexp(1.0, -who - 7 * i),
                               0x1p-1074 * (who + 1)};
  };
  std::vector<exala::superaccumulator> accs(5), want(5);
  for (int i = 0; i < 5; ++i) {
    for (double v : terms(r, i)) accs[std::size_t(i)].add(v);
    for (int who = 0; who < P; ++who)
      for (double v : terms(who, i)) want[std::size_t(i)].add(v);
  }
  exala::mpi::allreduce(MPI_COMM_WORLD, accs);
  for (int i = 0; i < 5; ++i) BOOST_TEST((accs[std::size_t(i)] == want[std::size_t(i)]));

  // The exported datatype and op in the caller's own MPI_Reduce to the last
  // rank, and in a subcommunicator (even and odd ranks).
  exala::superaccumulator mine;
  mine.add(std::ldexp(1.0, r) + 0.5);
  auto packed = mine.serialize();
  std::vector<std::byte> out(packed.size());
  MPI_Reduce(packed.data(), out.data(), 1, exala::mpi::superaccumulator_type(),
             exala::mpi::superaccumulator_op(), P - 1, MPI_COMM_WORLD);
  if (r == P - 1) {
    exala::superaccumulator all = exala::superaccumulator::deserialize(out), expect_all;
    for (int who = 0; who < P; ++who) expect_all.add(std::ldexp(1.0, who) + 0.5);
    BOOST_TEST((all == expect_all));
  }
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
  std::vector<double> mine_v{std::ldexp(1.0, 50 + r), -std::ldexp(1.0, 50 + r), 0.25 * r};
  const double got = exala::mpi::sum(half, 3, mine_v.data(), 1);
  double expect_half = 0;
  for (int who = r % 2; who < P; who += 2) expect_half += 0.25 * who;  // small integers/4: exact
  BOOST_TEST(got == expect_half);
  MPI_Comm_free(&half);
}

BOOST_AUTO_TEST_CASE(bad_arguments_fail_on_every_rank_without_hanging) {
  const int P = size(), r = rank(), culprit = P - 1;
  std::vector<double> x(10, 1.0);
  // A negative count on the last rank: it gets the named error, the others
  // a remote_error naming it.
  try {
    exala::mpi::sum(MPI_COMM_WORLD, r == culprit ? -1 : 10, x.data(), 1);
    BOOST_ERROR("no exception");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(r == culprit);
    BOOST_TEST(e.argument() == "n_local");
  } catch (const exala::mpi::remote_error& e) {
    BOOST_TEST(r != culprit);
    BOOST_TEST(e.rank() == culprit);
    BOOST_TEST(std::string(e.what()).find("n_local") != std::string::npos);
  }
  // A null y on rank 0 only (dot).
  try {
    exala::mpi::dot(MPI_COMM_WORLD, 10, x.data(), 1, r == 0 ? nullptr : x.data(), 1);
    BOOST_ERROR("no exception");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(r == 0);
    BOOST_TEST(e.argument() == "y");
  } catch (const exala::mpi::remote_error& e) {
    BOOST_TEST(r != 0);
    BOOST_TEST(e.rank() == 0);
  }
  // Errors on several ranks: each failing rank keeps its own; the others
  // hear of the lowest one.
  try {
    exala::mpi::asum(MPI_COMM_WORLD, r % 2 == 1 ? -5 : 10, x.data(), 1);
    if (P > 1) BOOST_ERROR("no exception");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(r % 2 == 1);
  } catch (const exala::mpi::remote_error& e) {
    BOOST_TEST(r % 2 == 0);
    BOOST_TEST(e.rank() == 1);
  }
  BOOST_CHECK_THROW(exala::mpi::sum(MPI_COMM_NULL, 1, x.data(), 1), exala::invalid_argument);
  // After all that, the communicator still works.
  BOOST_TEST(exala::mpi::sum(MPI_COMM_WORLD, 10, x.data(), 1) == 10.0 * P);
}

// Calls f on every rank: rank `culprit` must throw exala::invalid_argument
// naming `arg`, every other rank exala::mpi::remote_error from `culprit`
// carrying that name. Returns true when this rank behaved so.
template <class F>
bool expect_named(F f, int culprit, const std::string& arg, const char* what) {
  try {
    f();
  } catch (const exala::invalid_argument& e) {
    if (rank() == culprit && e.argument() == arg) return true;
    BOOST_ERROR(what << ": rank " << rank() << ": " << e.what());
    return false;
  } catch (const exala::mpi::remote_error& e) {
    if (rank() != culprit && e.rank() == culprit &&
        std::string(e.what()).find("'" + arg + "'") != std::string::npos)
      return true;
    BOOST_ERROR(what << ": rank " << rank() << ": " << e.what());
    return false;
  } catch (const std::exception& e) {
    BOOST_ERROR(what << ": rank " << rank() << ": unexpected " << e.what());
    return false;
  }
  BOOST_ERROR(what << ": rank " << rank() << " did not throw");
  return false;
}

BOOST_AUTO_TEST_CASE(global_arguments_agree_on_every_rank) {
  // Local counts and increments are the rank's own; the rounding mode, the
  // routine and allreduce's element count are global: a rank that differs
  // must be named on every rank, not get another result (a mode) or pair
  // unrelated collectives (a routine, a count).
  const int P = size(), r = rank(), last = P - 1;
  std::vector<double> x{0.1, 0.2, 0.3, 1e-17};  // sum 0.6 + 1e-17: modes round apart
  const exala::exec nearest{exala::backend::simd, 0, exala::rounding::to_nearest_even, 0};
  const exala::exec up{exala::backend::simd, 0, exala::rounding::upward, 0};
  bool ok = true;
  // Any mix of increment signs and counts is fine (x reversed on odd ranks).
  {
    const double got =
        exala::mpi::sum(MPI_COMM_WORLD, r == last ? 2 : 4, x.data(), r % 2 ? -1 : 1);
    std::vector<double> all;
    for (int q = 0; q < P; ++q) all.insert(all.end(), x.begin(), x.begin() + (q == last ? 2 : 4));
    ok &= bits(got) == bits(exala::sum(i64(all.size()), all.data(), 1, {exala::backend::reference}));
  }
  if (P > 1) {
    ok &= expect_named([&] { exala::mpi::sum(MPI_COMM_WORLD, 4, x.data(), 1, r == last ? up : nearest); },
                       last, "mode", "sum: mode differs on the last rank");
    ok &= expect_named(
        [&] {
          if (r == 0)
            exala::mpi::sum(MPI_COMM_WORLD, 4, x.data(), 1);
          else
            exala::mpi::asum(MPI_COMM_WORLD, 4, x.data(), 1);
        },
        1, "operation", "sum on rank 0, asum on the others");
    ok &= expect_named(
        [&] {
          if (r == last)
            exala::mpi::dot(MPI_COMM_WORLD, 4, x.data(), 1, x.data(), 1);
          else
            exala::mpi::nrm2(MPI_COMM_WORLD, 4, x.data(), 1);
        },
        last, "operation", "dot on the last rank, nrm2 on the others");
    std::vector<exala::superaccumulator> accs(r == last ? 5 : 4);
    ok &= expect_named([&] { exala::mpi::allreduce(MPI_COMM_WORLD, accs); }, last, "count",
                       "allreduce: count differs on the last rank");
    // 4097 elements on the last rank, 4096 (one MPI_Allreduce) elsewhere.
    std::vector<exala::superaccumulator> big(r == last ? 4097 : 4096);
    ok &= expect_named([&] { exala::mpi::allreduce(MPI_COMM_WORLD, big); }, last, "count",
                       "allreduce: one more chunk on the last rank");
  }
  // The communicator still works.
  const double one = 1.0;
  ok &= exala::mpi::sum(MPI_COMM_WORLD, 1, &one, 1) == double(P);
  BOOST_TEST(all_ranks(ok));
}

BOOST_AUTO_TEST_CASE(random_sweep_large, *boost::unit_test::label("long")) {
  int bad = 0;
  for (std::uint64_t seed = 100; seed < 106; ++seed)
    for (i64 n : {100000, 1000003}) {
      const auto x = make(n, seed % 2 ? data::mixed : data::cancel, seed);
      const auto y = make(n, data::mixed, seed + 1000);
      bad += sweep(x, y, true);
    }
  BOOST_TEST(all_ranks(bad == 0));
}
