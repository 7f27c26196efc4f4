// store_internal.hpp - what the parts of the stripe store share (private to
// store.cpp, store_checksum.cpp, store_format.cpp and store_io.cpp; not
// installed, not included elsewhere).
//
// The parts: store_checksum.cpp (checksum64, ids), store_format.cpp (the file
// layout, names and records), store_io.cpp (POSIX I/O, the verified reader and
// the atomic writer, fault injection), store.cpp (the store API). What one
// part alone uses stays in its anonymous namespace; what several use lives in
// store_internal below (the names they used when they were one file).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exala/checked.hpp"
#include "store.hpp"

static_assert(std::endian::native == std::endian::little,
              "the stripe store writes little-endian words and reads them natively");

namespace exala::detail::stripe {
namespace store_internal {

// --- checksum64's streaming form (store_checksum.cpp) ----------------------
inline constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ull;
inline constexpr std::uint64_t P2 = 0xC2B2AE3D27D4EB4Full;
inline constexpr std::uint64_t P3 = 0x165667B19E3779F9ull;
inline constexpr std::uint64_t P4 = 0x85EBCA77C2B2AE63ull;
inline constexpr std::uint64_t P5 = 0x27D4EB2F165667C5ull;

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

// --- format constants and helpers (store_format.cpp) -----------------------
namespace fs = std::filesystem;
using i64 = std::int64_t;
using u64 = std::uint64_t;

inline constexpr char kMagic[8] = {'E', 'X', 'A', 'L', 'A', 'S', 'T', 'P'};
inline constexpr std::uint32_t kVersion = 2;
inline constexpr i64 kHeaderBytes = 256;
inline constexpr i64 kChunk = i64{1} << 20;       // checksum granularity
inline constexpr i64 kWindow = i64{16} << 20;     // staging buffer (multiple of kChunk)
inline constexpr i64 kMaxIo = i64{1} << 30;       // bytes per pread/pwrite call
inline constexpr i64 kDataAlign = 4096;
inline constexpr u64 kTableSeed = 0x5eed;
inline constexpr u64 kHeaderSeed = 0x4ead;
// Bound on the elements of one file / of B: the byte sizes (8 per element,
// plus the data offset) stay far from int64 overflow. Stricter than
// exala::detail::max_elements (2^60 - 1), which bounds addresses.
inline constexpr i64 kMaxElements = i64{1} << 58;
static_assert(kMaxElements <= exala::detail::max_elements);
// Bytes of one payload: 8 kMaxElements doubles plus as many pivots.
inline constexpr i64 kMaxPayload = 16 * kMaxElements;
// Manifest and progress records are small; a larger one is not ours.
inline constexpr i64 kMaxRecord = i64{1} << 20;
// The staging subdirectory of a work directory (a new system being written).
inline constexpr const char* kStaging = ".exala-staging";

enum class kind : std::uint32_t {
  manifest = 1,
  rhs = 2,
  xtrue = 3,
  orig = 4,
  progress = 5,
  active = 6,
  lseg = 7,
  lu = 8,
  solution = 9,
};

const char* kind_name(std::uint32_t k);

// progress, act_, lseg_, lu_: the files of one factorization.
bool factorization_kind(kind k);

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

i64 chunks_of(i64 payload);
i64 data_offset_of(i64 payload);
i64 file_size_of(i64 payload);

u64 header_checksum(const header& h);

std::string errno_text(int e);

[[noreturn]] void fail(i64 stripe, const std::string& path, const std::string& what);

std::string num(i64 v);

// a * b for a, b >= 0 when the product has at most kMaxElements elements
// (exala/checked.hpp's exact product), else nothing.
std::optional<i64> elements_of(i64 a, i64 b);

// Throws invalid_argument(ld_name) when a block of `cols` columns of `rows`
// elements, `ld` apart, spans more than exala::detail::max_elements.
// (ld itself too: the writer and the staged reads step by ld * 8 bytes.)
void check_span(const char* ld_name, i64 cols, i64 rows, i64 ld);

// --- names (store_format.cpp) ----------------------------------------------
// Splits "prefix<a>_<b>...suffix" numbers; returns false if it does not match.
bool parse_numbered(std::string_view name, std::string_view prefix, int count, i64* out);

enum class name_class { none, original, factorization };

name_class classify(std::string_view name);

// "<exala name>.tmp.<pid>.<seq>" -> the class of the exala name.
name_class classify_temp(std::string_view name);

// --- manifest / progress records (store_format.cpp) -------------------------
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

// --- raw I/O (store_io.cpp) ------------------------------------------------
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
i64 pread_full(int fd, void* dst, i64 len, i64 off, i64 stripe, const std::string& path);
// O_DIRECT's alignment of the buffer, the file offset and the length.
inline constexpr i64 kDirectAlign = 4096;

// --- payload sources / sinks (store_format.cpp, store_io.cpp) ---------------
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

payload_src contiguous_src(const std::vector<char>& v);

header blank_header(kind k, i64 n, i64 rows, i64 index, i64 row0, i64 col0, i64 col1, i64 aux,
                    i64 groups);

void check_arg(bool ok, const char* arg, const std::string& what);

// A per-thread buffer of at least `bytes` bytes.
std::vector<char>& scratch(i64 bytes);

// Verified reader of one file.
struct reader {
  i64 stripe = -1;
  std::string path;
  fd_guard fd;
  fd_guard direct_fd;  // O_DIRECT, opened by the first payload read that may use it
  header h{};
  std::vector<u64> table;
  i64 size = 0;
};

}  // namespace store_internal

// The parts were one file, with the above in its anonymous namespace.
using namespace store_internal;

// ---------------------------------------------------------------------------
// store::impl
// ---------------------------------------------------------------------------
struct store::impl {
  std::vector<std::string> dirs;
  manifest info;
  std::mutex info_mu;
  std::atomic<bool> sync{false};
  std::atomic<bool> drop{false};
  // O_DIRECT reads (under the drop policy) until a file system refuses them.
  mutable std::atomic<bool> direct_ok{true};
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
  // Exactly len bytes at file offset off into dst. Under the drop policy,
  // where dst and off are kDirectAlign-aligned, the aligned body bypasses the
  // page cache (O_DIRECT: no copy through it, nothing to drop afterwards) and
  // the rest (< kDirectAlign bytes) is read as usual; a file system that
  // refuses O_DIRECT (EINVAL: tmpfs, some network file systems) turns it off
  // for this store. Counts the bytes in io.bytes_read.
  void read_payload(reader& r, char* dst, i64 off, i64 len) const;
  // Exactly len bytes at file offset off into dst through the page cache
  // ("truncated" if the file ends first); counts them in io.bytes_read.
  void read_buffered(reader& r, char* dst, i64 off, i64 len) const;
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

// Defined here: store.cpp reads the pivots of lu_ with it (read_lu).
template <class Sink>
void store::impl::read_range(reader& r, i64 b0, i64 b1, char* direct, Sink&& sink) const {
  if (b1 <= b0) return;
  const i64 payload = static_cast<i64>(r.h.payload_bytes);
  const i64 doff = static_cast<i64>(r.h.data_offset);
  const i64 a0 = b0 / kChunk * kChunk;
  const i64 a1 = std::min(payload, (b1 + kChunk - 1) / kChunk * kChunk);
  auto read_exact = [&](char* dst, i64 off, i64 len) { read_buffered(r, dst, doff + off, len); };
  auto bad_chunk = [&](i64 k) {
    fail(r.stripe, r.path, "checksum mismatch in payload bytes [" + num(k * kChunk) + ", " +
                               num(std::min(payload, (k + 1) * kChunk)) +
                               ") (the file is corrupted)");
  };
  if (direct != nullptr) {
    // One pread of the range into the destination (read_payload: O_DIRECT
    // where allowed), the partial end chunks into scratch; each chunk
    // verified from its (up to three) pieces.
    std::vector<char>& buf = scratch(2 * kChunk);
    char* head = buf.data();
    char* tail = buf.data() + kChunk;
    read_payload(r, direct, doff + b0, b1 - b0);
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

}  // namespace exala::detail::stripe
