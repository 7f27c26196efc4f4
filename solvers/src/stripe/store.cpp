// store.cpp - the disk tier of the stripe LU (see store.hpp for the files).
//
// Guarantee: a reader gets back exactly the bytes a writer handed over, or an
// exala::storage_error naming the stripe and the file; a failed writer leaves
// the previous file untouched. Assumptions stated once: a POSIX file system
// where rename() within a directory is atomic, and a little-endian host (the
// files hold native little-endian words; the magic would not match on a
// big-endian reader).
//
// File format, version 2 (every file of the set, "manifest" and "progress"
// included; version 1, with a 16-word header and no identities, is refused
// with a "format version" message):
//
//   [0, 256)              header: 32 little-endian 64-bit words (layout below)
//   [256, 256 + 8 K)      chunk table: K = ceil(P / 1 MiB) 64-bit checksums,
//                         entry k = checksum64(payload bytes [k MiB, (k+1) MiB), seed k)
//   [256 + 8 K, D)        zero padding (checked on read)
//   [D, D + P)            payload, D = 256 + 8 K rounded up to 4096
//
//   word  0  magic "EXALASTP"          word  8  aux (nrhs for manifest/rhs/xtrue,
//   word  1  version (u32) | kind (u32)         pivot count for lu_)
//   word  2  n                         word  9  payload bytes P
//   word  3  rows                      word 10  data offset D
//   word  4  index (stripe; -1)        word 11  chunk bytes (1 MiB)
//   word  5  row0 (orig_: index*stripe; -1)   word 12  checksum64(chunk table, seed 0x5eed)
//   word  6  col0                      word 13  reserved (0)
//   word  7  col1                      word 14  groups_applied
//   words 15-16  system id (hi, lo): the manifest's, in every file of the system
//   words 17-18  factorization id (hi, lo): progress, act_, lseg_, lu_; 0 elsewhere
//   words 19-30  reserved (0)
//   word 31  checksum64(words 0..30, seed 0x4ead)
//
// Payloads: orig_/act_/lseg_ hold rows x (col1 - col0) column-major doubles
// (ld = rows); lu_ the same for all n columns followed by `aux` int64 pivots;
// rhs/xtrue n x nrhs column-major; manifest and progress a small binary record
// (see encode_manifest / encode_progress; at most 1 MiB).
//
// The per-chunk checksums let a read of any byte range (a column range is a
// contiguous byte range of a column-major stripe) be verified by reading only
// the chunks it touches: one pread of the range straight into the destination
// (when its leading dimension is the file's rows), plus the partial chunks at
// its two ends (< 1 MiB each) into a scratch buffer. A strided destination or
// a subset of the file's rows goes through a 16 MiB per-thread staging buffer
// (whole chunks, verified, then copied). The header checksum covers the table
// checksum, which covers every chunk, and the padding must be zero, so one
// flipped byte anywhere in a file is detected.
//
// Reads check, in this order: existence ("missing"), the size the call
// implies ("truncated: expected X bytes, found Y"), magic, version, header
// checksum, kind, reserved words, the identities ("belongs to another
// system" / "another factorization"), dimensions and stripe index, table
// checksum, then the checksums of the chunks read. Every size computed from
// a header is checked (exala/checked.hpp) before it is used. Writes go through the one atomic writer
// (exala/detail/atomic_file.hpp): "<name>.tmp.<pid>.<seq>" in the final
// directory, payload first, header last, then (policy.sync) fsync,
// (policy.drop_cache) fdatasync + POSIX_FADV_DONTNEED, close, rename, and
// (policy.sync) fsync of the directory; any failure unlinks the temporary.
// pread/pwrite move at most 1 GiB per call and are retried on EINTR and
// short counts. The writer's fault budget (inject_write_fault,
// EXALA_FAULT_WRITE_BYTES) is charged for every byte before it is written;
// when it runs out the write stops there and fails with ENOSPC, exactly like
// a full disk.
//
// checksum64 is the XXH64 construction (Y. Collet): four independent lanes
// acc = rotl(acc + w * P2, 31) * P1 over the 64-bit words, merged at the end,
// then the tail and an avalanche. Each step is a bijection of the lane for a
// fixed word and of the word for a fixed lane, so two inputs of the same
// length that differ in one 8-byte word (in particular one flipped byte)
// always give different checksums. About 10 GB/s per core (the test reports it).
#include "store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>
#include <random>
#include <system_error>

#include "exala/checked.hpp"
#include "exala/detail/atomic_file.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"

static_assert(std::endian::native == std::endian::little,
              "the stripe store writes little-endian words and reads them natively");

namespace exala::detail::stripe {

// ---------------------------------------------------------------------------
// checksum64
// ---------------------------------------------------------------------------
namespace {

constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t P2 = 0xC2B2AE3D27D4EB4Full;
constexpr std::uint64_t P3 = 0x165667B19E3779F9ull;
constexpr std::uint64_t P4 = 0x85EBCA77C2B2AE63ull;
constexpr std::uint64_t P5 = 0x27D4EB2F165667C5ull;

inline std::uint64_t load64(const unsigned char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline std::uint32_t load32(const unsigned char* p) noexcept {
  std::uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}
inline std::uint64_t lane(std::uint64_t acc, std::uint64_t w) noexcept {
  return std::rotl(acc + w * P2, 31) * P1;
}
inline std::uint64_t merge(std::uint64_t h, std::uint64_t acc) noexcept {
  return (h ^ lane(0, acc)) * P1 + P4;
}

// Streaming form: update() with the bytes in any pieces gives the same value
// as checksum64 over their concatenation.
class hasher {
 public:
  explicit hasher(std::uint64_t seed = 0) noexcept { reset(seed); }
  void reset(std::uint64_t seed) noexcept {
    seed_ = seed;
    v_[0] = seed + P1 + P2;
    v_[1] = seed + P2;
    v_[2] = seed;
    v_[3] = seed - P1;
    total_ = 0;
    nbuf_ = 0;
  }
  void update(const void* data, std::size_t len) noexcept {
    auto p = static_cast<const unsigned char*>(data);
    total_ += len;
    if (nbuf_ > 0) {
      const std::size_t take = std::min(len, std::size_t{32} - nbuf_);
      std::memcpy(buf_ + nbuf_, p, take);
      nbuf_ += take;
      p += take;
      len -= take;
      if (nbuf_ < 32) return;
      stripes(buf_, 1);
      nbuf_ = 0;
    }
    const std::size_t n = len / 32;
    if (n > 0) stripes(p, n);
    p += n * 32;
    len -= n * 32;
    if (len > 0) {
      std::memcpy(buf_, p, len);
      nbuf_ = len;
    }
  }
  std::uint64_t digest() const noexcept {
    std::uint64_t h;
    if (total_ >= 32) {
      h = std::rotl(v_[0], 1) + std::rotl(v_[1], 7) + std::rotl(v_[2], 12) + std::rotl(v_[3], 18);
      for (int i = 0; i < 4; ++i) h = merge(h, v_[i]);
    } else {
      h = seed_ + P5;
    }
    h += total_;
    const unsigned char* p = buf_;
    std::size_t len = nbuf_;
    for (; len >= 8; p += 8, len -= 8) h = std::rotl(h ^ lane(0, load64(p)), 27) * P1 + P4;
    if (len >= 4) {
      h = std::rotl(h ^ (std::uint64_t{load32(p)} * P1), 23) * P2 + P3;
      p += 4;
      len -= 4;
    }
    for (; len > 0; ++p, --len) h = std::rotl(h ^ (std::uint64_t{*p} * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
  }

 private:
  void stripes(const unsigned char* p, std::size_t n) noexcept {
    std::uint64_t a = v_[0], b = v_[1], c = v_[2], d = v_[3];
    for (std::size_t i = 0; i < n; ++i, p += 32) {
      a = lane(a, load64(p));
      b = lane(b, load64(p + 8));
      c = lane(c, load64(p + 16));
      d = lane(d, load64(p + 24));
    }
    v_[0] = a;
    v_[1] = b;
    v_[2] = c;
    v_[3] = d;
  }
  std::uint64_t seed_ = 0;
  std::uint64_t v_[4];
  std::uint64_t total_ = 0;
  unsigned char buf_[32];
  std::size_t nbuf_ = 0;
};

}  // namespace

std::uint64_t checksum64(const void* data, std::size_t bytes, std::uint64_t seed) noexcept {
  hasher h(seed);
  h.update(data, bytes);
  return h.digest();
}

std::string id128::hex() const {
  char t[40];
  std::snprintf(t, sizeof t, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return t;
}

id128 id128::random() {
  std::uint64_t w[2] = {0, 0};
  std::size_t got = 0;
  auto* p = reinterpret_cast<unsigned char*>(w);
  while (got < sizeof w) {
    const ssize_t r = ::getrandom(p + got, sizeof w - got, 0);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {  // no getrandom (old kernel, seccomp): the C++ library's source
      std::random_device rd;
      for (auto& x : w) x = (std::uint64_t{rd()} << 32) ^ rd();
      break;
    }
  }
  id128 id{w[0], w[1]};
  if (id.empty()) id.lo = 1;  // 0 means "none"
  return id;
}

// ---------------------------------------------------------------------------
// format constants and helpers
// ---------------------------------------------------------------------------
namespace {

namespace fs = std::filesystem;
using i64 = std::int64_t;
using u64 = std::uint64_t;

constexpr char kMagic[8] = {'E', 'X', 'A', 'L', 'A', 'S', 'T', 'P'};
constexpr std::uint32_t kVersion = 2;
constexpr i64 kHeaderBytes = 256;
constexpr i64 kChunk = i64{1} << 20;       // checksum granularity
constexpr i64 kWindow = i64{16} << 20;     // staging buffer (multiple of kChunk)
constexpr i64 kMaxIo = i64{1} << 30;       // bytes per pread/pwrite call
constexpr i64 kDataAlign = 4096;
constexpr u64 kTableSeed = 0x5eed;
constexpr u64 kHeaderSeed = 0x4ead;
// Bound on the elements of one file / of B: the byte sizes (8 per element,
// plus the data offset) stay far from int64 overflow. Stricter than
// exala::detail::max_elements (2^60 - 1), which bounds addresses.
constexpr i64 kMaxElements = i64{1} << 58;
static_assert(kMaxElements <= exala::detail::max_elements);
// Bytes of one payload: 8 kMaxElements doubles plus as many pivots.
constexpr i64 kMaxPayload = 16 * kMaxElements;
// Manifest and progress records are small; a larger one is not ours.
constexpr i64 kMaxRecord = i64{1} << 20;
// The staging subdirectory of a work directory (a new system being written).
constexpr const char* kStaging = ".exala-staging";

enum class kind : std::uint32_t {
  manifest = 1,
  rhs = 2,
  xtrue = 3,
  orig = 4,
  progress = 5,
  active = 6,
  lseg = 7,
  lu = 8,
};

const char* kind_name(std::uint32_t k) {
  switch (static_cast<kind>(k)) {
    case kind::manifest: return "manifest";
    case kind::rhs: return "rhs";
    case kind::xtrue: return "xtrue";
    case kind::orig: return "orig";
    case kind::progress: return "progress";
    case kind::active: return "act";
    case kind::lseg: return "lseg";
    case kind::lu: return "lu";
  }
  return "unknown";
}

// progress, act_, lseg_, lu_: the files of one factorization.
bool factorization_kind(kind k) {
  return k == kind::progress || k == kind::active || k == kind::lseg || k == kind::lu;
}

struct header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t kind;
  i64 n;
  i64 rows;
  i64 index;
  i64 row0;
  i64 col0;
  i64 col1;
  i64 aux;
  u64 payload_bytes;
  u64 data_offset;
  u64 chunk_bytes;
  u64 payload_checksum;
  u64 reserved;
  i64 groups_applied;
  u64 system_hi, system_lo;
  u64 factor_hi, factor_lo;
  u64 reserved2[12];
  u64 header_checksum;
};
static_assert(sizeof(header) == kHeaderBytes, "the header is 32 words");

i64 chunks_of(i64 payload) { return (payload + kChunk - 1) / kChunk; }
i64 data_offset_of(i64 payload) {
  const i64 end = kHeaderBytes + 8 * chunks_of(payload);
  return (end + kDataAlign - 1) / kDataAlign * kDataAlign;
}
i64 file_size_of(i64 payload) { return data_offset_of(payload) + payload; }

u64 header_checksum(const header& h) {
  return checksum64(&h, offsetof(header, header_checksum), kHeaderSeed);
}

std::string errno_text(int e) { return std::system_category().message(e); }

[[noreturn]] void fail(i64 stripe, const std::string& path, const std::string& what) {
  throw exala::storage_error(stripe, path, what);
}

std::string num(i64 v) { return std::to_string(v); }

// --- raw I/O -----------------------------------------------------------------
struct fd_guard {
  int fd = -1;
  fd_guard() = default;
  explicit fd_guard(int f) : fd(f) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly len bytes at off; returns the bytes actually there if the
// file ends first (a short count), throws on an I/O error.
i64 pread_full(int fd, void* dst, i64 len, i64 off, i64 stripe, const std::string& path) {
  auto p = static_cast<char*>(dst);
  i64 done = 0;
  while (done < len) {
    const ssize_t r = ::pread(fd, p + done, static_cast<std::size_t>(std::min(len - done, kMaxIo)),
                              static_cast<off_t>(off + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      fail(stripe, path, "read error at byte " + num(off + done) + ": " + errno_text(e));
    }
    if (r == 0) break;
    done += r;
  }
  return done;
}

std::string display_name(const fs::path& p) { return p.string(); }

// a * b for a, b >= 0 when the product has at most kMaxElements elements
// (exala/checked.hpp's exact product), else nothing.
std::optional<i64> elements_of(i64 a, i64 b) {
  if (a < 0 || b < 0) return std::nullopt;
  const auto p = exala::detail::count_of(a, b);
  if (!p || *p > kMaxElements) return std::nullopt;
  return p;
}

// Throws invalid_argument(ld_name) when a block of `cols` columns of `rows`
// elements, `ld` apart, spans more than exala::detail::max_elements.
// (ld itself too: the writer and the staged reads step by ld * 8 bytes.)
void check_span(const char* ld_name, i64 cols, i64 rows, i64 ld) {
  if (ld > exala::detail::max_elements)
    throw exala::invalid_argument(ld_name, "= " + std::to_string(ld) +
                                               " exceeds 2^60 elements: the address ld * 8 overflows");
  exala::detail::check_matrix_span(ld_name, cols, rows, ld);
}

// Test hook of the switch-over (set_switch_hook).
std::mutex g_hook_mu;
std::function<void(int)> g_switch_hook;

// --- names ---------------------------------------------------------------
bool parse_u64(std::string_view s, i64& v) {
  if (s.empty() || s.size() > 18 || (s.size() > 1 && s[0] == '0')) return false;  // canonical only
  for (char c : s)
    if (c < '0' || c > '9') return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Splits "prefix<a>_<b>...suffix" numbers; returns false if it does not match.
bool parse_numbered(std::string_view name, std::string_view prefix, int count, i64* out) {
  if (name.size() <= prefix.size() + 4 || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - 4) != ".bin")
    return false;
  std::string_view body = name.substr(prefix.size(), name.size() - prefix.size() - 4);
  for (int i = 0; i < count; ++i) {
    const auto us = body.find('_');
    const std::string_view part = (i + 1 < count) ? body.substr(0, us) : body;
    if ((i + 1 < count) == (us == std::string_view::npos)) return false;
    if (!parse_u64(part, out[i])) return false;
    if (i + 1 < count) body = body.substr(us + 1);
  }
  return true;
}

enum class name_class { none, original, factorization };

name_class classify(std::string_view name) {
  if (name == "manifest" || name == "rhs.bin" || name == "xtrue.bin") return name_class::original;
  i64 v[3];
  if (parse_numbered(name, "orig_", 1, v)) return name_class::original;
  if (name == "progress" || parse_numbered(name, "act_", 1, v) ||
      parse_numbered(name, "lu_", 1, v) || parse_numbered(name, "lseg_", 3, v))
    return name_class::factorization;
  return name_class::none;
}

// "<exala name>.tmp.<pid>.<seq>" -> the class of the exala name.
name_class classify_temp(std::string_view name) {
  const auto pos = name.find(".tmp.");
  if (pos == std::string_view::npos) return name_class::none;
  std::string_view rest = name.substr(pos + 5);
  const auto dot = rest.find('.');
  i64 v;
  if (dot == std::string_view::npos || !parse_u64(rest.substr(0, dot), v) ||
      !parse_u64(rest.substr(dot + 1), v))
    return name_class::none;
  return classify(name.substr(0, pos));
}

// --- payload sources / sinks --------------------------------------------------
// A column-major block of `cols` columns of `col_bytes` bytes, `ld_bytes` apart.
struct block {
  const char* p = nullptr;
  i64 col_bytes = 0;
  i64 cols = 0;
  i64 ld_bytes = 0;
  i64 bytes() const { return col_bytes * cols; }
  bool contiguous() const { return cols <= 1 || ld_bytes == col_bytes; }
};

// The payload as a sequence of blocks (data, then pivots for lu_).
struct payload_src {
  block parts[2];
  int count = 0;
  i64 bytes() const {
    i64 s = 0;
    for (int i = 0; i < count; ++i) s += parts[i].bytes();
    return s;
  }
  // Pointer to [off, off+len) if it lies in one contiguous part, else null.
  const char* direct(i64 off, i64 len) const {
    for (int i = 0; i < count; ++i) {
      const i64 b = parts[i].bytes();
      if (off < b) {
        if (off + len <= b && parts[i].contiguous()) return parts[i].p + off;
        return nullptr;
      }
      off -= b;
    }
    return nullptr;
  }
  void copy(i64 off, i64 len, char* dst) const {
    for (int i = 0; i < count && len > 0; ++i) {
      const block& bl = parts[i];
      const i64 b = bl.bytes();
      if (off >= b) {
        off -= b;
        continue;
      }
      while (off < b && len > 0) {
        const i64 col = off / bl.col_bytes, in = off % bl.col_bytes;
        const i64 take = std::min(bl.col_bytes - in, len);
        std::memcpy(dst, bl.p + col * bl.ld_bytes + in, static_cast<std::size_t>(take));
        dst += take;
        off += take;
        len -= take;
      }
      off -= b;
    }
  }
};

std::vector<char>& scratch(i64 bytes) {
  thread_local std::vector<char> buf;
  if (static_cast<i64>(buf.size()) < bytes) {
    buf.clear();
    buf.shrink_to_fit();
    buf.resize(static_cast<std::size_t>(bytes));
  }
  return buf;
}

// Verified reader of one file.
struct reader {
  i64 stripe = -1;
  std::string path;
  fd_guard fd;
  header h{};
  std::vector<u64> table;
  i64 size = 0;
};

}  // namespace

// ---------------------------------------------------------------------------
// store::impl
// ---------------------------------------------------------------------------
struct store::impl {
  std::vector<std::string> dirs;
  manifest info;
  std::mutex info_mu;
  std::atomic<bool> sync{false};
  std::atomic<bool> drop{false};
  std::atomic<bool> xtrue_written{false};
  mutable io_counters io;
  // A new set being written (create() until finish() has moved it in): the
  // system's files go to the staging subdirectories.
  bool staging = false;
  bool committed = false;  // the staged manifest is written (the commit point)
  // dirs[0]'s staging directory, flock'ed LOCK_EX while this writer lives,
  // so that recovery (a shared lock) leaves a live writer's staging alone.
  int staging_fd = -1;
  id128 sys_id;            // the system id (info.system_id, set once)
  // The factorization id (empty: not known yet; see ensure_factor_id).
  mutable std::mutex fid_mu;
  mutable id128 factor_id;

  ~impl();

  i64 nstripes() const { return (info.n + info.stripe - 1) / info.stripe; }
  i64 orig_rows(i64 i) const { return std::min(info.stripe, info.n - i * info.stripe); }

  fs::path dir_of(i64 index) const {
    return fs::path(dirs[static_cast<std::size_t>(index % static_cast<i64>(dirs.size()))]);
  }
  fs::path main_dir() const { return fs::path(dirs[0]); }
  // Where the original system's files of dir_of(index) / main_dir() are
  // written and read: the staging subdirectory while the set is staged.
  fs::path sys_dir_of(i64 index) const { return staging ? dir_of(index) / kStaging : dir_of(index); }
  fs::path sys_main_dir() const { return staging ? main_dir() / kStaging : main_dir(); }
  fs::path orig_path(i64 i) const { return sys_dir_of(i) / ("orig_" + num(i) + ".bin"); }
  fs::path act_path(i64 i) const { return dir_of(i) / ("act_" + num(i) + ".bin"); }
  fs::path lu_path(i64 i) const { return dir_of(i) / ("lu_" + num(i) + ".bin"); }
  fs::path lseg_path(i64 i, i64 c0, i64 c1) const {
    return dir_of(i) / ("lseg_" + num(i) + "_" + num(c0) + "_" + num(c1) + ".bin");
  }

  // ---- writing ----
  void write_file(const fs::path& final_path, i64 stripe, header h, const payload_src& src);
  // ---- reading ----
  // Opens and checks a file (identities included, see check_identity).
  // expect_payload < 0: size taken from the header.
  void open_reader(reader& r, const fs::path& p, i64 stripe, kind k, i64 expect_payload) const;
  // The system and factorization ids of an opened file against this set's.
  void check_identity(const reader& r, kind k) const;
  // Verified payload bytes [b0, b1): into `direct` (contiguous) or through sink.
  template <class Sink>
  void read_range(reader& r, i64 b0, i64 b1, char* direct, Sink&& sink) const;
  void finish_read(reader& r) const;
  // The whole verified payload of a small record file (manifest, progress).
  std::vector<char> read_record(reader& r, const fs::path& p, kind k) const;
  // rows x ncols column-major payload block at payload offset 0: columns
  // [c0, c1) and rows [r0, r1) into dst (ld).
  void read_block(reader& r, i64 rows, i64 c0, i64 c1, i64 r0, i64 r1, double* dst, i64 ld) const;

  void check_dims(const reader& r, i64 index, i64 n, i64 rows, i64 col0, i64 col1, i64 aux) const;
  void remove_file(const fs::path& p, i64 stripe) const;
  // rhs.bin / xtrue.bin (n x nrhs).
  void write_nrhs(kind k, const char* file, const double* b, i64 ldb, const char* bname,
                  const char* ldname);
  void read_nrhs(kind k, const char* file, double* b, i64 ldb, const char* bname,
                 const char* ldname) const;
  // A factorization file: kind k, `rows` x [col0, n) (+ `aux` pivots).
  void check_index(i64 index) const;
  void check_rows(i64 rows) const;
  // Factorization files need a finished set.
  void check_finished(const char* what) const;
  // The factorization id: the one known, else the progress journal's (read
  // and adopted), else a new one.
  id128 ensure_factor_id() const;
  // The journal read and checked (system id, fields); adopts its id.
  std::optional<progress_record> load_progress() const;
  // Reads and checks the manifest at `man` into info and sys_id; returns
  // the number of directories the set was created over.
  i64 read_manifest(const fs::path& man);
  // Finishes or discards what an interrupted writer left in the staging
  // directories (see switch_over): the set afterwards is the old one or the
  // new one, complete.
  static void recover(const std::vector<std::string>& dirs);
};

void store::impl::write_file(const fs::path& final_path, i64 stripe, header h,
                             const payload_src& src) {
  const std::string fname = display_name(final_path);
  const i64 payload = src.bytes();
  const i64 nchunks = chunks_of(payload);
  const i64 doff = data_offset_of(payload);
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.payload_bytes = static_cast<u64>(payload);
  h.data_offset = static_cast<u64>(doff);
  h.chunk_bytes = static_cast<u64>(kChunk);
  h.reserved = 0;
  h.system_hi = sys_id.hi;
  h.system_lo = sys_id.lo;
  if (factorization_kind(static_cast<kind>(h.kind))) {
    const id128 f = ensure_factor_id();
    h.factor_hi = f.hi;
    h.factor_lo = f.lo;
  }

  std::optional<atomic_file> out;
  try {
    out.emplace(final_path);
    // Payload, in windows of whole chunks: checksum, then write.
    std::vector<u64> table(static_cast<std::size_t>(nchunks));
    for (i64 w0 = 0; w0 < payload; w0 += kWindow) {
      const i64 len = std::min(kWindow, payload - w0);
      const char* p = src.direct(w0, len);
      if (p == nullptr) {
        std::vector<char>& buf = scratch(kWindow);
        src.copy(w0, len, buf.data());
        p = buf.data();
      }
      for (i64 c = 0; c < len; c += kChunk)
        table[static_cast<std::size_t>((w0 + c) / kChunk)] =
            checksum64(p + c, static_cast<std::size_t>(std::min(kChunk, len - c)),
                       static_cast<u64>((w0 + c) / kChunk));
      out->pwrite(p, len, doff + w0);
    }
    h.payload_checksum = checksum64(table.data(), table.size() * 8, kTableSeed);
    h.header_checksum = header_checksum(h);
    std::vector<char> front(static_cast<std::size_t>(doff), 0);
    std::memcpy(front.data(), &h, sizeof h);
    if (nchunks > 0) std::memcpy(front.data() + kHeaderBytes, table.data(), table.size() * 8);
    out->pwrite(front.data(), doff, 0);
    out->commit(sync.load(), drop.load());
    io.bytes_written.fetch_add(out->bytes_written(), std::memory_order_relaxed);
    io.files_written.fetch_add(1, std::memory_order_relaxed);
  } catch (const write_failure& e) {
    if (out) io.bytes_written.fetch_add(out->bytes_written(), std::memory_order_relaxed);
    fail(stripe, fname, e.what());
  } catch (const std::bad_alloc&) {
    fail(stripe, fname, "out of memory while writing: the previous state is kept");
  }
}

void store::impl::open_reader(reader& r, const fs::path& p, i64 stripe, kind k,
                              i64 expect_payload) const {
  r.stripe = stripe;
  r.path = display_name(p);
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT)
      fail(stripe, r.path, std::string("missing: the ") + kind_name(static_cast<std::uint32_t>(k)) +
                               " file does not exist (" + errno_text(e) + ")");
    fail(stripe, r.path, "cannot open: " + errno_text(e));
  }
  r.fd.fd = fd;
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    fail(stripe, r.path, "cannot stat: " + errno_text(e));
  }
  r.size = static_cast<i64>(st.st_size);
  if (expect_payload >= 0) {
    const i64 want = file_size_of(expect_payload);
    if (r.size < want)
      fail(stripe, r.path, "truncated: expected " + num(want) + " bytes, found " + num(r.size));
    if (r.size > want)
      fail(stripe, r.path, "wrong size: expected " + num(want) + " bytes, found " + num(r.size) +
                               " (not the file this read expects)");
  } else if (r.size < kHeaderBytes) {
    fail(stripe, r.path, "truncated: expected at least " + num(kHeaderBytes) + " bytes, found " +
                             num(r.size));
  }
  if (pread_full(fd, &r.h, kHeaderBytes, 0, stripe, r.path) != kHeaderBytes)
    fail(stripe, r.path, "truncated while reading the header (the file shrank)");
  io.bytes_read.fetch_add(kHeaderBytes, std::memory_order_relaxed);
  const header& h = r.h;
  if (std::memcmp(h.magic, kMagic, 8) != 0)
    fail(stripe, r.path, "not an ExaLA stripe file (bad magic)");
  if (h.version != kVersion)
    fail(stripe, r.path, "format version " + num(h.version) + " is not supported (this build reads version " +
                             num(kVersion) + (h.version < kVersion ? "; an older ExaLA wrote it: generate or import the system again"
                                                                    : "; a newer ExaLA wrote it") +
                             ")");
  if (h.header_checksum != header_checksum(h))
    fail(stripe, r.path, "header checksum mismatch (the file is corrupted)");
  if (h.kind != static_cast<std::uint32_t>(k))
    fail(stripe, r.path, std::string("wrong kind: holds a '") + kind_name(h.kind) + "' file where a '" +
                             kind_name(static_cast<std::uint32_t>(k)) + "' file was expected");
  if (h.reserved != 0 || std::any_of(std::begin(h.reserved2), std::end(h.reserved2), [](u64 w) { return w != 0; }))
    fail(stripe, r.path, "inconsistent header (reserved words are not zero)");
  if (h.chunk_bytes != static_cast<u64>(kChunk) ||
      h.payload_bytes > static_cast<u64>(kMaxPayload) ||
      h.data_offset != static_cast<u64>(data_offset_of(static_cast<i64>(h.payload_bytes))))
    fail(stripe, r.path, "inconsistent header (chunk size / payload size / data offset)");
  if ((k == kind::manifest || k == kind::progress) && static_cast<i64>(h.payload_bytes) > kMaxRecord)
    fail(stripe, r.path, "inconsistent header (a " + num(static_cast<i64>(h.payload_bytes)) +
                             "-byte record; at most " + num(kMaxRecord) + ")");
  check_identity(r, k);
  if (expect_payload >= 0 && static_cast<i64>(h.payload_bytes) != expect_payload)
    fail(stripe, r.path, "payload of " + num(static_cast<i64>(h.payload_bytes)) + " bytes where " +
                             num(expect_payload) + " were expected");
  if (expect_payload < 0) {
    const i64 want = file_size_of(static_cast<i64>(h.payload_bytes));
    if (r.size < want)
      fail(stripe, r.path, "truncated: expected " + num(want) + " bytes, found " + num(r.size));
    if (r.size > want)
      fail(stripe, r.path, "wrong size: expected " + num(want) + " bytes, found " + num(r.size));
  }
  // The chunk table and the zero padding up to the data, in one read.
  const i64 nchunks = chunks_of(static_cast<i64>(h.payload_bytes));
  const i64 front = static_cast<i64>(h.data_offset) - kHeaderBytes;
  std::vector<char> buf(static_cast<std::size_t>(front));
  if (pread_full(fd, buf.data(), front, kHeaderBytes, stripe, r.path) != front)
    fail(stripe, r.path, "truncated while reading the checksum table (the file shrank)");
  io.bytes_read.fetch_add(front, std::memory_order_relaxed);
  r.table.resize(static_cast<std::size_t>(nchunks));
  if (nchunks > 0) std::memcpy(r.table.data(), buf.data(), static_cast<std::size_t>(8 * nchunks));
  if (checksum64(r.table.data(), r.table.size() * 8, kTableSeed) != h.payload_checksum)
    fail(stripe, r.path, "checksum mismatch in the chunk table (the file is corrupted)");
  if (std::any_of(buf.begin() + 8 * nchunks, buf.end(), [](char c) { return c != 0; }))
    fail(stripe, r.path, "non-zero bytes in the padding before the data (the file is corrupted)");
}

void store::impl::check_identity(const reader& r, kind k) const {
  const header& h = r.h;
  const id128 sys{h.system_hi, h.system_lo}, fac{h.factor_hi, h.factor_lo};
  const bool fk = factorization_kind(k);
  const std::string restart =
      fk ? "; start the factorization over (exala solve --restart; resume = false)"
         : "; generate or import this system again";
  if (k == kind::manifest) {  // defines the system id
    if (sys.empty() || !fac.empty())
      fail(r.stripe, r.path, "inconsistent header (the manifest's identities)");
    return;
  }
  if (sys != sys_id)
    fail(r.stripe, r.path,
         "belongs to another system (system id " + sys.hex() + "; this work directory's system is " +
             sys_id.hex() + "): a file copied in from another work directory" + restart);
  if (!fk) {
    if (!fac.empty()) fail(r.stripe, r.path, "inconsistent header (a factorization id in a file of the system)");
    return;
  }
  if (fac.empty()) fail(r.stripe, r.path, "inconsistent header (no factorization id)");
  if (k == kind::progress) return;  // defines the factorization id
  const id128 want = ensure_factor_id();
  if (fac != want)
    fail(r.stripe, r.path,
         "belongs to another factorization (factorization id " + fac.hex() +
             "; the progress journal's is " + want.hex() +
             "): a file copied in from another work directory or left by another run" + restart);
}

id128 store::impl::ensure_factor_id() const {
  std::lock_guard<std::mutex> lk(fid_mu);
  if (factor_id.empty()) {
    // The journal's, when there is one (a store opened on a partial run that
    // reads or writes a factorization file before read_progress).
    const fs::path p = main_dir() / "progress";
    struct stat st{};
    if (::stat(p.c_str(), &st) == 0) {
      reader r;
      open_reader(r, p, -1, kind::progress, -1);  // checks the system id
      factor_id = id128{r.h.factor_hi, r.h.factor_lo};
    } else if (errno != ENOENT) {
      const int e = errno;
      fail(-1, p.string(), "cannot stat: " + errno_text(e));
    } else {
      factor_id = id128::random();
    }
  }
  return factor_id;
}

void store::impl::check_finished(const char* what) const {
  if (staging)
    throw exala::error(std::string("exala: stripe store: ") + what +
                       " needs a finished system (finish() was not called)");
}

template <class Sink>
void store::impl::read_range(reader& r, i64 b0, i64 b1, char* direct, Sink&& sink) const {
  if (b1 <= b0) return;
  const i64 payload = static_cast<i64>(r.h.payload_bytes);
  const i64 doff = static_cast<i64>(r.h.data_offset);
  const i64 a0 = b0 / kChunk * kChunk;
  const i64 a1 = std::min(payload, (b1 + kChunk - 1) / kChunk * kChunk);
  auto read_exact = [&](char* dst, i64 off, i64 len) {
    if (pread_full(r.fd.fd, dst, len, doff + off, r.stripe, r.path) != len)
      fail(r.stripe, r.path, "truncated while reading (the file shrank)");
    io.bytes_read.fetch_add(len, std::memory_order_relaxed);
  };
  auto bad_chunk = [&](i64 k) {
    fail(r.stripe, r.path, "checksum mismatch in payload bytes [" + num(k * kChunk) + ", " +
                               num(std::min(payload, (k + 1) * kChunk)) +
                               ") (the file is corrupted)");
  };
  if (direct != nullptr) {
    // One pread of the range into the destination, the partial end chunks
    // into scratch; each chunk verified from its (up to three) pieces.
    std::vector<char>& buf = scratch(2 * kChunk);
    char* head = buf.data();
    char* tail = buf.data() + kChunk;
    read_exact(direct, b0, b1 - b0);
    if (b0 > a0) read_exact(head, a0, b0 - a0);
    if (a1 > b1) read_exact(tail, b1, a1 - b1);
    for (i64 c = a0; c < a1; c += kChunk) {
      const i64 e = std::min(a1, c + kChunk);
      hasher hs(static_cast<u64>(c / kChunk));
      // pieces: [a0,b0) in head, [b0,b1) in direct, [b1,a1) in tail
      auto feed = [&](i64 s0, i64 s1, const char* base, i64 base_off) {
        const i64 lo = std::max(c, s0), hi = std::min(e, s1);
        if (lo < hi) hs.update(base + (lo - base_off), static_cast<std::size_t>(hi - lo));
      };
      feed(a0, b0, head, a0);
      feed(b0, b1, direct, b0);
      feed(b1, a1, tail, b1);
      if (hs.digest() != r.table[static_cast<std::size_t>(c / kChunk)]) bad_chunk(c / kChunk);
    }
    return;
  }
  std::vector<char>& buf = scratch(kWindow);
  for (i64 w0 = a0; w0 < a1; w0 += kWindow) {
    const i64 len = std::min(kWindow, a1 - w0);
    read_exact(buf.data(), w0, len);
    for (i64 c = 0; c < len; c += kChunk) {
      const i64 k = (w0 + c) / kChunk;
      if (checksum64(buf.data() + c, static_cast<std::size_t>(std::min(kChunk, len - c)),
                     static_cast<u64>(k)) != r.table[static_cast<std::size_t>(k)])
        bad_chunk(k);
    }
    const i64 lo = std::max(b0, w0), hi = std::min(b1, w0 + len);
    if (lo < hi) sink(lo, buf.data() + (lo - w0), hi - lo);
  }
}

void store::impl::finish_read(reader& r) const {
  if (drop.load()) (void)::posix_fadvise(r.fd.fd, 0, 0, POSIX_FADV_DONTNEED);
  io.files_read.fetch_add(1, std::memory_order_relaxed);
}

std::vector<char> store::impl::read_record(reader& r, const fs::path& p, kind k) const {
  open_reader(r, p, -1, k, -1);
  std::vector<char> bytes(static_cast<std::size_t>(r.h.payload_bytes));
  read_range(r, 0, static_cast<i64>(bytes.size()), bytes.data(), [](i64, const char*, i64) {});
  finish_read(r);
  return bytes;
}

void store::impl::read_block(reader& r, i64 rows, i64 c0, i64 c1, i64 r0, i64 r1, double* dst,
                             i64 ld) const {
  if (c1 <= c0 || r1 <= r0) return;
  const i64 cb = rows * 8;
  const i64 b0 = c0 * cb, b1 = c1 * cb;
  if (r0 == 0 && r1 == rows && (ld == rows || c1 - c0 == 1)) {
    read_range(r, b0, b1, reinterpret_cast<char*>(dst), [](i64, const char*, i64) {});
    return;
  }
  // Strided destination or a row subset: verified windows, copied out.
  read_range(r, b0, b1, nullptr, [&](i64 off, const char* p, i64 len) {
    // [off, off+len) is 8-byte aligned (windows and chunks are).
    i64 e = off / 8;
    const i64 eend = (off + len) / 8;
    const double* src = reinterpret_cast<const double*>(p);
    while (e < eend) {
      const i64 col = e / rows, row = e % rows;
      const i64 col_end = std::min(eend, (col + 1) * rows);  // element index
      const i64 lo = std::max(row, r0), hi = std::min(row + (col_end - e), r1);
      if (lo < hi)
        std::memcpy(dst + (col - c0) * ld + (lo - r0), src + (lo - row),
                    static_cast<std::size_t>(hi - lo) * 8);
      src += col_end - e;
      e = col_end;
    }
  });
}

void store::impl::check_dims(const reader& r, i64 index, i64 n, i64 rows, i64 col0, i64 col1,
                             i64 aux) const {
  const header& h = r.h;
  if (h.index != index)
    fail(r.stripe, r.path, "holds stripe " + num(h.index) + " where stripe " + num(index) +
                               " was expected (a misplaced or renamed file)");
  if (h.n != n || h.rows != rows || h.col0 != col0 || h.col1 != col1 || (aux >= 0 && h.aux != aux))
    fail(r.stripe, r.path,
         "holds a " + num(h.rows) + " x [" + num(h.col0) + ", " + num(h.col1) + ") block of an n = " +
             num(h.n) + " system (aux " + num(h.aux) + ") where a " + num(rows) + " x [" + num(col0) +
             ", " + num(col1) + ") block of n = " + num(n) +
             (aux >= 0 ? " (aux " + num(aux) + ")" : std::string()) + " was expected");
}

void store::impl::remove_file(const fs::path& p, i64 stripe) const {
  if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
    const int e = errno;
    fail(stripe, display_name(p), "cannot remove: " + errno_text(e));
  }
}

// ---------------------------------------------------------------------------
// manifest / progress records
// ---------------------------------------------------------------------------
namespace {

struct record_writer {
  std::vector<char> bytes;
  void word(u64 v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + 8);
  }
  void f64(double d) { word(std::bit_cast<u64>(d)); }
  void str(const std::string& s) {
    word(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
};

struct record_reader {
  const std::vector<char>& bytes;
  std::size_t pos = 0;
  i64 stripe;
  const std::string& path;
  u64 word() {
    if (bytes.size() - pos < 8) fail(stripe, path, "record too short (corrupted or foreign file)");
    u64 v;
    std::memcpy(&v, bytes.data() + pos, 8);
    pos += 8;
    return v;
  }
  double f64() { return std::bit_cast<double>(word()); }
  std::string str() {
    const u64 len = word();
    if (len > bytes.size() - pos) fail(stripe, path, "record string too long (corrupted or foreign file)");
    std::string s(bytes.data() + pos, static_cast<std::size_t>(len));
    pos += static_cast<std::size_t>(len);
    return s;
  }
};

payload_src contiguous_src(const std::vector<char>& v) {
  payload_src s;
  s.parts[0] = block{v.data(), static_cast<i64>(v.size()), 1, static_cast<i64>(v.size())};
  s.count = v.empty() ? 0 : 1;
  return s;
}

header blank_header(kind k, i64 n, i64 rows, i64 index, i64 row0, i64 col0, i64 col1, i64 aux,
                    i64 groups) {
  header h{};
  h.kind = static_cast<std::uint32_t>(k);
  h.n = n;
  h.rows = rows;
  h.index = index;
  h.row0 = row0;
  h.col0 = col0;
  h.col1 = col1;
  h.aux = aux;
  h.groups_applied = groups;
  return h;
}

void check_arg(bool ok, const char* arg, const std::string& what) {
  if (!ok) throw exala::invalid_argument(arg, what);
}

}  // namespace

// ---------------------------------------------------------------------------
// store
// ---------------------------------------------------------------------------
store::store(impl* p) : p_(p) {}
store::store(store&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
store& store::operator=(store&& o) noexcept {
  if (this != &o) {
    delete p_;
    p_ = o.p_;
    o.p_ = nullptr;
  }
  return *this;
}
store::~store() { delete p_; }

namespace {

void check_dirs(const std::vector<std::string>& dirs) {
  check_arg(!dirs.empty(), "workdirs", "is empty: give at least one directory");
  for (std::size_t i = 0; i < dirs.size(); ++i)
    check_arg(!dirs[i].empty(), "workdirs", "entry " + std::to_string(i) + " is an empty path");
}

// Whether `p` exists: false for ENOENT; any other failure (a permission,
// a loop of links, an I/O error) is reported with its cause.
bool path_exists(const fs::path& p, i64 stripe) {
  struct stat st{};
  if (::stat(p.c_str(), &st) == 0) return true;
  const int e = errno;
  if (e == ENOENT) return false;
  fail(stripe, p.string(), "cannot stat: " + errno_text(e));
}

void unlink_if_there(const fs::path& p) {
  if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
    const int e = errno;
    fail(-1, p.string(), "cannot remove: " + errno_text(e));
  }
}

// The names in directory d (none when it does not exist).
std::vector<std::string> list_names(const fs::path& d) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(d, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return out;
    fail(-1, d.string(), "cannot list the directory: " + ec.message());
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory) break;  // removed meanwhile
      fail(-1, d.string(), "cannot list the directory: " + ec.message());
    }
    out.push_back(it->path().filename().string());
  }
  return out;
}

// Removes the ExaLA files of the classes asked for, with their temporaries;
// all_temps: every ExaLA temporary as well. The progress journal goes first,
// so that a kill in the middle leaves no journal over a half-removed
// factorization.
void clean_dirs(const std::vector<std::string>& dirs, bool original, bool factorization,
                bool all_temps) {
  if (factorization) unlink_if_there(fs::path(dirs[0]) / "progress");
  for (const auto& d : dirs) {
    for (const std::string& name : list_names(d)) {
      const name_class c = classify(name);
      const name_class t = classify_temp(name);
      auto wanted = [&](name_class k) {
        return (original && k == name_class::original) ||
               (factorization && k == name_class::factorization);
      };
      if (wanted(c) || wanted(t) || (all_temps && t != name_class::none))
        unlink_if_there(fs::path(d) / name);
    }
  }
}

// Calls the test hook (set_switch_hook) before step `step` of a switch-over.
void switch_step(int& step) {
  std::function<void(int)> hook;
  {
    std::lock_guard<std::mutex> lk(g_hook_mu);
    hook = g_switch_hook;
  }
  if (hook) hook(step);
  ++step;
}

// Whether `name` in the k-th of `ndirs` directories is a file of the system
// described by m (the files the switch-over keeps or moves in).
bool in_system(const std::string& name, std::size_t k, const manifest& m, std::size_t ndirs) {
  if (name == "manifest" || name == "rhs.bin") return k == 0;
  if (name == "xtrue.bin") return k == 0 && m.has_xtrue;
  i64 v[1];
  if (!parse_numbered(name, "orig_", 1, v)) return false;
  const i64 count = (m.n + m.stripe - 1) / m.stripe;
  return v[0] < count && static_cast<std::size_t>(v[0] % static_cast<i64>(ndirs)) == k;
}

// The system id in the header of an ExaLA file of this format version, or
// nothing (another version, a short or unreadable file).
std::optional<id128> system_id_of(const fs::path& p) {
  fd_guard f(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
  header h{};
  if (f.fd < 0 || ::pread(f.fd, &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h) ||
      std::memcmp(h.magic, kMagic, 8) != 0 || h.version != kVersion)
    return std::nullopt;
  return id128{h.system_hi, h.system_lo};
}

// Moves a committed staged set (its manifest m) into place: removes the
// ExaLA files of the old set that the new one does not replace (its
// factorization, stripes beyond the new count or not in a partial new set,
// temporaries), renames the
// staged files over the old ones, the manifest last, and removes the staging
// directories. Every step may be repeated (a switch-over interrupted at any
// point is finished by running it again, by this or another process), and
// no step removes or replaces a file of the new set with anything else.
void switch_over(const std::vector<std::string>& dirs, const manifest& m, bool sync) {
  int step = 0;
  const std::size_t nd = dirs.size();
  // One directory may be in the list under two names ("d", "./d"): a file
  // belongs in it if it belongs in any of its names.
  std::vector<std::pair<dev_t, ino_t>> ids(nd, {0, 0});
  std::vector<bool> known(nd, false);
  for (std::size_t k = 0; k < nd; ++k) {
    struct stat st{};
    if (::stat(dirs[k].c_str(), &st) == 0) ids[k] = {st.st_dev, st.st_ino}, known[k] = true;
  }
  const auto belongs = [&](const std::string& name, std::size_t k) {
    for (std::size_t j = 0; j < nd; ++j)
      if ((j == k || (known[j] && known[k] && ids[j] == ids[k])) && in_system(name, j, m, nd)) return true;
    return false;
  };
  for (std::size_t k = 0; k < nd; ++k) {
    const std::vector<std::string> staged = list_names(fs::path(dirs[k]) / kStaging);
    for (const std::string& name : list_names(dirs[k])) {
      const bool ours = classify(name) != name_class::none || classify_temp(name) != name_class::none;
      if (!ours) continue;
      if (belongs(name, k)) {
        // A name of the new system that no staged file replaces: the new
        // one already moved in (its system id), or an old one that stays
        // behind (a set that holds some of its stripes only: a rank's copy
        // in the distributed stripe LU, exala/mpi.hpp).
        if (name == "manifest" || std::find(staged.begin(), staged.end(), name) != staged.end() ||
            system_id_of(fs::path(dirs[k]) / name) == m.system_id)
          continue;
      }
      switch_step(step);
      unlink_if_there(fs::path(dirs[k]) / name);
    }
  }
  for (std::size_t k = 0; k < nd; ++k) {
    const fs::path st = fs::path(dirs[k]) / kStaging;
    for (const std::string& name : list_names(st)) {
      if (k == 0 && name == "manifest") continue;  // last
      switch_step(step);
      if (!belongs(name, k)) {  // a temporary of the writer
        unlink_if_there(st / name);
        continue;
      }
      if (::rename((st / name).c_str(), (fs::path(dirs[k]) / name).c_str()) != 0 && errno != ENOENT) {
        const int e = errno;
        fail(-1, (st / name).string(), "cannot move the new system's file into place: " + errno_text(e));
      }
    }
    if (sync) fsync_directory(dirs[k]);
  }
  switch_step(step);
  const fs::path staged = fs::path(dirs[0]) / kStaging / "manifest";
  if (::rename(staged.c_str(), (fs::path(dirs[0]) / "manifest").c_str()) != 0 && errno != ENOENT) {
    const int e = errno;
    fail(-1, staged.string(), "cannot move the new system's manifest into place: " + errno_text(e));
  }
  if (sync) fsync_directory(dirs[0]);
  for (const auto& d : dirs) {
    switch_step(step);
    std::error_code ec;
    fs::remove_all(fs::path(d) / kStaging, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
      fail(-1, (fs::path(d) / kStaging).string(), "cannot remove the staging directory: " + ec.message());
  }
}

// Removes uncommitted staging directories (a writer that failed or was
// killed before its manifest): their files never were part of a system.
void discard_staging(const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    const fs::path st = fs::path(d) / kStaging;
    std::error_code ec;
    fs::remove_all(st, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
      fail(-1, st.string(), "cannot remove the staging directory of an interrupted writer: " + ec.message());
  }
}

std::vector<char> encode_manifest(const manifest& m, i64 ndirs) {
  record_writer w;
  w.word(static_cast<u64>(m.n));
  w.word(static_cast<u64>(m.nrhs));
  w.word(static_cast<u64>(m.stripe));
  w.f64(m.max_abs);
  w.f64(m.norm_inf);
  w.word(m.has_xtrue ? 1 : 0);
  w.word(static_cast<u64>(ndirs));
  w.str(m.source);
  return std::move(w.bytes);
}

}  // namespace

i64 store::impl::read_manifest(const fs::path& man) {
  impl& s = *this;
  reader r;
  const std::vector<char> bytes = s.read_record(r, man, kind::manifest);
  record_reader rr{bytes, 0, -1, r.path};
  manifest m;
  m.n = static_cast<i64>(rr.word());
  m.nrhs = static_cast<i64>(rr.word());
  m.stripe = static_cast<i64>(rr.word());
  m.max_abs = rr.f64();
  m.norm_inf = rr.f64();
  m.has_xtrue = rr.word() != 0;
  const i64 ndirs = static_cast<i64>(rr.word());
  m.source = rr.str();
  m.system_id = id128{r.h.system_hi, r.h.system_lo};
  if (m.n < 1 || m.nrhs < 0 || m.stripe < 1 || m.stripe > m.n || !elements_of(m.n, m.nrhs) ||
      !elements_of(m.n, m.stripe) || r.h.n != m.n || ndirs < 1)
    fail(-1, r.path, "inconsistent manifest (n " + num(m.n) + ", nrhs " + num(m.nrhs) + ", stripe " +
                         num(m.stripe) + ", directories " + num(ndirs) + ")");
  s.info = m;
  s.sys_id = m.system_id;
  s.xtrue_written = m.has_xtrue;
  return ndirs;
}

namespace {
std::string dir_count(i64 k) { return num(k) + " director" + (k == 1 ? "y" : "ies"); }
}  // namespace

void store::impl::recover(const std::vector<std::string>& dirs) {
  const fs::path st0 = fs::path(dirs[0]) / kStaging;
  // A live writer (this or another process) holds its staging directory
  // locked: its files are left alone. Recoverers share the lock (the
  // switch-over may run in several processes at once).
  fd_guard lock(::open(st0.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (lock.fd < 0) {
    const int e = errno;
    if (e != ENOENT) fail(-1, st0.string(), "cannot open the staging directory: " + errno_text(e));
  } else if (::flock(lock.fd, LOCK_SH | LOCK_NB) != 0) {
    const int e = errno;
    if (e == EWOULDBLOCK) return;  // being written
    fail(-1, st0.string(), "cannot lock the staging directory: " + errno_text(e));
  }
  const fs::path staged = st0 / "manifest";
  if (!path_exists(staged, -1)) {
    discard_staging(dirs);
    return;
  }
  impl probe;
  probe.dirs = dirs;
  const i64 ndirs = probe.read_manifest(staged);
  if (ndirs != static_cast<i64>(dirs.size()))
    fail(-1, staged.string(), "an interrupted generate/import over " + dir_count(ndirs) +
                                  " is to be completed, but the set is opened with " +
                                  dir_count(static_cast<i64>(dirs.size())) + ": give the same list");
  switch_over(dirs, probe.info, false);
}

store::impl::~impl() {
  // A staged set that was never committed is not a system: discard it (a
  // committed one is finished by the next create or open).
  if (staging && !committed) {
    try {
      discard_staging(dirs);
    } catch (...) {
    }
  }
  if (staging_fd >= 0) ::close(staging_fd);
}

store store::create(const std::vector<std::string>& dirs, i64 n, i64 nrhs, i64 stripe,
                    bool overwrite) {
  check_dirs(dirs);
  check_arg(n >= 1, "n", "must be >= 1 (got " + num(n) + ")");
  check_arg(nrhs >= 0, "nrhs", "must be >= 0 (got " + num(nrhs) + ")");
  check_arg(stripe >= 1, "stripe", "must be >= 1 (got " + num(stripe) + ")");
  stripe = std::min(stripe, n);
  check_arg(elements_of(stripe, n).has_value(), "stripe", "x n is too large for one file");
  check_arg(elements_of(nrhs, n).has_value(), "nrhs", "x n is too large");
  for (const auto& d : dirs) {
    std::error_code ec;
    fs::create_directories(d, ec);
    if (ec) fail(-1, d, "cannot create the directory: " + ec.message());
    struct stat st{};
    if (::stat(d.c_str(), &st) != 0) {
      const int e = errno;
      fail(-1, d, "cannot stat the directory: " + errno_text(e));
    }
    if (!S_ISDIR(st.st_mode)) fail(-1, d, "is not a directory");
  }
  impl::recover(dirs);  // a committed new set is finished first, a partial one discarded
  const fs::path man = fs::path(dirs[0]) / "manifest";
  if (path_exists(man, -1) && !overwrite)
    fail(-1, man.string(),
         "a system already exists in this work directory (pass overwrite to replace it)");
  auto holder = std::make_unique<impl>();
  impl& s = *holder;
  s.dirs = dirs;
  s.info.n = n;
  s.info.nrhs = nrhs;
  s.info.stripe = stripe;
  s.info.system_id = s.sys_id = id128::random();
  for (const auto& d : dirs) {
    const fs::path st = fs::path(d) / kStaging;
    std::error_code ec;
    fs::create_directory(st, ec);
    if (ec) fail(-1, st.string(), "cannot create the staging directory: " + ec.message());
    if (s.staging_fd >= 0) continue;
    s.staging_fd = ::open(st.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s.staging_fd < 0) {
      const int e = errno;
      fail(-1, st.string(), "cannot open the staging directory: " + errno_text(e));
    }
    if (::flock(s.staging_fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      fail(-1, st.string(), e == EWOULDBLOCK
                                ? std::string("another writer is writing a system into this work directory")
                                : "cannot lock the staging directory: " + errno_text(e));
    }
  }
  s.staging = true;
  return store(holder.release());
}

void check_space_for_original(const std::vector<std::string>& dirs, i64 n, i64 nrhs, i64 stripe) {
  if (dirs.empty() || n < 1 || stripe < 1) return;  // store::create names these
  if (const char* e = std::getenv("EXALA_SKIP_SPACE_CHECK"); e != nullptr && std::string_view(e) == "1")
    return;
  stripe = std::min(stripe, n);
  const i64 D = static_cast<i64>(dirs.size());
  const i64 N = (n + stripe - 1) / stripe;
  // Bytes per directory, summed per file system (st_dev); long double: the
  // sizes of absurd n exceed int64 and must still compare correctly.
  struct fs_need {
    dev_t dev;
    long double bytes;
    std::string dir;
    long double avail;
  };
  std::vector<fs_need> need;
  for (i64 d = 0; d < D; ++d) {
    const std::string& dir = dirs[static_cast<std::size_t>(d)];
    long double bytes = 0;
    const i64 mine = d < N ? (N - 1 - d) / D + 1 : 0;  // stripes d, d + D, ... below N
    for (i64 k = 0; k < mine; ++k) {
      const i64 I = d + k * D;
      const long double rows = static_cast<long double>(std::min(stripe, n - I * stripe));
      bytes += rows * static_cast<long double>(n) * 8 + 4096;
    }
    if (d == 0) bytes += 2.0L * (static_cast<long double>(n) * nrhs * 8 + 4096) + 8192;
    struct stat st{};
    struct statvfs vfs{};
    if (::stat(dir.c_str(), &st) != 0 || ::statvfs(dir.c_str(), &vfs) != 0) continue;
    const long double avail = static_cast<long double>(vfs.f_bavail) * vfs.f_frsize;
    auto it = std::find_if(need.begin(), need.end(), [&](const fs_need& f) { return f.dev == st.st_dev; });
    if (it == need.end())
      need.push_back({st.st_dev, bytes, dir, avail});
    else
      it->bytes += bytes;
  }
  auto text = [](long double b) {
    const char* unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    int u = 0;
    while (b >= 1024 && u < 8) b /= 1024, ++u;
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0Lf %s" : "%.1Lf %s", b, unit[u]);
    return std::string(buf);
  };
  for (const fs_need& f : need)
    if (f.bytes > f.avail)
      fail(-1, f.dir,
           "the system's files need " + text(f.bytes) + " on this file system, which has " +
               text(f.avail) + " available (n = " + num(n) +
               "; give more work directories on other disks, or free space; "
               "EXALA_SKIP_SPACE_CHECK=1 skips this check)");
}

store store::open(const std::vector<std::string>& dirs, bool partial) {
  check_dirs(dirs);
  const fs::path man = fs::path(dirs[0]) / "manifest";
  (void)path_exists(man, -1);  // a directory that cannot be searched: named with its cause
  impl::recover(dirs);
  auto holder = std::make_unique<impl>();
  impl& s = *holder;
  s.dirs = dirs;
  if (!path_exists(man, -1))
    fail(-1, man.string(),
         "missing: no complete system in this work directory (no manifest; an interrupted "
         "generate/import leaves none)");
  const i64 ndirs = s.read_manifest(man);
  const manifest& m = s.info;
  if (ndirs != static_cast<i64>(dirs.size()))
    fail(-1, man.string(), "the set was created over " + dir_count(ndirs) + " but is opened with " +
                               num(static_cast<i64>(dirs.size())) +
                               " (stripe files are spread round-robin: give the same list)");
  clean_dirs(dirs, false, false, true);
  // Every original file present with its size (a cheap completeness check;
  // contents and identities are verified when read).
  auto check_present = [&](const fs::path& p, i64 stripe, i64 payload) {
    struct stat st{};
    if (::stat(p.c_str(), &st) != 0) {
      const int e = errno;
      fail(stripe, p.string(), (e == ENOENT ? "missing: " : "cannot stat: ") + errno_text(e));
    }
    const i64 want = file_size_of(payload);
    if (st.st_size != want)
      fail(stripe, p.string(),
           std::string(st.st_size < want ? "truncated" : "wrong size") + ": expected " + num(want) +
               " bytes, found " + num(static_cast<i64>(st.st_size)));
  };
  for (i64 i = 0; !partial && i < s.nstripes(); ++i) check_present(s.orig_path(i), i, s.orig_rows(i) * m.n * 8);
  if (m.nrhs > 0) check_present(s.main_dir() / "rhs.bin", -1, m.n * m.nrhs * 8);
  if (m.has_xtrue && m.nrhs > 0) check_present(s.main_dir() / "xtrue.bin", -1, m.n * m.nrhs * 8);
  return store(holder.release());
}

const manifest& store::info() const { return p_->info; }
const std::vector<std::string>& store::dirs() const { return p_->dirs; }
void store::set_policy(bool sync, bool drop_cache) {
  p_->sync = sync;
  p_->drop = drop_cache;
}
io_counters& store::counters() const { return p_->io; }

// --- original system -----------------------------------------------------

void store::write_original(i64 index, const double* data, i64 ld) {
  impl& s = *p_;
  check_arg(index >= 0 && index < s.nstripes(), "index",
            "must be in [0, " + num(s.nstripes()) + ") (got " + num(index) + ")");
  const i64 rows = s.orig_rows(index), n = s.info.n;
  check_arg(data != nullptr, "data", "is null");
  check_arg(ld >= rows, "ld", "must be >= the stripe's rows " + num(rows) + " (got " + num(ld) + ")");
  check_span("ld", n, rows, ld);
  if (!s.staging)
    throw exala::error("exala: stripe store: write_original: the system is finished (its stripes are never modified)");
  payload_src src;
  src.parts[0] = block{reinterpret_cast<const char*>(data), rows * 8, n, ld * 8};
  src.count = 1;
  s.write_file(s.orig_path(index), index,
               blank_header(kind::orig, n, rows, index, index * s.info.stripe, 0, n, 0, 0), src);
}


void store::impl::write_nrhs(kind k, const char* file, const double* b, i64 ldb, const char* bname,
                             const char* ldname) {
  const i64 n = info.n, nrhs = info.nrhs;
  check_arg(b != nullptr || nrhs == 0, bname, "is null");
  check_arg(ldb >= n, ldname, "must be >= n = " + num(n) + " (got " + num(ldb) + ")");
  check_span(ldname, nrhs, n, ldb);
  if (!staging)
    throw exala::error(std::string("exala: stripe store: ") + file + ": the system is finished (it is never modified)");
  payload_src src;
  src.parts[0] = block{reinterpret_cast<const char*>(b), n * 8, nrhs, ldb * 8};
  src.count = nrhs > 0 ? 1 : 0;
  write_file(sys_main_dir() / file, -1, blank_header(k, n, n, -1, 0, 0, nrhs, nrhs, 0), src);
}

void store::impl::read_nrhs(kind k, const char* file, double* b, i64 ldb, const char* bname,
                            const char* ldname) const {
  const i64 n = info.n, nrhs = info.nrhs;
  check_arg(b != nullptr || nrhs == 0, bname, "is null");
  check_arg(ldb >= n, ldname, "must be >= n = " + num(n) + " (got " + num(ldb) + ")");
  check_span(ldname, nrhs, n, ldb);
  if (nrhs == 0) return;  // nothing to read (the file need not exist)
  reader r;
  open_reader(r, sys_main_dir() / file, -1, k, n * nrhs * 8);
  check_dims(r, -1, n, n, 0, nrhs, nrhs);
  read_block(r, n, 0, nrhs, 0, n, b, ldb);
  finish_read(r);
}

void store::impl::check_rows(i64 rows) const {
  check_arg(rows >= 1 && rows <= info.n && elements_of(rows, info.n).has_value(), "rows",
            "must be in [1, n] = [1, " + num(info.n) + "] (got " + num(rows) + ")");
}

void store::impl::check_index(i64 index) const {
  check_arg(index >= 0 && index < info.n, "index",
            "must be in [0, n) = [0, " + num(info.n) + ") (got " + num(index) + ")");
}

void store::write_rhs(const double* b, i64 ldb) {
  p_->write_nrhs(kind::rhs, "rhs.bin", b, ldb, "b", "ldb");
}
void store::write_xtrue(const double* x, i64 ldx) {
  p_->write_nrhs(kind::xtrue, "xtrue.bin", x, ldx, "x", "ldx");
  p_->xtrue_written = true;
  std::lock_guard<std::mutex> lk(p_->info_mu);
  p_->info.has_xtrue = true;
}
void store::read_rhs(double* b, i64 ldb) const {
  p_->read_nrhs(kind::rhs, "rhs.bin", b, ldb, "b", "ldb");
}
bool store::read_xtrue(double* x, i64 ldx) const {
  if (!p_->xtrue_written.load()) return false;
  p_->read_nrhs(kind::xtrue, "xtrue.bin", x, ldx, "x", "ldx");
  return true;
}

void store::finish(double max_abs, double norm_inf, const std::string& source) {
  impl& s = *p_;
  if (!s.staging) throw exala::error("exala: stripe store: finish: the system was already finished");
  manifest m;
  {
    std::lock_guard<std::mutex> lk(s.info_mu);
    m = s.info;
  }
  m.max_abs = max_abs;
  m.norm_inf = norm_inf;
  m.has_xtrue = s.xtrue_written.load();
  m.source = source;
  // The new set must be complete before it may replace the old one: its
  // writer checks that every stripe was written (stripe_system_writer; a
  // rank's copy in the distributed stripe LU holds its own stripes only),
  // and here B (a set without right-hand sides gets an empty rhs.bin).
  const std::string unwritten_b = " of the new system were not written: the manifest is not written";
  const fs::path rhs = s.sys_main_dir() / "rhs.bin";
  if (!path_exists(rhs, -1)) {
    if (m.nrhs > 0) fail(-1, rhs.string(), "missing: the right-hand sides" + unwritten_b);
    s.write_nrhs(kind::rhs, "rhs.bin", nullptr, m.n, "b", "ldb");  // n x 0: every set has one
  }
  const std::vector<char> bytes = encode_manifest(m, static_cast<i64>(s.dirs.size()));
  s.write_file(s.sys_main_dir() / "manifest", -1,
               blank_header(kind::manifest, m.n, m.stripe, -1, 0, 0, 0, m.nrhs, 0),
               contiguous_src(bytes));
  s.committed = true;  // from here on, the new set is the system
  switch_over(s.dirs, m, s.sync.load());
  s.staging = false;
  std::lock_guard<std::mutex> lk(s.info_mu);
  s.info = m;
}

void store::read_original(i64 row0, i64 rows, i64 c0, i64 c1, double* dst, i64 ld) const {
  const impl& s = *p_;
  const i64 n = s.info.n;
  check_arg(row0 >= 0 && row0 <= n, "row0", "must be in [0, n] = [0, " + num(n) + "] (got " + num(row0) + ")");
  check_arg(rows >= 0 && rows <= n - row0, "rows",
            "must be in [0, n - row0] = [0, " + num(n - row0) + "] (got " + num(rows) + ")");
  check_arg(c0 >= 0 && c0 <= n, "c0", "must be in [0, n] = [0, " + num(n) + "] (got " + num(c0) + ")");
  check_arg(c1 >= c0 && c1 <= n, "c1",
            "must be in [c0, n] = [" + num(c0) + ", " + num(n) + "] (got " + num(c1) + ")");
  check_arg(ld >= std::max<i64>(1, rows), "ld", "must be >= max(1, rows) (got " + num(ld) + ")");
  check_span("ld", c1 - c0, rows, ld);
  if (rows == 0 || c0 == c1) return;
  check_arg(dst != nullptr, "dst", "is null");
  const i64 S = s.info.stripe;
  for (i64 i = row0 / S; i <= (row0 + rows - 1) / S; ++i) {
    const i64 fr = s.orig_rows(i), f0 = i * S;
    const i64 r0 = std::max(row0, f0) - f0, r1 = std::min(row0 + rows, f0 + fr) - f0;
    reader r;
    s.open_reader(r, s.orig_path(i), i, kind::orig, fr * n * 8);
    s.check_dims(r, i, n, fr, 0, n, 0);
    s.read_block(r, fr, c0, c1, r0, r1, dst + (f0 + r0 - row0), ld);
    s.finish_read(r);
  }
}

// --- factorization state -------------------------------------------------

std::optional<progress_record> store::impl::load_progress() const {
  const fs::path p = main_dir() / "progress";
  if (!path_exists(p, -1)) return std::nullopt;
  reader r;
  const std::vector<char> bytes = read_record(r, p, kind::progress);  // checks the system id
  record_reader rr{bytes, 0, -1, r.path};
  progress_record pr;
  pr.stripe = static_cast<i64>(rr.word());
  pr.substripe = static_cast<i64>(rr.word());
  pr.meta = static_cast<i64>(rr.word());
  pr.pivot = static_cast<int>(static_cast<i64>(rr.word()));
  pr.groups_done = static_cast<i64>(rr.word());
  pr.engine = rr.str();
  const i64 n = info.n;
  if (r.h.n != n)
    fail(-1, r.path, "belongs to a system of n = " + num(r.h.n) + ", this one has n = " + num(n));
  // Values a driver computes with (groups_done * meta, ...): in range first.
  if (pr.stripe < 1 || pr.stripe > n || pr.substripe < 1 || pr.substripe > pr.stripe || pr.meta < 1 ||
      pr.meta > n || (pr.pivot != 0 && pr.pivot != 1) || pr.groups_done < 0 || pr.groups_done > n ||
      pr.engine.size() > 4096)
    fail(-1, r.path, "inconsistent progress record (stripe " + num(pr.stripe) + ", substripe " +
                         num(pr.substripe) + ", meta " + num(pr.meta) + ", pivot " + num(pr.pivot) +
                         ", groups done " + num(pr.groups_done) + ")");
  std::lock_guard<std::mutex> lk(fid_mu);
  factor_id = id128{r.h.factor_hi, r.h.factor_lo};
  return pr;
}

id128 store::factorization_id() const {
  std::lock_guard<std::mutex> lk(p_->fid_mu);
  return p_->factor_id;
}

std::optional<progress_record> store::read_progress() const {
  p_->check_finished("read_progress");
  return p_->load_progress();
}

void store::write_progress(const progress_record& pr) {
  impl& s = *p_;
  s.check_finished("write_progress");
  record_writer w;
  w.word(static_cast<u64>(pr.stripe));
  w.word(static_cast<u64>(pr.substripe));
  w.word(static_cast<u64>(pr.meta));
  w.word(static_cast<u64>(static_cast<i64>(pr.pivot)));
  w.word(static_cast<u64>(pr.groups_done));
  w.str(pr.engine);
  s.write_file(s.main_dir() / "progress", -1,
               blank_header(kind::progress, s.info.n, pr.stripe, -1, 0, 0, 0, 0, pr.groups_done),
               contiguous_src(w.bytes));
}

void store::clear_factorization() {
  impl& s = *p_;
  s.check_finished("clear_factorization");
  clean_dirs(s.dirs, false, true, false);
  std::lock_guard<std::mutex> lk(s.fid_mu);
  s.factor_id = id128::random();
}

std::optional<store::active_header> store::read_active_header(i64 index) const {
  const impl& s = *p_;
  s.check_index(index);
  const fs::path p = s.act_path(index);
  s.check_finished("read_active_header");
  if (!path_exists(p, index)) return std::nullopt;
  reader r;
  s.open_reader(r, p, index, kind::active, -1);
  const auto elements = elements_of(r.h.rows, s.info.n - r.h.col0);  // checked: header values
  if (r.h.index != index || r.h.n != s.info.n || r.h.col1 != s.info.n || r.h.col0 < 0 ||
      r.h.col0 > s.info.n || r.h.rows < 1 || r.h.rows > s.info.n || !elements ||
      static_cast<i64>(r.h.payload_bytes) != *elements * 8)
    fail(index, r.path, "inconsistent active-stripe header (index " + num(r.h.index) + ", n " +
                            num(r.h.n) + ", columns [" + num(r.h.col0) + ", " + num(r.h.col1) + "))");
  return active_header{r.h.groups_applied, r.h.col0};
}

void store::write_active(i64 index, i64 rows, i64 groups_applied, i64 col0, const double* data,
                         i64 ld) {
  impl& s = *p_;
  const i64 n = s.info.n;
  s.check_index(index);
  s.check_rows(rows);
  check_arg(groups_applied >= 0, "groups_applied", "must be >= 0 (got " + num(groups_applied) + ")");
  check_arg(col0 >= 0 && col0 <= n, "col0", "must be in [0, n] (got " + num(col0) + ")");
  check_arg(data != nullptr || col0 == n, "data", "is null");
  check_arg(ld >= rows, "ld", "must be >= rows = " + num(rows) + " (got " + num(ld) + ")");
  check_span("ld", n - col0, rows, ld);
  s.check_finished("write_active");
  payload_src src;
  src.parts[0] = block{reinterpret_cast<const char*>(data), rows * 8, n - col0, ld * 8};
  src.count = col0 < n ? 1 : 0;
  s.write_file(s.act_path(index), index,
               blank_header(kind::active, n, rows, index, -1, col0, n, 0, groups_applied), src);
}

void store::read_active(i64 index, i64 rows, i64 col0, double* dst, i64 ld) const {
  const impl& s = *p_;
  const i64 n = s.info.n;
  s.check_index(index);
  s.check_rows(rows);
  check_arg(col0 >= 0 && col0 <= n, "col0", "must be in [0, n] (got " + num(col0) + ")");
  check_arg(dst != nullptr || col0 == n, "dst", "is null");
  check_arg(ld >= rows, "ld", "must be >= rows = " + num(rows) + " (got " + num(ld) + ")");
  check_span("ld", n - col0, rows, ld);
  s.check_finished("read_active");
  reader r;
  s.open_reader(r, s.act_path(index), index, kind::active, rows * (n - col0) * 8);
  s.check_dims(r, index, n, rows, col0, n, 0);
  s.read_block(r, rows, 0, n - col0, 0, rows, dst, ld);
  s.finish_read(r);
}

void store::remove_active(i64 index) {
  p_->check_index(index);
  p_->check_finished("remove_active");
  p_->remove_file(p_->act_path(index), index);
}

void store::write_lsegment(i64 index, i64 rows, i64 c0, i64 c1, const double* data, i64 ld) {
  impl& s = *p_;
  const i64 n = s.info.n;
  s.check_index(index);
  s.check_rows(rows);
  check_arg(c0 >= 0 && c0 < n, "c0", "must be in [0, n) (got " + num(c0) + ")");
  check_arg(c1 > c0 && c1 <= n, "c1", "must be in (c0, n] (got " + num(c1) + ")");
  check_arg(data != nullptr, "data", "is null");
  check_arg(ld >= rows, "ld", "must be >= rows = " + num(rows) + " (got " + num(ld) + ")");
  check_span("ld", c1 - c0, rows, ld);
  s.check_finished("write_lsegment");
  payload_src src;
  src.parts[0] = block{reinterpret_cast<const char*>(data), rows * 8, c1 - c0, ld * 8};
  src.count = 1;
  s.write_file(s.lseg_path(index, c0, c1), index,
               blank_header(kind::lseg, n, rows, index, -1, c0, c1, 0, 0), src);
}

std::vector<std::pair<i64, i64>> store::lsegments(i64 index) const {
  const impl& s = *p_;
  s.check_index(index);
  std::vector<std::pair<i64, i64>> out;
  const fs::path d = s.dir_of(index);
  std::error_code ec;
  fs::directory_iterator it(d, ec);
  if (ec) fail(index, d.string(), "cannot list the directory: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) fail(index, d.string(), "cannot list the directory: " + ec.message());
    i64 v[3];
    if (parse_numbered(it->path().filename().string(), "lseg_", 3, v) && v[0] == index)
      out.emplace_back(v[1], v[2]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void store::read_lsegment(i64 index, i64 rows, i64 c0, i64 c1, double* dst, i64 ld) const {
  const impl& s = *p_;
  const i64 n = s.info.n;
  s.check_index(index);
  s.check_rows(rows);
  check_arg(c0 >= 0 && c0 < n, "c0", "must be in [0, n) (got " + num(c0) + ")");
  check_arg(c1 > c0 && c1 <= n, "c1", "must be in (c0, n] (got " + num(c1) + ")");
  check_arg(dst != nullptr, "dst", "is null");
  check_arg(ld >= rows, "ld", "must be >= rows = " + num(rows) + " (got " + num(ld) + ")");
  check_span("ld", c1 - c0, rows, ld);
  s.check_finished("read_lsegment");
  reader r;
  s.open_reader(r, s.lseg_path(index, c0, c1), index, kind::lseg, rows * (c1 - c0) * 8);
  s.check_dims(r, index, n, rows, c0, c1, 0);
  s.read_block(r, rows, 0, c1 - c0, 0, rows, dst, ld);
  s.finish_read(r);
}

void store::remove_lsegments(i64 index) {
  for (const auto& [c0, c1] : lsegments(index)) p_->remove_file(p_->lseg_path(index, c0, c1), index);
}

void store::write_lu(i64 index, i64 rows, const double* data, i64 ld, const i64* ipiv) {
  impl& s = *p_;
  const i64 n = s.info.n;
  s.check_index(index);
  s.check_rows(rows);
  check_arg(data != nullptr, "data", "is null");
  check_arg(ld >= rows, "ld", "must be >= rows = " + num(rows) + " (got " + num(ld) + ")");
  check_span("ld", n, rows, ld);
  s.check_finished("write_lu");
  payload_src src;
  src.parts[0] = block{reinterpret_cast<const char*>(data), rows * 8, n, ld * 8};
  src.count = 1;
  if (ipiv != nullptr) {
    src.parts[1] = block{reinterpret_cast<const char*>(ipiv), rows * 8, 1, rows * 8};
    src.count = 2;
  }
  s.write_file(s.lu_path(index), index,
               blank_header(kind::lu, n, rows, index, -1, 0, n, ipiv != nullptr ? rows : 0, 0), src);
}

void store::read_lu(i64 index, i64 rows, i64 c0, i64 c1, double* dst, i64 ld, i64* ipiv) const {
  const impl& s = *p_;
  const i64 n = s.info.n;
  s.check_index(index);
  s.check_rows(rows);
  check_arg(c0 >= 0 && c0 <= n, "c0", "must be in [0, n] (got " + num(c0) + ")");
  check_arg(c1 >= c0 && c1 <= n, "c1", "must be in [c0, n] (got " + num(c1) + ")");
  check_arg(dst != nullptr || c0 == c1, "dst", "is null");
  check_arg(ld >= rows, "ld", "must be >= rows = " + num(rows) + " (got " + num(ld) + ")");
  check_span("ld", c1 - c0, rows, ld);
  s.check_finished("read_lu");
  reader r;
  s.open_reader(r, s.lu_path(index), index, kind::lu, -1);
  const i64 aux = r.h.aux;
  s.check_dims(r, index, n, rows, 0, n, aux == 0 ? 0 : rows);
  if (static_cast<i64>(r.h.payload_bytes) != rows * n * 8 + aux * 8)
    fail(index, r.path, "inconsistent header (payload size)");
  if (ipiv != nullptr && aux == 0)
    fail(index, r.path, "holds no row interchanges (written without pivots), but they were asked for");
  s.read_block(r, rows, c0, c1, 0, rows, dst, ld);
  if (ipiv != nullptr)
    s.read_range(r, rows * n * 8, rows * n * 8 + rows * 8, reinterpret_cast<char*>(ipiv),
                 [](i64, const char*, i64) {});
  s.finish_read(r);
}

bool store::has_lu(i64 index) const {
  p_->check_index(index);
  p_->check_finished("has_lu");
  return path_exists(p_->lu_path(index), index);
}

void inject_write_fault(i64 bytes) {
  exala::detail::inject_write_fault(bytes);
}

void set_switch_hook(std::function<void(int step)> hook) {
  std::lock_guard<std::mutex> lk(g_hook_mu);
  g_switch_hook = std::move(hook);
}

}  // namespace exala::detail::stripe
