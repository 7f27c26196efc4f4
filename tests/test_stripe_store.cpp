// tests/test_stripe_store.cpp - the stripe LU's disk tier (stripe/store.hpp)
// and the system writer / generator (exala/stripe_lu.hpp).
//
// Oracles: bit equality (memcmp) of everything read back with what was
// written; the file layout documented in store.cpp (tests corrupt, truncate,
// move and forge files at known offsets); exact integer arithmetic for the
// norms of generated matrices (their entries are multiples of 2^-53);
// exala::gemv of the stored A and x_true for B; LAPACK dgesvd_ for the
// 2-norm condition of the cond >= 1 construction. Every case works in its
// own directory under /tmp (unique name, removed at the end).
#define BOOST_TEST_MODULE exala_stripe_store
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "exala/blas2.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "stripe/host_array.hpp"
#include "stripe/store.hpp"

extern char** environ;

extern "C" void dgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, double* a,
                        const int* lda, double* s, double* u, const int* ldu, double* vt,
                        const int* ldvt, double* work, const int* lwork, int* info);

namespace fs = std::filesystem;
namespace st = exala::detail::stripe;
using i64 = std::int64_t;

namespace {

// A unique directory under /tmp, removed with everything in it at the end.
struct temp_dir {
  fs::path path;
  temp_dir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path = fs::path("/tmp") / ("exala_test_store_" + std::to_string(::getpid()) + "_" +
                               std::to_string(counter++) + "_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string sub(const std::string& name) const { return (path / name).string(); }
};

// Random doubles with arbitrary finite bit patterns (signs, zeros, subnormals).
std::vector<double> random_doubles(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<double> v(count);
  for (auto& x : v) {
    std::uint64_t b = g();
    if (((b >> 52) & 0x7ff) == 0x7ff) b &= ~(std::uint64_t{1} << 62);  // keep it finite
    std::memcpy(&x, &b, 8);
  }
  return v;
}

bool same_bits(const double* a, const double* b, std::size_t n) {
  return std::memcmp(a, b, n * sizeof(double)) == 0;
}

// Column-major rows x cols block of a (lda) equal bit for bit to b (ldb).
bool same_block(const double* a, i64 lda, const double* b, i64 ldb, i64 rows, i64 cols) {
  for (i64 j = 0; j < cols; ++j)
    if (!same_bits(a + j * lda, b + j * ldb, static_cast<std::size_t>(rows))) return false;
  return true;
}

std::vector<unsigned char> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
void write_bytes(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Runs f, expects a storage_error; returns it for further checks.
template <class F>
exala::storage_error expect_storage_error(F&& f) {
  try {
    f();
  } catch (const exala::storage_error& e) {
    return e;
  }
  BOOST_FAIL("no exala::storage_error thrown");
  return exala::storage_error(-1, "", "");
}

template <class F>
void expect_invalid_argument(F&& f, const std::string& arg) {
  try {
    f();
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == arg, "argument named '" << e.argument() << "', expected '" << arg
                                                       << "' (" << e.what() << ")");
    return;
  }
  BOOST_FAIL("no exala::invalid_argument thrown for '" + arg + "'");
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<std::string> temporaries(const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (const auto& d : dirs)
    for (const auto& e : fs::directory_iterator(d))
      if (contains(e.path().filename().string(), ".tmp.")) out.push_back(e.path().string());
  return out;
}

// A set with a random n x n matrix (stripe rows per file), B and x_true.
struct sample_set {
  std::vector<std::string> dirs;
  i64 n, nrhs, stripe;
  std::vector<double> a, b, x;  // column-major, ld = n
  sample_set(const temp_dir& t, int ndirs, i64 n_, i64 nrhs_, i64 stripe_, std::uint64_t seed)
      : n(n_), nrhs(nrhs_), stripe(stripe_) {
    for (int d = 0; d < ndirs; ++d) dirs.push_back(t.sub("disk" + std::to_string(d)));
    a = random_doubles(static_cast<std::size_t>(n * n), seed);
    b = random_doubles(static_cast<std::size_t>(n * nrhs), seed + 1);
    x = random_doubles(static_cast<std::size_t>(n * nrhs), seed + 2);
  }
  i64 stripes() const { return (n + stripe - 1) / stripe; }
  i64 rows(i64 i) const { return std::min(stripe, n - i * stripe); }
  fs::path orig(i64 i) const {
    return fs::path(dirs[static_cast<std::size_t>(i) % dirs.size()]) / ("orig_" + std::to_string(i) + ".bin");
  }
  // Writes every stripe from the in-memory matrix (each one through a copy
  // with a padded leading dimension) and finishes.
  st::store write(bool with_xtrue = true, bool finish = true, bool overwrite = false) const {
    st::store s = st::store::create(dirs, n, nrhs, stripe, overwrite);
    for (i64 i = 0; i < stripes(); ++i) {
      const i64 r = rows(i), ld = r + 3;
      std::vector<double> buf(static_cast<std::size_t>(ld * n), std::nan(""));
      for (i64 j = 0; j < n; ++j)
        std::memcpy(&buf[static_cast<std::size_t>(j * ld)], &a[static_cast<std::size_t>(j * n + i * stripe)],
                    static_cast<std::size_t>(r) * 8);
      s.write_original(i, buf.data(), ld);
    }
    s.write_rhs(b.data(), n);
    if (with_xtrue) s.write_xtrue(x.data(), n);
    if (finish) s.finish(0.25, 1.5, "test set");
    return s;
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// checksum
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(checksum_known_values) {
  // checksum64 is the XXH64 construction: the published test values.
  BOOST_TEST(st::checksum64("", 0, 0) == 0xEF46DB3751D8E999ull);
  BOOST_TEST(st::checksum64("a", 1, 0) == 0xD24EC4F1A98C6E5Bull);
  // The seed matters.
  BOOST_TEST(st::checksum64("abc", 3, 0) != st::checksum64("abc", 3, 1));
}

BOOST_AUTO_TEST_CASE(checksum_detects_every_flipped_byte) {
  std::mt19937_64 g(7);
  for (std::size_t len : {1u, 3u, 7u, 8u, 9u, 31u, 32u, 33u, 40u, 63u, 64u, 65u, 100u, 257u, 1000u, 4099u}) {
    std::vector<unsigned char> buf(len + 8);
    for (auto& c : buf) c = static_cast<unsigned char>(g());
    for (std::size_t off : {std::size_t{0}, std::size_t{3}}) {  // misaligned start too
      unsigned char* p = buf.data() + off;
      const std::uint64_t h = st::checksum64(p, len, 0);
      for (std::size_t i = 0; i < len; ++i)
        for (unsigned char mask : {0x01, 0x80, 0xFF, 0x5A}) {
          p[i] ^= mask;
          const std::uint64_t h2 = st::checksum64(p, len, 0);
          p[i] ^= mask;
          BOOST_REQUIRE_MESSAGE(h2 != h, "len " << len << " byte " << i << " mask " << int(mask));
        }
      BOOST_TEST(st::checksum64(p, len, 0) == h);
      // A shorter or longer input differs too (the length is mixed in).
      BOOST_TEST(st::checksum64(p, len - 1, 0) != h);
    }
  }
}

BOOST_AUTO_TEST_CASE(checksum_throughput) {
  const std::size_t bytes = std::size_t{128} << 20;
  std::vector<unsigned char> buf(bytes);
  for (std::size_t i = 0; i < bytes; ++i) buf[i] = static_cast<unsigned char>(i * 131 + (i >> 9));
  double best = 1e30;
  std::uint64_t sink = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    sink ^= st::checksum64(buf.data(), bytes, static_cast<std::uint64_t>(rep));
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double gbs = static_cast<double>(bytes) / best / 1e9;
  BOOST_TEST_MESSAGE("checksum64 throughput: " << gbs << " GB/s (128 MiB, best of 3; " << sink % 2 << ")");
  // A loose floor (shared CI machines): the design target is several GB/s.
  BOOST_TEST(gbs > 0.5);
}

// ---------------------------------------------------------------------------
// round trips
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(round_trip_original_rhs_xtrue_manifest) {
  temp_dir t;
  sample_set ss(t, 3, 37, 3, 10, 11);
  {
    st::store s = ss.write();
    BOOST_TEST(s.info().n == 37);
    BOOST_TEST(s.info().stripe == 10);
    BOOST_TEST(s.counters().files_written.load() == 4 + 1 + 1 + 1);
  }
  st::store s = st::store::open(ss.dirs);
  const st::manifest& m = s.info();
  BOOST_TEST(m.n == 37);
  BOOST_TEST(m.nrhs == 3);
  BOOST_TEST(m.stripe == 10);
  BOOST_TEST(m.max_abs == 0.25);
  BOOST_TEST(m.norm_inf == 1.5);
  BOOST_TEST(m.has_xtrue);
  BOOST_TEST(m.source == "test set");
  BOOST_TEST(s.dirs() == ss.dirs);

  const i64 n = ss.n, ld = n + 5;
  std::vector<double> a(static_cast<std::size_t>(ld * n), -7.0);
  s.read_original(0, n, 0, n, a.data(), ld);
  BOOST_TEST(same_block(a.data(), ld, ss.a.data(), n, n, n));
  BOOST_TEST(a[static_cast<std::size_t>(n)] == -7.0);  // padding untouched

  std::vector<double> b(static_cast<std::size_t>(ld * 3), -7.0), x(b.size(), -7.0);
  s.read_rhs(b.data(), ld);
  BOOST_TEST(same_block(b.data(), ld, ss.b.data(), n, n, 3));
  BOOST_TEST(s.read_xtrue(x.data(), ld));
  BOOST_TEST(same_block(x.data(), ld, ss.x.data(), n, n, 3));
  BOOST_TEST(s.counters().files_read.load() == 1 + 4 + 2);  // manifest, stripes, B, x
  BOOST_TEST(s.counters().bytes_read.load() >= static_cast<i64>((n * n + 6 * n) * 8));
}

BOOST_AUTO_TEST_CASE(round_trip_without_xtrue_and_empty_rhs) {
  temp_dir t;
  sample_set ss(t, 1, 9, 0, 4, 12);
  ss.write(false);
  st::store s = st::store::open(ss.dirs);
  BOOST_TEST(!s.info().has_xtrue);
  double dummy = 0;
  BOOST_TEST(!s.read_xtrue(&dummy, 9));
  s.read_rhs(nullptr, 9);  // n x 0
  std::vector<double> a(81);
  s.read_original(0, 9, 0, 9, a.data(), 9);
  BOOST_TEST(same_bits(a.data(), ss.a.data(), 81));
}

BOOST_AUTO_TEST_CASE(round_trip_factorization_files) {
  temp_dir t;
  sample_set ss(t, 2, 30, 1, 8, 13);
  st::store s = ss.write();
  s.set_policy(true, true);  // fsync + drop the page cache: same bits
  const i64 n = 30, rows = 7, ld = 9;
  const auto data = random_doubles(static_cast<std::size_t>(ld * n), 99);

  // progress
  BOOST_TEST(!s.read_progress().has_value());
  st::progress_record pr;
  pr.stripe = 7;
  pr.substripe = 3;
  pr.meta = 2;
  pr.pivot = 1;
  pr.engine = "cpu/openblas";
  pr.groups_done = 5;
  s.write_progress(pr);
  auto pr2 = s.read_progress();
  BOOST_REQUIRE(pr2.has_value());
  BOOST_TEST(pr2->stripe == 7);
  BOOST_TEST(pr2->substripe == 3);
  BOOST_TEST(pr2->meta == 2);
  BOOST_TEST(pr2->pivot == 1);
  BOOST_TEST(pr2->engine == "cpu/openblas");
  BOOST_TEST(pr2->groups_done == 5);

  // active part: columns [col0, n)
  BOOST_TEST(!s.read_active_header(3).has_value());
  const i64 col0 = 11;
  s.write_active(3, rows, 4, col0, data.data() + col0 * ld, ld);
  auto ah = s.read_active_header(3);
  BOOST_REQUIRE(ah.has_value());
  BOOST_TEST(ah->groups_applied == 4);
  BOOST_TEST(ah->col0 == col0);
  std::vector<double> back(static_cast<std::size_t>(rows * (n - col0)));
  s.read_active(3, rows, col0, back.data(), rows);
  BOOST_TEST(same_block(back.data(), rows, data.data() + col0 * ld, ld, rows, n - col0));
  // the whole active stripe fully factored away: col0 == n, an empty payload
  s.write_active(2, rows, 9, n, nullptr, rows);
  BOOST_TEST(s.read_active_header(2)->col0 == n);
  s.read_active(2, rows, n, nullptr, rows);
  s.remove_active(3);
  BOOST_TEST(!s.read_active_header(3).has_value());
  s.remove_active(3);  // removing a missing file is fine

  // L segments
  BOOST_TEST(s.lsegments(5).empty());
  s.write_lsegment(5, rows, 14, 21, data.data() + 14 * ld, ld);
  s.write_lsegment(5, rows, 0, 7, data.data(), ld);
  s.write_lsegment(5, rows, 7, 14, data.data() + 7 * ld, ld);
  s.write_lsegment(4, rows, 0, 7, data.data(), ld);
  // names that are not this stripe's segments are ignored
  const fs::path d5 = fs::path(ss.dirs[5 % 2]);
  write_bytes(d5 / "lseg_5_1_x.bin", {1, 2, 3});
  write_bytes(d5 / "lseg_55_0_7.bin", {1, 2, 3});
  write_bytes(d5 / "lseg_5_0_7.bin.tmp.junk", {1, 2, 3});
  write_bytes(d5 / "lseg_5_07_14.bin", {1, 2, 3});  // not a canonical number
  const auto segs = s.lsegments(5);
  BOOST_TEST((segs == std::vector<std::pair<i64, i64>>{{0, 7}, {7, 14}, {14, 21}}));
  for (const auto& [c0, c1] : segs) {
    std::vector<double> seg(static_cast<std::size_t>(rows * (c1 - c0)));
    s.read_lsegment(5, rows, c0, c1, seg.data(), rows);
    BOOST_TEST(same_block(seg.data(), rows, data.data() + c0 * ld, ld, rows, c1 - c0));
  }
  s.remove_lsegments(5);
  BOOST_TEST(s.lsegments(5).empty());
  BOOST_TEST(s.lsegments(4).size() == 1u);
  BOOST_TEST(fs::exists(d5 / "lseg_55_0_7.bin"));

  // LU with pivots, read by column ranges
  std::vector<i64> piv(static_cast<std::size_t>(rows));
  for (i64 r = 0; r < rows; ++r) piv[static_cast<std::size_t>(r)] = (r * 5 + 3) % rows;
  BOOST_TEST(!s.has_lu(1));
  s.write_lu(1, rows, data.data(), ld, piv.data());
  BOOST_TEST(s.has_lu(1));
  for (auto [c0, c1] : std::vector<std::pair<i64, i64>>{{0, n}, {0, 1}, {5, 17}, {29, 30}, {12, 12}}) {
    std::vector<double> lu(static_cast<std::size_t>(ld * std::max<i64>(1, c1 - c0)), -1.0);
    std::vector<i64> p2(static_cast<std::size_t>(rows), -1);
    s.read_lu(1, rows, c0, c1, lu.data(), ld, p2.data());
    BOOST_TEST(same_block(lu.data(), ld, data.data() + c0 * ld, ld, rows, c1 - c0));
    BOOST_TEST(p2 == piv);
  }
  std::vector<double> lu(static_cast<std::size_t>(rows * n));
  s.read_lu(1, rows, 0, n, lu.data(), rows, nullptr);
  BOOST_TEST(same_block(lu.data(), rows, data.data(), ld, rows, n));
  // without pivots
  s.write_lu(0, rows, data.data(), ld, nullptr);
  s.read_lu(0, rows, 0, n, lu.data(), rows, nullptr);
  BOOST_TEST(same_block(lu.data(), rows, data.data(), ld, rows, n));
  std::vector<i64> p3(static_cast<std::size_t>(rows));
  auto e = expect_storage_error([&] { s.read_lu(0, rows, 0, n, lu.data(), rows, p3.data()); });
  BOOST_TEST(contains(e.what(), "row interchanges"));

  // clear_factorization keeps the original system only
  s.clear_factorization();
  BOOST_TEST(!s.read_progress().has_value());
  BOOST_TEST(!s.has_lu(1));
  BOOST_TEST(!s.read_active_header(2).has_value());
  BOOST_TEST(s.lsegments(4).empty());
  BOOST_TEST(fs::exists(d5 / "lseg_5_1_x.bin"));  // not an ExaLA name: kept
  st::store again = st::store::open(ss.dirs);
  std::vector<double> a(static_cast<std::size_t>(n * n));
  again.read_original(0, n, 0, n, a.data(), n);
  BOOST_TEST(same_bits(a.data(), ss.a.data(), a.size()));
}

BOOST_AUTO_TEST_CASE(multi_directory_round_robin) {
  temp_dir t;
  sample_set ss(t, 3, 50, 1, 6, 14);  // 9 stripes over 3 directories
  st::store s = ss.write();
  for (i64 i = 0; i < ss.stripes(); ++i)
    for (std::size_t d = 0; d < 3; ++d) {
      const bool here = fs::exists(fs::path(ss.dirs[d]) / ("orig_" + std::to_string(i) + ".bin"));
      BOOST_TEST(here == (static_cast<std::size_t>(i) % 3 == d), "stripe " << i << " dir " << d);
    }
  for (const char* f : {"manifest", "rhs.bin", "xtrue.bin"}) {
    BOOST_TEST(fs::exists(fs::path(ss.dirs[0]) / f));
    BOOST_TEST(!fs::exists(fs::path(ss.dirs[1]) / f));
  }
  // factorization files follow the same rule
  const auto data = random_doubles(6 * 50, 3);
  s.write_lu(4, 6, data.data(), 6, nullptr);
  s.write_active(5, 6, 0, 0, data.data(), 6);
  BOOST_TEST(fs::exists(fs::path(ss.dirs[1]) / "lu_4.bin"));
  BOOST_TEST(fs::exists(fs::path(ss.dirs[2]) / "act_5.bin"));
  // opened with another directory list: refused, clearly
  auto e = expect_storage_error([&] {
    st::store::open({ss.dirs[0], ss.dirs[1]});
  });
  BOOST_TEST(contains(e.what(), "3 directories"));
}

BOOST_AUTO_TEST_CASE(read_original_any_row_range) {
  temp_dir t;
  sample_set ss(t, 2, 47, 1, 8, 15);
  st::store s = ss.write();
  const i64 n = ss.n;
  const std::vector<std::array<i64, 4>> cases = {
      {0, 47, 0, 47}, {0, 8, 0, 47},  {8, 8, 3, 9},  {5, 10, 0, 47}, {7, 2, 46, 47},
      {3, 40, 10, 30}, {40, 7, 0, 1}, {46, 1, 0, 47}, {16, 16, 20, 21}, {1, 45, 1, 46}, {9, 0, 0, 5}, {9, 3, 4, 4}};
  for (const auto& c : cases) {
    const i64 row0 = c[0], rows = c[1], c0 = c[2], c1 = c[3];
    for (i64 ld : {std::max<i64>(1, rows), rows + 2}) {
      std::vector<double> dst(static_cast<std::size_t>(ld * std::max<i64>(1, c1 - c0)), -3.0);
      s.read_original(row0, rows, c0, c1, dst.data(), ld);
      BOOST_TEST(same_block(dst.data(), ld, ss.a.data() + c0 * n + row0, n, rows, c1 - c0),
                 "rows [" << row0 << ", +" << rows << ") cols [" << c0 << ", " << c1 << ") ld " << ld);
      if (ld > rows && c1 > c0) BOOST_TEST(dst[static_cast<std::size_t>(rows)] == -3.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(read_original_multi_chunk_files) {
  // Stripes of 2.3 MB (three 1 MiB checksum chunks): column ranges that
  // start and end inside chunks, through the direct and the staged path.
  temp_dir t;
  sample_set ss(t, 2, 600, 1, 480, 16);
  st::store s = ss.write();
  const i64 n = ss.n;
  struct rc { i64 row0, rows, c0, c1, ld; };
  for (const rc c : {rc{0, 480, 0, 600, 480}, rc{0, 480, 1, 599, 480}, rc{0, 480, 273, 274, 480},
                     rc{0, 480, 100, 400, 481}, rc{0, 600, 0, 600, 600}, rc{100, 450, 200, 600, 450},
                     rc{480, 120, 5, 590, 120}}) {
    std::vector<double> dst(static_cast<std::size_t>(c.ld * (c.c1 - c.c0)));
    s.read_original(c.row0, c.rows, c.c0, c.c1, dst.data(), c.ld);
    BOOST_TEST(same_block(dst.data(), c.ld, ss.a.data() + c.c0 * n + c.row0, n, c.rows, c.c1 - c.c0),
               "rows [" << c.row0 << ", +" << c.rows << ") cols [" << c.c0 << ", " << c.c1 << ")");
  }
  // A flipped byte inside the third chunk is found by a read of a column
  // range that touches that chunk only, and not by one that does not.
  const fs::path p = ss.orig(0);
  auto bytes = read_bytes(p);
  const std::size_t data0 = bytes.size() - 480 * 600 * 8;
  const std::size_t flip = data0 + (std::size_t{2} << 20) + 12345;
  bytes[flip] ^= 0x10;
  write_bytes(p, bytes);
  std::vector<double> dst(480 * 600);
  const i64 col_of_flip = static_cast<i64>((flip - data0) / (480 * 8));
  auto e = expect_storage_error([&] { s.read_original(0, 480, col_of_flip, col_of_flip + 1, dst.data(), 480); });
  BOOST_TEST(contains(e.what(), "checksum mismatch"));
  BOOST_TEST(e.stripe() == 0);
  s.read_original(0, 480, 0, 100, dst.data(), 480);  // chunk 0 only: fine
  BOOST_TEST(same_block(dst.data(), 480, ss.a.data(), n, 480, 100));
}

// Under the drop policy the payload's aligned body is read with O_DIRECT
// (page cache bypassed) where the destination and the file offset are
// 4096-aligned; the rest, and every read without the policy, is buffered.
// Same bits either way, and a flipped byte is still found.
BOOST_AUTO_TEST_CASE(direct_reads_under_the_drop_policy) {
  temp_dir t;
  // Does this file system take O_DIRECT reads? (tmpfs before Linux 6.6 does not.)
  bool fs_direct = false;
  {
    const fs::path probe = t.path / "probe";
    write_bytes(probe, std::vector<unsigned char>(8192, 'x'));
    const int fd = ::open(probe.c_str(), O_RDONLY | O_DIRECT);
    if (fd >= 0) {
      st::host_array buf(1 << 17);  // 1 MiB: page-aligned
      fs_direct = ::pread(fd, buf.data(), 4096, 4096) == 4096;
      ::close(fd);
    }
  }
  if (!fs_direct) BOOST_TEST_MESSAGE("O_DIRECT is refused under " << t.path << ": only the fallback is checked");
  // rows 480: column c starts at byte 3840 c, 4096-aligned where c % 16 == 0.
  sample_set ss(t, 1, 600, 1, 480, 19);
  st::store s = ss.write();
  const i64 n = ss.n;
  st::host_array big(std::size_t(600 * 600) + 512);  // page-aligned
  struct rc {
    i64 row0, rows, c0, c1;
    std::size_t shift;  // doubles: 0 keeps the destination aligned
    bool direct;        // expected to read with O_DIRECT
  };
  for (const bool drop : {false, true}) {
    s.set_policy(false, drop);
    for (const rc c : {rc{0, 480, 0, 600, 0, true}, rc{0, 480, 16, 599, 0, true}, rc{0, 480, 16, 17, 0, false},
                       rc{0, 480, 1, 600, 0, false}, rc{0, 480, 0, 600, 1, false}, rc{480, 120, 0, 600, 0, true},
                       rc{0, 600, 0, 600, 0, false}}) {
      BOOST_TEST_CONTEXT("drop " << drop << " rows [" << c.row0 << ", +" << c.rows << ") cols [" << c.c0 << ", "
                                 << c.c1 << ") shift " << c.shift) {
        double* dst = big.data() + c.shift;
        std::fill(dst, dst + c.rows * (c.c1 - c.c0), -1.0);
        const i64 d0 = s.counters().bytes_read_direct;
        s.read_original(c.row0, c.rows, c.c0, c.c1, dst, c.rows);
        BOOST_TEST(same_block(dst, c.rows, ss.a.data() + c.c0 * n + c.row0, n, c.rows, c.c1 - c.c0));
        const i64 direct = s.counters().bytes_read_direct - d0;
        BOOST_TEST((direct > 0) == (drop && c.direct && fs_direct), "O_DIRECT bytes " << direct);
      }
    }
  }
  // A file system that refuses O_DIRECT: the same bits, buffered, and this
  // store stops trying (a reader opened after the hook is off reads buffered).
  s.set_policy(false, true);
  st::inject_direct_refusal(true);
  const i64 d0 = s.counters().bytes_read_direct;
  s.read_original(0, 480, 0, 600, big.data(), 480);
  st::inject_direct_refusal(false);
  BOOST_TEST(same_block(big.data(), 480, ss.a.data(), n, 480, 600));
  s.read_original(0, 480, 0, 600, big.data(), 480);
  BOOST_TEST(same_block(big.data(), 480, ss.a.data(), n, 480, 600));
  BOOST_TEST(s.counters().bytes_read_direct == d0);
  // A flipped byte in the body is found through the O_DIRECT read too (a
  // fresh store: direct reads on again).
  st::store s2 = st::store::open(ss.dirs);
  s2.set_policy(false, true);
  const fs::path p = ss.orig(0);
  auto bytes = read_bytes(p);
  const std::size_t data0 = bytes.size() - 480 * 600 * 8;
  bytes[data0 + 480 * 8 * 300 + 17] ^= 0x04;
  write_bytes(p, bytes);
  const i64 d1 = s2.counters().bytes_read_direct;
  auto e = expect_storage_error([&] { s2.read_original(0, 480, 0, 600, big.data(), 480); });
  BOOST_TEST(contains(e.what(), "checksum mismatch"), e.what());
  BOOST_TEST((s2.counters().bytes_read_direct > d1) == fs_direct);
}

// ---------------------------------------------------------------------------
// damaged sets
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(truncated_file) {
  temp_dir t;
  sample_set ss(t, 2, 20, 1, 6, 17);
  st::store s = ss.write();
  const fs::path p = ss.orig(1);
  const auto size = fs::file_size(p);
  std::vector<double> dst(400);
  for (std::uintmax_t cut : {std::uintmax_t{1}, std::uintmax_t{200}, size - 10}) {
    fs::resize_file(p, size - cut);
    auto e = expect_storage_error([&] { s.read_original(0, 20, 0, 20, dst.data(), 20); });
    BOOST_TEST(e.stripe() == 1);
    BOOST_TEST(e.path() == p.string());
    BOOST_TEST(contains(e.what(), "truncated: expected " + std::to_string(size) + " bytes, found " +
                                      std::to_string(size - cut)),
               e.what());
    auto e2 = expect_storage_error([&] { st::store::open(ss.dirs); });
    BOOST_TEST(e2.stripe() == 1);
    BOOST_TEST(contains(e2.what(), "truncated"));
  }
  // a longer file is refused too
  fs::resize_file(p, size + 8);
  auto e = expect_storage_error([&] { s.read_original(6, 6, 0, 20, dst.data(), 6); });
  BOOST_TEST(contains(e.what(), "wrong size"));
}

BOOST_AUTO_TEST_CASE(flipped_byte_anywhere) {
  temp_dir t;
  sample_set ss(t, 1, 24, 1, 8, 18);
  st::store s = ss.write();
  const auto piv = std::vector<i64>{3, 1, 2, 0, 7, 5, 6, 4};
  const auto data = random_doubles(8 * 24, 5);
  s.write_lu(2, 8, data.data(), 8, piv.data());
  std::vector<double> dst(24 * 24);
  std::vector<i64> p2(8);

  struct target {
    fs::path path;
    std::function<void()> read;
  };
  const std::vector<target> targets = {
      {ss.orig(1), [&] { s.read_original(0, 24, 0, 24, dst.data(), 24); }},
      {fs::path(ss.dirs[0]) / "lu_2.bin", [&] { s.read_lu(2, 8, 0, 24, dst.data(), 8, p2.data()); }},
      {fs::path(ss.dirs[0]) / "rhs.bin", [&] { s.read_rhs(dst.data(), 24); }},
      {fs::path(ss.dirs[0]) / "manifest", [&] { st::store::open(ss.dirs); }},
  };
  for (const auto& tg : targets) {
    const auto good = read_bytes(tg.path);
    const std::size_t size = good.size();
    // header words (identities at 120..151), the chunk table, the padding,
    // data start/middle/end
    std::vector<std::size_t> offsets = {0,   5,   8,   12,  16,  24,  33,  48,  72,  80,  96,  104, 119, 120,
                                        127, 128, 131, 136, 144, 151, 152, 200, 247, 248, 255, 256, 259, 264,
                                        300, 4095};
    const std::size_t data0 = 4096;
    for (std::size_t o : {data0, data0 + 1, (data0 + size) / 2, size - 1}) offsets.push_back(o);
    for (std::size_t o : offsets) {
      for (unsigned char mask : {0x01, 0x80}) {
        auto bad = good;
        bad[o] ^= mask;
        write_bytes(tg.path, bad);
        auto e = expect_storage_error(tg.read);
        BOOST_TEST(e.path() == tg.path.string(), "offset " << o);
        if (o >= data0) BOOST_TEST(contains(e.what(), "checksum mismatch"), e.what());
        if (o >= 12 && o < 256) BOOST_TEST(contains(e.what(), "header checksum mismatch"), e.what());
        if (o >= 256 && o < 264) BOOST_TEST(contains(e.what(), "checksum mismatch in the chunk table"), e.what());
        if (o >= 264 && o < data0) BOOST_TEST(contains(e.what(), "padding"), e.what());
      }
    }
    write_bytes(tg.path, good);
    tg.read();  // restored: reads again
  }
  // the LU's pivots are covered too (payload end)
  BOOST_TEST(p2 == piv);
}

BOOST_AUTO_TEST_CASE(missing_file) {
  temp_dir t;
  sample_set ss(t, 3, 20, 1, 5, 19);
  st::store s = ss.write();
  fs::remove(ss.orig(2));
  std::vector<double> dst(400);
  auto e = expect_storage_error([&] { s.read_original(9, 3, 0, 20, dst.data(), 3); });
  BOOST_TEST(e.stripe() == 2);
  BOOST_TEST(e.path() == ss.orig(2).string());
  BOOST_TEST(contains(e.what(), "missing"));
  s.read_original(0, 10, 0, 20, dst.data(), 10);  // stripes 0, 1 still read
  auto e2 = expect_storage_error([&] { st::store::open(ss.dirs); });
  BOOST_TEST(e2.stripe() == 2);
  BOOST_TEST(contains(e2.what(), "missing"));
  fs::remove(fs::path(ss.dirs[0]) / "rhs.bin");
  auto e3 = expect_storage_error([&] { s.read_rhs(dst.data(), 20); });
  BOOST_TEST(e3.stripe() == -1);
  BOOST_TEST(contains(e3.what(), "rhs.bin"));
}

BOOST_AUTO_TEST_CASE(wrong_kind_version_and_misplaced_files) {
  temp_dir t;
  sample_set ss(t, 1, 20, 1, 5, 20);
  st::store s = ss.write();
  std::vector<double> dst(400);
  // An act_ file of the same size in place of an orig_ file: wrong kind.
  s.write_active(1, 5, 0, 0, ss.a.data(), 20);
  const fs::path act = fs::path(ss.dirs[0]) / "act_1.bin";
  const auto good = read_bytes(ss.orig(1));
  fs::copy_file(act, ss.orig(1), fs::copy_options::overwrite_existing);
  auto e = expect_storage_error([&] { s.read_original(5, 5, 0, 20, dst.data(), 5); });
  BOOST_TEST(contains(e.what(), "wrong kind"), e.what());
  BOOST_TEST(contains(e.what(), "'act'"));
  // orig_2 copied over orig_1: checksums fine, the stripe index is not.
  fs::copy_file(ss.orig(2), ss.orig(1), fs::copy_options::overwrite_existing);
  e = expect_storage_error([&] { s.read_original(5, 5, 0, 20, dst.data(), 5); });
  BOOST_TEST(contains(e.what(), "holds stripe 2 where stripe 1 was expected"), e.what());
  // A future format version (header checksum made consistent).
  auto v3 = good;
  v3[8] = 3;
  const std::uint64_t hc = st::checksum64(v3.data(), 248, 0x4ead);
  std::memcpy(v3.data() + 248, &hc, 8);
  write_bytes(ss.orig(1), v3);
  e = expect_storage_error([&] { s.read_original(5, 5, 0, 20, dst.data(), 5); });
  BOOST_TEST(contains(e.what(), "format version 3 is not supported (this build reads version 2; a newer"), e.what());
  // A file of format version 1 (16-word header, checksum at word 15):
  // refused as such, with advice.
  auto v1 = good;
  v1[8] = 1;
  std::fill(v1.begin() + 120, v1.begin() + 256, 0);
  const std::uint64_t hc1 = st::checksum64(v1.data(), 120, 0x4ead);
  std::memcpy(v1.data() + 120, &hc1, 8);
  write_bytes(ss.orig(1), v1);
  e = expect_storage_error([&] { s.read_original(5, 5, 0, 20, dst.data(), 5); });
  BOOST_TEST(contains(e.what(), "format version 1 is not supported (this build reads version 2; an older "
                                "ExaLA wrote it: generate or import the system again)"),
             e.what());
  // A non-zero reserved word (header checksum made consistent).
  auto rz = good;
  rz[104] = 1;  // word 13
  const std::uint64_t hcr = st::checksum64(rz.data(), 248, 0x4ead);
  std::memcpy(rz.data() + 248, &hcr, 8);
  write_bytes(ss.orig(1), rz);
  e = expect_storage_error([&] { s.read_original(5, 5, 0, 20, dst.data(), 5); });
  BOOST_TEST(contains(e.what(), "reserved words are not zero"), e.what());
  // Not an ExaLA file at all.
  std::vector<unsigned char> junk(good.size(), 'x');
  write_bytes(ss.orig(1), junk);
  e = expect_storage_error([&] { s.read_original(5, 5, 0, 20, dst.data(), 5); });
  BOOST_TEST(contains(e.what(), "bad magic"), e.what());
  write_bytes(ss.orig(1), good);
  s.read_original(5, 5, 0, 20, dst.data(), 5);
  // A read that expects other dimensions than the file holds.
  e = expect_storage_error([&] { s.read_active(1, 5, 3, dst.data(), 5); });
  BOOST_TEST(e.stripe() == 1);
}

// ---------------------------------------------------------------------------
// write failures
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(injected_write_fault_keeps_previous_state) {
  temp_dir t;
  sample_set ss(t, 2, 300, 1, 250, 21);  // stripe 0: 600 KB
  st::store s = ss.write();
  const auto before = read_bytes(ss.orig(0));
  const auto other = random_doubles(250 * 300, 77);
  std::vector<double> dst(250 * 300);
  for (i64 budget : {i64{0}, i64{100}, i64{4096}, i64{300000}, i64{250 * 300 * 8}}) {
    // A new system over the old one: its first stripe fails.
    {
      st::store s2 = st::store::create(ss.dirs, 300, 1, 250, true);
      st::inject_write_fault(budget);
      const i64 written_before = s2.counters().bytes_written.load();
      auto e = expect_storage_error([&] { s2.write_original(0, other.data(), 250); });
      st::inject_write_fault(-1);
      const fs::path staged = fs::path(ss.dirs[0]) / ".exala-staging" / "orig_0.bin";
      BOOST_TEST(e.stripe() == 0);
      BOOST_TEST(e.path() == staged.string());
      BOOST_TEST(contains(e.what(), "stripe 0"));
      BOOST_TEST(contains(e.what(), "orig_0.bin"));
      BOOST_TEST(contains(e.what(), "no space left on device"), e.what());
      BOOST_TEST(contains(e.what(), "the previous state is kept"));
      BOOST_TEST(s2.counters().bytes_written.load() - written_before == budget);
      BOOST_TEST(temporaries(ss.dirs).empty());
      BOOST_TEST(temporaries({(fs::path(ss.dirs[0]) / ".exala-staging").string()}).empty());
    }
    // The unfinished new system is gone; the old one is as it was.
    BOOST_TEST(!fs::exists(fs::path(ss.dirs[0]) / ".exala-staging"));
    BOOST_TEST(read_bytes(ss.orig(0)) == before);
    st::store::open(ss.dirs).read_original(0, 250, 0, 300, dst.data(), 250);
    BOOST_TEST(same_block(dst.data(), 250, ss.a.data(), 300, 250, 300));
  }
  // every later write fails until the budget is reset; other files too
  st::inject_write_fault(10);
  expect_storage_error([&] { s.write_progress(st::progress_record{1, 1, 1, 0, "cpu", 0}); });
  expect_storage_error([&] { s.write_lu(1, 50, other.data(), 50, nullptr); });
  st::inject_write_fault(-1);
  BOOST_TEST(!s.has_lu(1));
  BOOST_TEST(!s.read_progress().has_value());
  BOOST_TEST(temporaries(ss.dirs).empty());
  s.write_lu(1, 50, other.data(), 50, nullptr);  // and now it works
  s.read_lu(1, 50, 0, 300, dst.data(), 50, nullptr);
  BOOST_TEST(same_bits(dst.data(), other.data(), 50 * 300));
  // a finished system is never modified in place
  BOOST_CHECK_THROW(s.write_original(0, other.data(), 250), exala::error);
  BOOST_CHECK_THROW(s.write_rhs(other.data(), 300), exala::error);
}

// The environment variable is read once per process: checked in a child
// process (this executable, re-run on this one test case).
BOOST_AUTO_TEST_CASE(fault_environment_variable) {
  if (const char* dir = std::getenv("EXALA_TEST_STORE_CHILD_DIR")) {
    const std::vector<std::string> dirs = {dir};
    st::store s = st::store::create(dirs, 10, 1, 10, false);
    std::vector<double> a(100, 1.0);
    s.write_original(0, a.data(), 10);  // 4096 + 800 bytes < 5000
    try {
      s.write_original(0, a.data(), 10);
    } catch (const exala::storage_error& e) {
      if (contains(e.what(), "no space left on device")) return;
    }
    BOOST_FAIL("the second write should hit EXALA_FAULT_WRITE_BYTES");
    return;
  }
  temp_dir t;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  env.push_back("EXALA_FAULT_WRITE_BYTES=5000");
  env.push_back("EXALA_TEST_STORE_CHILD_DIR=" + t.sub("child"));
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string arg1 = "--run_test=fault_environment_variable";
  std::string arg2 = "--log_level=nothing";
  std::string arg3 = "--report_level=no";
  char* argv[] = {self.data(), arg1.data(), arg2.data(), arg3.data(), nullptr};
  pid_t pid = 0;
  BOOST_REQUIRE(posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) == 0);
  int status = 0;
  BOOST_REQUIRE(waitpid(pid, &status, 0) == pid);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
  // (an unfinished set: its staged stripe was discarded with the writer)
  BOOST_TEST(fs::exists(t.sub("child")));
  BOOST_TEST(!fs::exists(fs::path(t.sub("child")) / ".exala-staging"));
  BOOST_TEST(temporaries({t.sub("child")}).empty());
}

// ---------------------------------------------------------------------------
// set life cycle
// ---------------------------------------------------------------------------

namespace {

// Every file of the set at dirs read back and compared with ss's data; the
// progress journal of a finished set must be gone when `fresh`.
void expect_set(const sample_set& ss, bool fresh = true) {
  st::store s = st::store::open(ss.dirs);
  BOOST_TEST(s.info().n == ss.n);
  BOOST_TEST(s.info().stripe == ss.stripe);
  std::vector<double> a(static_cast<std::size_t>(ss.n * ss.n)), b(static_cast<std::size_t>(ss.n * ss.nrhs)),
      x(b.size());
  s.read_original(0, ss.n, 0, ss.n, a.data(), ss.n);
  BOOST_TEST(same_bits(a.data(), ss.a.data(), a.size()));
  s.read_rhs(b.data(), ss.n);
  BOOST_TEST(same_bits(b.data(), ss.b.data(), b.size()));
  BOOST_TEST(s.read_xtrue(x.data(), ss.n));
  BOOST_TEST(same_bits(x.data(), ss.x.data(), x.size()));
  if (fresh) BOOST_TEST(!s.read_progress().has_value());
}

}  // namespace

BOOST_AUTO_TEST_CASE(create_over_existing_set) {
  // Issue 15 row 9: the old system (with its factorization) stays complete
  // and readable until the new one is; then it is replaced as a whole.
  temp_dir t;
  sample_set ss(t, 2, 40, 1, 5, 22);  // 8 stripes
  {
    st::store s = ss.write();
    s.write_progress(st::progress_record{5, 5, 1, 0, "cpu", 1});
    const auto lu = random_doubles(5 * 40, 9);
    s.write_lu(0, 5, lu.data(), 5, nullptr);
  }
  const fs::path notes = fs::path(ss.dirs[1]) / "notes.txt";
  write_bytes(notes, {'h', 'i'});
  auto e = expect_storage_error([&] { st::store::create(ss.dirs, 20, 1, 5, false); });
  BOOST_TEST(contains(e.what(), "already exists"));
  BOOST_TEST(fs::exists(ss.orig(7)));  // refused: nothing removed
  sample_set ns(t, 2, 20, 1, 5, 122);   // 4 stripes
  {
    // A new set being written, then abandoned: the old set is untouched.
    st::store s2 = st::store::create(ns.dirs, 20, 1, 5, true);
    s2.write_original(0, ns.a.data(), 20);
    expect_set(ss, false);
    BOOST_TEST(st::store::open(ss.dirs).read_progress().has_value());
  }
  expect_set(ss, false);
  BOOST_TEST(!fs::exists(fs::path(ss.dirs[0]) / ".exala-staging"));
  BOOST_TEST(!fs::exists(fs::path(ss.dirs[1]) / ".exala-staging"));
  {
    // Complete, but not finished: the old set is still the one.
    st::store s2 = st::store::create(ns.dirs, 20, 1, 5, true);
    for (i64 i = 0; i < 4; ++i) {
      std::vector<double> part(static_cast<std::size_t>(5 * 20));
      for (i64 j = 0; j < 20; ++j)
        std::memcpy(&part[static_cast<std::size_t>(j * 5)], &ns.a[static_cast<std::size_t>(j * 20 + i * 5)], 40);
      s2.write_original(i, part.data(), 5);
    }
    s2.write_rhs(ns.b.data(), 20);
    s2.write_xtrue(ns.x.data(), 20);
    expect_set(ss, false);
    s2.finish(0.25, 1.5, "new set");
  }
  expect_set(ns);
  for (i64 i = 4; i < 8; ++i) BOOST_TEST(!fs::exists(ss.orig(i)));  // beyond the new count
  BOOST_TEST(!fs::exists(fs::path(ss.dirs[0]) / "progress"));
  BOOST_TEST(!fs::exists(fs::path(ss.dirs[0]) / "lu_0.bin"));
  BOOST_TEST(!fs::exists(fs::path(ss.dirs[0]) / ".exala-staging"));
  BOOST_TEST(fs::exists(notes));  // not ours: kept
  // A writer that misses B cannot finish: the new set stays staged.
  {
    st::store s3 = st::store::create(ss.dirs, 40, 1, 5, true);
    e = expect_storage_error([&] { s3.finish(0, 0, "incomplete"); });
    BOOST_TEST(contains(e.what(), "the right-hand sides of the new system were not written"), e.what());
    expect_set(ns);
  }
  expect_set(ns);
}

BOOST_AUTO_TEST_CASE(partial_set_replaces_a_whole_one) {
  // A set that holds some of its stripes only (a rank's copy in the
  // distributed stripe LU) over an older whole one: the old stripes it does
  // not replace go too, and a crash in its switch-over keeps that rule.
  temp_dir t;
  sample_set ss(t, 1, 20, 1, 5, 57);  // 4 stripes
  ss.write();
  for (bool crash : {false, true}) {
    {
      st::store s = st::store::create(ss.dirs, 20, 0, 5, true);
      const auto d = random_doubles(5 * 20, 58);
      s.write_original(0, d.data(), 5);
      s.write_original(2, d.data(), 5);
      int steps = 0;
      if (crash)  // stop after the first step, then let open() finish it
        st::set_switch_hook([&steps](int) {
          if (steps++ == 1) throw std::runtime_error("crash");
        });
      try {
        s.finish(0, 0, "rank copy");
      } catch (const std::runtime_error&) {
      }
      st::set_switch_hook(nullptr);
      if (crash) BOOST_TEST(fs::exists(fs::path(ss.dirs[0]) / ".exala-staging" / "manifest"));
    }
    st::store p = st::store::open(ss.dirs, true);
    BOOST_TEST(p.info().source == "rank copy");
    BOOST_TEST(fs::exists(ss.orig(0)));
    BOOST_TEST(fs::exists(ss.orig(2)));
    BOOST_TEST(!fs::exists(ss.orig(1)));
    BOOST_TEST(!fs::exists(ss.orig(3)));
    BOOST_TEST(!fs::exists(fs::path(ss.dirs[0]) / "xtrue.bin"));
    std::vector<double> a(100);
    p.read_original(10, 5, 0, 20, a.data(), 5);
    BOOST_TEST(same_bits(a.data(), random_doubles(5 * 20, 58).data(), 100));
    ss.write(true, true, true);  // whole again, for the second round
  }
}

BOOST_AUTO_TEST_CASE(write_fault_while_replacing_keeps_old_system) {
  // Issue 15 row 9: a full disk at any point of writing the new system
  // (stripes, B, x, the manifest) leaves the old system, complete.
  temp_dir t;
  sample_set ss(t, 2, 60, 2, 16, 31);
  ss.write();
  sample_set ns(t, 2, 60, 2, 16, 32);
  const i64 file = 4096 + 16 * 60 * 8;  // one full orig_ file
  for (i64 budget : {i64{0}, i64{5000}, file + 100, 3 * file + 4096, 4 * file - 100, 4 * file + 4096 + 500,
                     4 * file + 2 * (4096 + 960) + 10}) {
    BOOST_TEST_CONTEXT("fault after " << budget << " bytes") {
      st::inject_write_fault(budget);
      try {
        ns.write(true, true, true);
        BOOST_FAIL("no fault");
      } catch (const exala::storage_error& e) {
        BOOST_TEST(contains(e.what(), "no space left on device"), e.what());
      }
      st::inject_write_fault(-1);
      expect_set(ss);
      BOOST_TEST(!fs::exists(fs::path(ss.dirs[0]) / ".exala-staging"));
    }
  }
  ns.write(true, true, true);  // without a fault: replaced
  expect_set(ns);
}

namespace {

// Spawns this test executable on one test case with extra environment
// variables; returns its wait status.
int run_child(const std::string& test, const std::vector<std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  for (const auto& v : extra_env) env.push_back(v);
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string arg1 = "--run_test=" + test;
  std::string arg2 = "--log_level=nothing";
  std::string arg3 = "--report_level=no";
  char* argv[] = {self.data(), arg1.data(), arg2.data(), arg3.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

}  // namespace

BOOST_AUTO_TEST_CASE(crash_while_replacing_leaves_one_whole_system) {
  // Issue 15 row 9: a writer killed at any point - while it writes the new
  // system's files, or at any step of moving them into place - leaves the
  // old system or the new one, complete (the next open finishes or discards
  // what it left). Child processes end themselves (_exit) at the chosen
  // point, as a kill would: no destructor, no cleanup.
  const auto make = [](const temp_dir& t, int which) {
    // The old set: 3 directories, 7 stripes, and a factorization; the new
    // one: 5 stripes of another height, so that old files are removed,
    // replaced and kept.
    return which == 0 ? sample_set(t, 3, 35, 2, 5, 41) : sample_set(t, 3, 35, 1, 7, 42);
  };
  if (const char* dir = std::getenv("EXALA_TEST_STORE_CRASH_DIR")) {
    sample_set ns = make(temp_dir(), 1);  // (its directory, named only, is removed at once: _Exit skips destructors)
    ns.dirs = {std::string(dir) + "/disk0", std::string(dir) + "/disk1", std::string(dir) + "/disk2"};
    const int at = std::atoi(std::getenv("EXALA_TEST_STORE_CRASH_AT"));
    if (at < 0) {  // before the commit point: after -at - 1 stripes
      st::store s = st::store::create(ns.dirs, ns.n, ns.nrhs, ns.stripe, true);
      for (i64 i = 0; i < -at - 1; ++i) {
        std::vector<double> part(static_cast<std::size_t>(ns.rows(i) * ns.n));
        for (i64 j = 0; j < ns.n; ++j)
          std::memcpy(&part[static_cast<std::size_t>(j * ns.rows(i))],
                      &ns.a[static_cast<std::size_t>(j * ns.n + i * ns.stripe)],
                      static_cast<std::size_t>(ns.rows(i)) * 8);
        s.write_original(i, part.data(), ns.rows(i));
      }
      std::_Exit(0);
    }
    st::set_switch_hook([at](int step) {
      if (step == at) std::_Exit(0);
    });
    ns.write(true, true, true);
    std::_Exit(3);  // the switch-over had fewer steps
  }
  // The steps of one switch-over, counted in this process.
  int steps = 0;
  {
    temp_dir t;
    sample_set os = make(t, 0), ns = make(t, 1);
    os.write();
    st::set_switch_hook([&steps](int) { ++steps; });
    ns.write(true, true, true);
    st::set_switch_hook(nullptr);
    expect_set(ns);
  }
  BOOST_TEST_MESSAGE("switch-over steps: " << steps);
  BOOST_TEST(steps >= 10);
  const int new_stripes = static_cast<int>(make(temp_dir(), 1).stripes());
  for (int at = -new_stripes - 1; at < steps; ++at) {
    BOOST_TEST_CONTEXT("crash at " << (at < 0 ? "stripe " : "switch step ") << (at < 0 ? -at - 1 : at)) {
      temp_dir t;
      sample_set os = make(t, 0), ns = make(t, 1);
      {
        st::store s = os.write();
        s.write_progress(st::progress_record{5, 5, 1, 0, "cpu", 1});
        const auto lu = random_doubles(5 * 35, 9);
        s.write_lu(0, 5, lu.data(), 5, nullptr);
      }
      const int status = run_child("crash_while_replacing_leaves_one_whole_system",
                                   {"EXALA_TEST_STORE_CRASH_DIR=" + t.path.string(),
                                    "EXALA_TEST_STORE_CRASH_AT=" + std::to_string(at)});
      BOOST_TEST_REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "child status " << status);
      // Before the commit point the old set, after it the new one.
      if (at < 0) {
        expect_set(os, false);
        BOOST_TEST(st::store::open(os.dirs).read_progress().has_value());
      } else {
        expect_set(ns);
        BOOST_TEST(!fs::exists(fs::path(os.dirs[0]) / "lu_0.bin"));
        for (i64 i = ns.stripes(); i < os.stripes(); ++i) BOOST_TEST(!fs::exists(os.orig(i)));
      }
      for (const auto& d : os.dirs) BOOST_TEST(!fs::exists(fs::path(d) / ".exala-staging"));
    }
  }
}

// ---------------------------------------------------------------------------
// identities (issue 15 row 4): a file from another system or another
// factorization is refused naming it, whatever its sizes and checksums
// ---------------------------------------------------------------------------

namespace {

// A system with a factorization in progress: journal, an active stripe, an
// L segment and a factored stripe.
st::store with_factorization(const sample_set& ss, std::uint64_t seed) {
  st::store s = ss.write();
  s.clear_factorization();
  s.write_progress(st::progress_record{6, 3, 1, 0, "cpu", 1});
  const auto d = random_doubles(6 * 30, seed);
  s.write_lu(0, 6, d.data(), 6, nullptr);
  s.write_active(2, 6, 1, 6, d.data() + 36, 6);
  s.write_lsegment(1, 6, 0, 6, d.data(), 6);
  return s;
}

// Every read of the set's files, through a store opened afresh (as a new
// process would); each throws for a foreign file.
void read_everything(const std::vector<std::string>& dirs) {
  st::store s = st::store::open(dirs);
  std::vector<double> buf(30 * 30);
  s.read_original(0, 30, 0, 30, buf.data(), 30);
  s.read_rhs(buf.data(), 30);
  s.read_xtrue(buf.data(), 30);
  BOOST_REQUIRE(s.read_progress().has_value());
  s.read_lu(0, 6, 0, 30, buf.data(), 6, nullptr);
  BOOST_REQUIRE(s.read_active_header(2).has_value());
  s.read_active(2, 6, 6, buf.data(), 6);
  s.read_lsegment(1, 6, 0, 6, buf.data(), 6);
}

}  // namespace

BOOST_AUTO_TEST_CASE(foreign_files_are_refused) {
  temp_dir t;
  // Two systems of the same shape (n, stripe, nrhs), each with a
  // factorization of the same parameters.
  sample_set xs(t, 1, 30, 1, 6, 51);
  sample_set ys(t, 1, 30, 1, 6, 52);
  ys.dirs = {t.sub("other")};
  with_factorization(xs, 1);
  with_factorization(ys, 2);
  read_everything(xs.dirs);
  {
    st::store a = st::store::open(xs.dirs), b = st::store::open(ys.dirs);
    BOOST_TEST(!(a.info().system_id == b.info().system_id));
    BOOST_TEST(!a.info().system_id.empty());
  }
  const fs::path x = xs.dirs[0], y = ys.dirs[0];
  for (const char* name : {"orig_3.bin", "rhs.bin", "xtrue.bin", "progress", "lu_0.bin", "act_2.bin",
                           "lseg_1_0_6.bin"}) {
    BOOST_TEST_CONTEXT(name) {
      const auto good = read_bytes(x / name);
      fs::copy_file(y / name, x / name, fs::copy_options::overwrite_existing);
      auto e = expect_storage_error([&] { read_everything(xs.dirs); });
      BOOST_TEST(e.path() == (x / name).string());
      BOOST_TEST(contains(e.what(), "belongs to another system"), e.what());
      const bool factorization = std::string(name).find(".bin") == std::string::npos ||
                                 contains(name, "lu_") || contains(name, "act_") || contains(name, "lseg_");
      BOOST_TEST(contains(e.what(), factorization ? "start the factorization over" : "generate or import"),
                 e.what());
      write_bytes(x / name, good);
      read_everything(xs.dirs);
    }
  }
  // The manifest of the other system: then every stripe is foreign.
  const auto man = read_bytes(x / "manifest");
  fs::copy_file(y / "manifest", x / "manifest", fs::copy_options::overwrite_existing);
  auto e = expect_storage_error([&] { read_everything(xs.dirs); });
  BOOST_TEST(contains(e.what(), "belongs to another system"), e.what());
  write_bytes(x / "manifest", man);
  read_everything(xs.dirs);
}

BOOST_AUTO_TEST_CASE(files_of_another_factorization_are_refused) {
  temp_dir t;
  sample_set xs(t, 1, 30, 1, 6, 53);
  const fs::path x = xs.dirs[0];
  const std::vector<std::string> names = {"lu_0.bin", "act_2.bin", "lseg_1_0_6.bin"};
  std::vector<std::vector<unsigned char>> old;
  {
    st::store s = with_factorization(xs, 3);
    BOOST_TEST(!s.factorization_id().empty());
    for (const auto& n : names) old.push_back(read_bytes(x / n));
  }
  // A new factorization of the same system, same parameters, same bits.
  {
    st::store s = st::store::open(xs.dirs);
    BOOST_REQUIRE(s.read_progress().has_value());
    const st::id128 f1 = s.factorization_id();
    s.clear_factorization();
    BOOST_TEST(!(s.factorization_id() == f1));
    BOOST_TEST(!fs::exists(x / "lu_0.bin"));
    BOOST_TEST(!fs::exists(x / "progress"));
    s.write_progress(st::progress_record{6, 3, 1, 0, "cpu", 1});
    const auto d = random_doubles(6 * 30, 3);
    s.write_lu(0, 6, d.data(), 6, nullptr);
    s.write_active(2, 6, 1, 6, d.data() + 36, 6);
    s.write_lsegment(1, 6, 0, 6, d.data(), 6);
  }
  read_everything(xs.dirs);
  // The first factorization's files, copied back in: refused, although
  // they hold the same bits, sizes and system id.
  for (std::size_t i = 0; i < names.size(); ++i) {
    BOOST_TEST_CONTEXT(names[i]) {
      const auto good = read_bytes(x / names[i]);
      write_bytes(x / names[i], old[i]);
      auto e = expect_storage_error([&] { read_everything(xs.dirs); });
      BOOST_TEST(e.path() == (x / names[i]).string());
      BOOST_TEST(contains(e.what(), "belongs to another factorization"), e.what());
      BOOST_TEST(contains(e.what(), "start the factorization over (exala solve --restart"), e.what());
      write_bytes(x / names[i], good);
    }
  }
  read_everything(xs.dirs);
  // A store that reads a factorization file before the journal adopts the
  // journal's id (a resumed run's I/O threads may); without a journal, the
  // files are refused.
  {
    st::store s = st::store::open(xs.dirs);
    std::vector<double> buf(6 * 30);
    s.read_lu(0, 6, 0, 30, buf.data(), 6, nullptr);
    BOOST_TEST(s.read_progress().has_value());
  }
  fs::remove(x / "progress");
  {
    st::store s = st::store::open(xs.dirs);
    std::vector<double> buf(6 * 30);
    auto e = expect_storage_error([&] { s.read_lu(0, 6, 0, 30, buf.data(), 6, nullptr); });
    BOOST_TEST(contains(e.what(), "belongs to another factorization"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(progress_record_values_are_checked) {
  // A journal's values are used in sizes and loops (groups_done * meta):
  // out-of-range values are refused before anyone computes with them.
  temp_dir t;
  sample_set ss(t, 1, 20, 1, 5, 54);
  st::store s = ss.write();
  for (const auto& pr : {st::progress_record{0, 1, 1, 0, "cpu", 0}, st::progress_record{21, 1, 1, 0, "cpu", 0},
                         st::progress_record{4, 5, 1, 0, "cpu", 0}, st::progress_record{4, 2, 0, 0, "cpu", 0},
                         st::progress_record{4, 2, 1, 7, "cpu", 0},
                         st::progress_record{4, 2, 1, 0, "cpu", i64{1} << 62},
                         st::progress_record{4, 2, i64{1} << 62, 0, "cpu", 2}}) {
    s.write_progress(pr);
    auto e = expect_storage_error([&] { st::store::open(ss.dirs).read_progress(); });
    BOOST_TEST(contains(e.what(), "inconsistent progress record"), e.what());
  }
  s.write_progress(st::progress_record{4, 2, 1, 1, "cpu", 5});
  BOOST_TEST(st::store::open(ss.dirs).read_progress()->groups_done == 5);
}

BOOST_AUTO_TEST_CASE(errors_name_the_real_cause) {
  // Issue 15 row 12: a work directory that cannot be read is not "missing".
  temp_dir t;
  sample_set ss(t, 1, 10, 1, 5, 55);
  ss.write();
  const fs::path man = fs::path(ss.dirs[0]) / "manifest";
  const auto good = read_bytes(man);
  fs::remove(man);
  fs::create_symlink("manifest", man);  // a loop of links
  auto e = expect_storage_error([&] { st::store::open(ss.dirs); });
  BOOST_TEST(contains(e.what(), "Too many levels of symbolic links"), e.what());
  BOOST_TEST(!contains(e.what(), "missing"), e.what());
  fs::remove(man);
  write_bytes(man, good);
  if (::geteuid() != 0) {  // (root reads everything)
    fs::permissions(ss.dirs[0], fs::perms::none);
    e = expect_storage_error([&] { st::store::open(ss.dirs); });
    fs::permissions(ss.dirs[0], fs::perms::owner_all);
    BOOST_TEST(contains(e.what(), "Permission denied"), e.what());
    BOOST_TEST(!contains(e.what(), "missing"), e.what());
  }
  st::store::open(ss.dirs);
}

BOOST_AUTO_TEST_CASE(address_arithmetic_is_checked) {
  // Leading dimensions whose last address, or ld * 8, overflows: an
  // argument error naming ld, before any memory is touched.
  temp_dir t;
  sample_set ss(t, 1, 10, 1, 5, 56);
  st::store s = ss.write();
  double one = 0;
  const i64 huge = i64{1} << 62;
  expect_invalid_argument([&] { s.read_original(0, 1, 0, 1, &one, huge); }, "ld");
  expect_invalid_argument([&] { s.read_original(0, 5, 0, 10, &one, i64{1} << 58); }, "ld");
  expect_invalid_argument([&] { s.read_rhs(&one, huge); }, "ldb");
  expect_invalid_argument([&] { s.write_lu(0, 5, &one, huge, nullptr); }, "ld");
  expect_invalid_argument([&] { s.write_active(0, 5, 0, 9, &one, huge); }, "ld");
  st::store s2 = st::store::create({t.sub("w")}, 10, 1, 5, false);
  expect_invalid_argument([&] { s2.write_original(0, &one, huge); }, "ld");
  expect_invalid_argument([&] { s2.write_rhs(&one, huge); }, "ldb");
  expect_invalid_argument([&] { st::store::create({t.sub("v")}, i64{1} << 40, 1, i64{1} << 30, false); },
                          "stripe");
}

BOOST_AUTO_TEST_CASE(open_incomplete_set_and_leftover_temporaries) {
  temp_dir t;
  sample_set ss(t, 2, 20, 1, 5, 23);
  {
    st::store s = ss.write(true, false);  // no finish(): no manifest
  }
  auto e = expect_storage_error([&] { st::store::open(ss.dirs); });
  BOOST_TEST(contains(e.what(), "manifest"));
  BOOST_TEST(e.stripe() == -1);
  auto e2 = expect_storage_error([&] { st::store::open({t.sub("nothing_here")}); });
  BOOST_TEST(contains(e2.what(), "missing"));
  // finish it, leave temporaries of a killed writer: open removes them
  {
    st::store s = ss.write();
  }
  const fs::path tmp1 = fs::path(ss.dirs[1]) / "orig_1.bin.tmp.12345.0";
  const fs::path tmp2 = fs::path(ss.dirs[0]) / "manifest.tmp.999.12";
  const fs::path keep = fs::path(ss.dirs[0]) / "mydata.tmp.1.2";
  for (const auto& p : {tmp1, tmp2, keep}) write_bytes(p, {1, 2, 3});
  // and the staging directory of a writer killed before its manifest
  fs::create_directories(fs::path(ss.dirs[1]) / ".exala-staging");
  write_bytes(fs::path(ss.dirs[1]) / ".exala-staging" / "orig_1.bin", {1, 2, 3});
  st::store s = st::store::open(ss.dirs);
  BOOST_TEST(!fs::exists(tmp1));
  BOOST_TEST(!fs::exists(tmp2));
  BOOST_TEST(fs::exists(keep));
  BOOST_TEST(!fs::exists(fs::path(ss.dirs[1]) / ".exala-staging"));
  expect_set(ss);
}

BOOST_AUTO_TEST_CASE(a_live_writer_keeps_its_staging) {
  // An open() while a writer of the same set is at work (here, in this
  // process) leaves the writer's files alone; a second writer is refused.
  temp_dir t;
  sample_set ss(t, 1, 12, 1, 4, 24);
  st::store w = st::store::create(ss.dirs, 12, 1, 4, false);
  w.write_original(0, ss.a.data(), 12);
  BOOST_CHECK_THROW(st::store::open(ss.dirs), exala::storage_error);  // no system yet
  auto e = expect_storage_error([&] { st::store::create(ss.dirs, 12, 1, 4, true); });
  BOOST_TEST(contains(e.what(), "another writer"), e.what());
  BOOST_TEST(fs::exists(fs::path(ss.dirs[0]) / ".exala-staging" / "orig_0.bin"));
  w.write_original(1, ss.a.data() + 4, 12);
  w.write_original(2, ss.a.data() + 8, 12);
  w.write_rhs(ss.b.data(), 12);
  w.write_xtrue(ss.x.data(), 12);
  w.finish(0, 0, "live");
  expect_set(ss);
}

BOOST_AUTO_TEST_CASE(concurrent_reads_and_writes) {
  temp_dir t;
  sample_set ss(t, 2, 64, 1, 8, 24);
  st::store s = ss.write();
  const i64 w0 = s.counters().bytes_written.load(), f0 = s.counters().files_written.load();
  std::atomic<int> failures{0};
  std::vector<std::thread> th;
  for (int k = 0; k < 4; ++k)
    th.emplace_back([&, k] {
      const auto data = random_doubles(8 * 64, 100 + k);
      std::vector<double> back(8 * 64);
      for (int rep = 0; rep < 5; ++rep)
        for (i64 i = k; i < 8; i += 4) {
          s.write_lu(i, 8, data.data(), 8, nullptr);
          s.read_lu(i, 8, 0, 64, back.data(), 8, nullptr);
          if (!same_bits(back.data(), data.data(), back.size())) ++failures;
          s.read_original(i * 8, 8, 0, 64, back.data(), 8);
          if (!same_block(back.data(), 8, ss.a.data() + i * 8, 64, 8, 64)) ++failures;
        }
    });
  for (auto& x : th) x.join();
  BOOST_TEST(failures.load() == 0);
  BOOST_TEST(s.counters().files_written.load() - f0 == 40);
  const i64 lu_file = 4096 + 8 * 64 * 8;
  BOOST_TEST(s.counters().bytes_written.load() - w0 == 40 * lu_file);
  BOOST_TEST(temporaries(ss.dirs).empty());
}

BOOST_AUTO_TEST_CASE(store_argument_checks) {
  temp_dir t;
  sample_set ss(t, 1, 20, 1, 5, 25);
  st::store s = ss.write();
  std::vector<double> dst(400);
  expect_invalid_argument([&] { s.read_original(-1, 2, 0, 20, dst.data(), 2); }, "row0");
  expect_invalid_argument([&] { s.read_original(15, 6, 0, 20, dst.data(), 6); }, "rows");
  expect_invalid_argument([&] { s.read_original(0, 2, 5, 4, dst.data(), 2); }, "c1");
  expect_invalid_argument([&] { s.read_original(0, 2, 0, 21, dst.data(), 2); }, "c1");
  expect_invalid_argument([&] { s.read_original(0, 4, 0, 20, dst.data(), 3); }, "ld");
  expect_invalid_argument([&] { s.read_original(0, 4, 0, 20, nullptr, 4); }, "dst");
  expect_invalid_argument([&] { s.write_original(4, ss.a.data(), 5); }, "index");
  expect_invalid_argument([&] { s.write_original(0, ss.a.data(), 4); }, "ld");
  expect_invalid_argument([&] { s.write_original(0, nullptr, 5); }, "data");
  expect_invalid_argument([&] { s.write_rhs(ss.b.data(), 19); }, "ldb");
  expect_invalid_argument([&] { s.write_lsegment(0, 5, 4, 4, ss.a.data(), 5); }, "c1");
  expect_invalid_argument([&] { s.write_active(0, 5, 0, 21, ss.a.data(), 5); }, "col0");
  expect_invalid_argument([&] { st::store::create({}, 10, 1, 5, false); }, "workdirs");
  expect_invalid_argument([&] { st::store::create({t.sub("x")}, 0, 1, 5, false); }, "n");
  expect_invalid_argument([&] { st::store::create({t.sub("x")}, 10, 1, 0, false); }, "stripe");
  // a stripe taller than the matrix: one file
  st::store one = st::store::create({t.sub("y")}, 10, 1, 50, false);
  BOOST_TEST(one.info().stripe == 10);
}

// ---------------------------------------------------------------------------
// stripe_system_writer and generate_dense_system
// ---------------------------------------------------------------------------
namespace {

struct loaded_system {
  st::manifest m;
  std::vector<double> a, b, x;
};

loaded_system load(const std::vector<std::string>& dirs) {
  st::store s = st::store::open(dirs);
  loaded_system L;
  L.m = s.info();
  const i64 n = L.m.n, r = L.m.nrhs;
  L.a.resize(static_cast<std::size_t>(n * n));
  L.b.resize(static_cast<std::size_t>(n * r));
  L.x.resize(L.b.size());
  s.read_original(0, n, 0, n, L.a.data(), n);
  s.read_rhs(L.b.data(), n);
  BOOST_TEST(s.read_xtrue(L.x.data(), n) == L.m.has_xtrue);
  return L;
}

// Exact ||A||_inf rounded upward and max|a_ij| for entries that are
// multiples of 2^-53 with |a| < 1/2 (the uniform generator's).
std::pair<double, double> exact_norms_2m53(const std::vector<double>& a, i64 n) {
  unsigned __int128 best = 0;
  double max_abs = 0;
  for (i64 i = 0; i < n; ++i) {
    unsigned __int128 sum = 0;
    for (i64 j = 0; j < n; ++j) {
      const double v = std::fabs(a[static_cast<std::size_t>(j * n + i)]);
      max_abs = std::max(max_abs, v);
      const double k = std::ldexp(v, 53);
      BOOST_REQUIRE(k == std::floor(k));
      sum += static_cast<unsigned __int128>(static_cast<std::uint64_t>(k));
    }
    best = std::max(best, sum);
  }
  // smallest double >= best * 2^-53
  double d = static_cast<double>(static_cast<std::uint64_t>(best));  // best < 2^64 here
  if (static_cast<unsigned __int128>(static_cast<std::uint64_t>(d)) < best) d = std::nextafter(d, 1e300);
  // round-to-nearest conversion may have gone up by more than needed: step back while still >= best
  while (true) {
    const double down = std::nextafter(d, 0.0);
    if (static_cast<unsigned __int128>(static_cast<std::uint64_t>(down)) >= best) d = down;
    else break;
  }
  return {std::ldexp(d, -53), max_abs};
}

double cond2(std::vector<double> a, int n) {
  std::vector<double> s(static_cast<std::size_t>(n));
  int lwork = -1, info = 0, one = 1;
  double q = 0, dummy = 0;
  dgesvd_("N", "N", &n, &n, a.data(), &n, s.data(), &dummy, &one, &dummy, &one, &q, &lwork, &info);
  lwork = static_cast<int>(q);
  std::vector<double> work(static_cast<std::size_t>(lwork));
  dgesvd_("N", "N", &n, &n, a.data(), &n, s.data(), &dummy, &one, &dummy, &one, work.data(), &lwork,
          &info);
  BOOST_REQUIRE(info == 0);
  return s.front() / s.back();
}

}  // namespace

BOOST_AUTO_TEST_CASE(generated_system_independent_of_stripe_height) {
  temp_dir t;
  for (double cond : {0.0, 1e3}) {
    std::vector<loaded_system> sys;
    for (i64 stripe : {1, 7, 64, 100, 1000}) {
      const std::string tag = std::to_string(stripe);
      const std::vector<std::string> dirs = {t.sub("g_" + tag), t.sub("h_" + tag)};
      exala::generate_dense_system(dirs, 100, 2, 42, stripe, cond, true);
      sys.push_back(load(dirs));
      BOOST_TEST(sys.back().m.stripe == std::min<i64>(stripe, 100));
    }
    for (const auto& L : sys) {
      BOOST_TEST(same_bits(L.a.data(), sys[0].a.data(), L.a.size()));
      BOOST_TEST(same_bits(L.b.data(), sys[0].b.data(), L.b.size()));
      BOOST_TEST(same_bits(L.x.data(), sys[0].x.data(), L.x.size()));
      BOOST_TEST(L.m.norm_inf == sys[0].m.norm_inf);
      BOOST_TEST(L.m.max_abs == sys[0].m.max_abs);
      BOOST_TEST(L.m.has_xtrue);
      BOOST_TEST(L.m.nrhs == 2);
      BOOST_TEST(L.m.source == sys[0].m.source);
    }
    // another seed: another system
    const std::vector<std::string> d2 = {t.sub("other")};
    exala::generate_dense_system(d2, 100, 2, 43, 10, cond, true);
    BOOST_TEST(!same_bits(load(d2).a.data(), sys[0].a.data(), 100 * 100));
  }
}

BOOST_AUTO_TEST_CASE(generated_uniform_entries_and_norms) {
  temp_dir t;
  const std::vector<std::string> dirs = {t.sub("u")};
  exala::generate_dense_system(dirs, 150, 1, 7, 16, 0.0);
  const auto L = load(dirs);
  double lo = 1, hi = -1;
  for (double v : L.a) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  BOOST_TEST(lo >= -0.5);
  BOOST_TEST(hi < 0.5);
  BOOST_TEST(lo < -0.49);  // spread over the range
  BOOST_TEST(hi > 0.49);
  for (double v : L.x) BOOST_TEST((v >= -0.5 && v < 0.5));
  const auto [norm, max_abs] = exact_norms_2m53(L.a, 150);
  BOOST_TEST(L.m.norm_inf == norm);
  BOOST_TEST(L.m.max_abs == max_abs);
  BOOST_TEST(contains(L.m.source, "seed=7"));
}

BOOST_AUTO_TEST_CASE(generated_rhs_is_exact_gemv_of_stored_data) {
  temp_dir t;
  for (double cond : {0.0, 1e8}) {
    const std::vector<std::string> dirs = {t.sub("a"), t.sub("b"), t.sub("c")};
    exala::generate_dense_system(dirs, 90, 3, 5, 13, cond, true);
    const auto L = load(dirs);
    std::vector<double> b(90 * 3);
    for (int c = 0; c < 3; ++c)
      exala::gemv(exala::layout::col_major, exala::transpose::none, 90, 90, 1.0, L.a.data(), 90,
                  L.x.data() + c * 90, 1, 0.0, b.data() + c * 90, 1);
    BOOST_TEST(same_bits(b.data(), L.b.data(), b.size()), "cond " << cond);
  }
}

BOOST_AUTO_TEST_CASE(generated_condition_number) {
  temp_dir t;
  for (double cond : {1.0, 10.0, 1e4, 1e8, 1e12}) {
    for (int n : {1, 2, 60, 200}) {
      const std::vector<std::string> dirs = {t.sub("k")};
      exala::generate_dense_system(dirs, n, 1, 11, 32, cond, true);
      const auto L = load(dirs);
      const double k = cond2(L.a, n);
      BOOST_TEST_MESSAGE("n " << n << " cond " << cond << ": measured " << k);
      if (n == 1) {
        BOOST_TEST(k == 1.0);
        continue;
      }
      BOOST_TEST(k <= 2 * cond, "n " << n << " cond " << cond << " measured " << k);
      BOOST_TEST(k >= cond / 2, "n " << n << " cond " << cond << " measured " << k);
      // norms: max|a| exact, ||A||_inf the upward-rounded exact row sum
      double max_abs = 0, norm = 0;
      for (int i = 0; i < n; ++i) {
        long double s = 0;  // 64-bit significand: within 1e-16 relative here
        for (int j = 0; j < n; ++j) {
          max_abs = std::max(max_abs, std::fabs(L.a[static_cast<std::size_t>(j * n + i)]));
          s += std::fabs(static_cast<long double>(L.a[static_cast<std::size_t>(j * n + i)]));
        }
        norm = std::max(norm, static_cast<double>(s));
      }
      BOOST_TEST(L.m.max_abs == max_abs);
      BOOST_TEST(std::fabs(L.m.norm_inf - norm) <= 2 * std::numeric_limits<double>::epsilon() * norm);
    }
  }
}

BOOST_AUTO_TEST_CASE(writer_norm_is_rounded_upward) {
  // Row 0: 1 + 40 * 2^-60 exactly: to nearest that is 1, upward nextafter(1).
  // Row 1: 0.75 in total. Written in two stripes, in reverse order.
  temp_dir t;
  const i64 n = 41;
  std::vector<double> a(static_cast<std::size_t>(2 * n), 0.0);  // ld = 2
  a[0] = 1.0;
  for (i64 j = 1; j < n; ++j) a[static_cast<std::size_t>(2 * j)] = -std::ldexp(1.0, -60);
  a[1] = 0.5;
  a[3] = -0.25;
  const std::vector<std::string> dirs = {t.sub("w")};
  exala::stripe_system_writer w(dirs, n, 1, 1);
  BOOST_TEST(w.stripes() == n);
  std::vector<double> zero(static_cast<std::size_t>(n), 0.0);
  for (i64 i = n - 1; i >= 2; --i) w.write_stripe(i, zero.data(), 1);
  w.write_stripe(1, a.data() + 1, 2);
  w.write_stripe(0, a.data(), 2);
  w.write_rhs(zero.data(), n);
  w.finish("hand-made");
  st::store s = st::store::open(dirs);
  BOOST_TEST(s.info().norm_inf == std::nextafter(1.0, 2.0));
  BOOST_TEST(s.info().max_abs == 1.0);
  BOOST_TEST(!s.info().has_xtrue);
  BOOST_TEST(s.info().source == "hand-made");
}

BOOST_AUTO_TEST_CASE(writer_checks) {
  temp_dir t;
  const std::vector<std::string> dirs = {t.sub("w")};
  const i64 n = 10;
  std::vector<double> a(static_cast<std::size_t>(n * n), 0.25);
  {
    exala::stripe_system_writer w(dirs, n, 1, 4);
    BOOST_TEST(w.stripes() == 3);
    BOOST_TEST(w.stripe_rows(2) == 2);
    expect_invalid_argument([&] { (void)w.stripe_rows(3); }, "index");
    expect_invalid_argument([&] { w.write_stripe(-1, a.data(), 4); }, "index");
    expect_invalid_argument([&] { w.write_stripe(0, nullptr, 4); }, "data");
    expect_invalid_argument([&] { w.write_stripe(0, a.data(), 3); }, "ld");
    // an ld whose last address overflows: refused before a value is read
    expect_invalid_argument([&] { w.write_stripe(0, a.data(), (i64{1} << 60) + 12345); }, "ld");
    a[12] = std::nan("");  // row 2, column 1
    expect_invalid_argument([&] { w.write_stripe(0, a.data(), 10); }, "data");
    a[12] = INFINITY;
    expect_invalid_argument([&] { w.write_stripe(0, a.data(), 10); }, "data");
    a[12] = 0.25;
    w.write_stripe(0, a.data(), 10);
    expect_invalid_argument([&] { w.write_stripe(0, a.data(), 10); }, "index");
    w.write_stripe(2, a.data(), 10);
    w.write_rhs(a.data(), n);
    try {
      w.finish("x");
      BOOST_FAIL("finish with a missing stripe");
    } catch (const exala::error& e) {
      BOOST_TEST(contains(e.what(), "1 of 3 stripes not written (1)"), e.what());
    }
    expect_invalid_argument([&] { w.finish("two\nlines"); }, "source");
    BOOST_CHECK_THROW(st::store::open(dirs), exala::storage_error);  // still incomplete
    w.write_stripe(1, a.data(), 10);
    w.finish("complete");
    BOOST_CHECK_THROW(w.write_stripe(1, a.data(), 10), exala::error);
  }
  BOOST_TEST(st::store::open(dirs).info().norm_inf == 2.5);
  // the writer refuses an existing set unless overwrite
  BOOST_CHECK_THROW(exala::stripe_system_writer(dirs, n, 1, 4), exala::storage_error);
  {
    exala::stripe_system_writer w(dirs, n, 0, 4, true);  // no right-hand sides
    for (i64 i = 0; i < 3; ++i) w.write_stripe(i, a.data() + 4 * i, 10);
    w.finish("no rhs");
  }
  BOOST_TEST(st::store::open(dirs).info().nrhs == 0);
  {
    exala::stripe_system_writer w(dirs, n, 2, 4, true);
    for (i64 i = 0; i < 3; ++i) w.write_stripe(i, a.data() + 4 * i, 10);
    BOOST_CHECK_THROW(w.finish("no rhs"), exala::error);  // B missing
  }
  expect_invalid_argument([&] { exala::stripe_system_writer(dirs, 0, 1, 4, true); }, "n");
  expect_invalid_argument([&] { exala::stripe_system_writer(dirs, 10, -1, 4, true); }, "nrhs");
  expect_invalid_argument([&] { exala::stripe_system_writer(dirs, 10, 1, 0, true); }, "stripe");
  expect_invalid_argument([&] { exala::stripe_system_writer({}, 10, 1, 4, true); }, "workdirs");
}

BOOST_AUTO_TEST_CASE(generate_argument_checks) {
  temp_dir t;
  const std::vector<std::string> dirs = {t.sub("g")};
  expect_invalid_argument([&] { exala::generate_dense_system(dirs, 0, 1, 1, 4, 0); }, "n");
  expect_invalid_argument([&] { exala::generate_dense_system(dirs, 10, -1, 1, 4, 0); }, "nrhs");
  expect_invalid_argument([&] { exala::generate_dense_system(dirs, 10, 1, 1, 0, 0); }, "stripe");
  expect_invalid_argument([&] { exala::generate_dense_system(dirs, 10, 1, 1, 4, 0.5); }, "cond");
  expect_invalid_argument([&] { exala::generate_dense_system(dirs, 10, 1, 1, 4, -2); }, "cond");
  expect_invalid_argument([&] { exala::generate_dense_system(dirs, 10, 1, 1, 4, INFINITY); }, "cond");
  expect_invalid_argument([&] { exala::generate_dense_system(dirs, 10, 1, 1, 4, NAN); }, "cond");
  expect_invalid_argument([&] { exala::generate_dense_system({}, 10, 1, 1, 4, 0); }, "workdirs");
  exala::generate_dense_system(dirs, 10, 1, 1, 4, 0);
  BOOST_CHECK_THROW(exala::generate_dense_system(dirs, 10, 1, 1, 4, 0), exala::storage_error);
  exala::generate_dense_system(dirs, 10, 1, 1, 4, 0, true);
}

BOOST_AUTO_TEST_CASE(option_names) {
  using exala::pivoting;
  using exala::stripe_order;
  for (auto o : {stripe_order::basic, stripe_order::zigzag, stripe_order::meta_zigzag})
    BOOST_TEST((exala::parse_stripe_order(exala::to_string(o)) == o));
  for (auto p : {pivoting::local, pivoting::partial})
    BOOST_TEST((exala::parse_pivoting(exala::to_string(p)) == p));
  BOOST_TEST(exala::to_string(stripe_order::meta_zigzag) == "meta-zigzag");
  try {
    (void)exala::parse_stripe_order("zig", "--order");
    BOOST_FAIL("no throw");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == "--order");
    BOOST_TEST(contains(e.what(), "'zig'"));
    BOOST_TEST(contains(e.what(), "basic, zigzag, meta-zigzag"));
  }
  try {
    (void)exala::parse_pivoting("full");
    BOOST_FAIL("no throw");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == "pivot");
    BOOST_TEST(contains(e.what(), "local, partial"));
  }
}

// ---------------------------------------------------------------------------
// larger sizes (label `long`): timings of the disk tier and the generator
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(large_generate_and_stream, *boost::unit_test::label("long")) {
  temp_dir t;
  const i64 n = 6000, S = 400;
  const std::vector<std::string> dirs = {t.sub("d0"), t.sub("d1")};
  auto seconds_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto t0 = std::chrono::steady_clock::now();
  exala::generate_dense_system(dirs, n, 1, 3, S, 0.0);
  const double gen = seconds_since(t0);
  st::store s = st::store::open(dirs);
  s.set_policy(false, true);  // drop the page cache: the disk is read
  std::vector<double> a(static_cast<std::size_t>(n * S));
  t0 = std::chrono::steady_clock::now();
  for (i64 i = 0; i < n / S; ++i) s.read_original(i * S, S, 0, n, a.data(), S);
  const double rd = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  for (i64 i = 0; i < n / S; ++i) s.write_lu(i, S, a.data(), S, nullptr);
  const double wr = seconds_since(t0);
  // rows spanning files and a column range, strided destination
  std::vector<double> blk(static_cast<std::size_t>(1000 * 500));
  t0 = std::chrono::steady_clock::now();
  s.read_original(150, 1000, 1200, 1700, blk.data(), 1000);
  const double part = seconds_since(t0);
  const double gb = static_cast<double>(n) * n * 8 / 1e9;
  BOOST_TEST_MESSAGE("n " << n << " (" << gb << " GB): generate " << gen << " s, read " << gb / rd
                          << " GB/s, write " << gb / wr << " GB/s, 1000 x 500 block " << part << " s");
  std::vector<double> ref(1000);
  s.read_original(150, 1000, 1699, 1700, ref.data(), 1000);
  BOOST_TEST(same_bits(ref.data(), blk.data() + 499 * 1000, 1000));
}
