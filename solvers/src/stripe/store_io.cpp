// store_io.cpp - the stripe store's POSIX I/O: the verified reader, the
// writer (through the one atomic writer) and fault injection (the store and
// its guarantee: store.cpp; the file format: store_format.cpp).
//
// The per-chunk checksums let a read of any byte range (a column range is a
// contiguous byte range of a column-major stripe) be verified by reading only
// the chunks it touches: one pread of the range straight into the destination
// (when its leading dimension is the file's rows; under the drop policy with
// O_DIRECT where the destination and offset are 4096-aligned, which saves
// the kernel's copy through the page cache: 4% of all CPU samples of an
// out-of-core run, n = 15000, on the 2-core machine), plus the partial chunks at
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
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "exala/detail/atomic_file.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "store_internal.hpp"

namespace exala::detail::stripe {

// --- raw I/O -----------------------------------------------------------------
namespace store_internal {

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

std::vector<char>& scratch(i64 bytes) {
  thread_local std::vector<char> buf;
  if (static_cast<i64>(buf.size()) < bytes) {
    buf.clear();
    buf.shrink_to_fit();
    buf.resize(static_cast<std::size_t>(bytes));
  }
  return buf;
}

}  // namespace store_internal

namespace {

std::string display_name(const fs::path& p) { return p.string(); }

}  // namespace

// ---------------------------------------------------------------------------
// store::impl
// ---------------------------------------------------------------------------
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

namespace {
std::atomic<bool> refuse_direct{false};
}
void inject_direct_refusal(bool on) { refuse_direct = on; }

void store::impl::read_payload(reader& r, char* dst, i64 off, i64 len) const {
  i64 done = 0;
  const bool aligned = reinterpret_cast<std::uintptr_t>(dst) % kDirectAlign == 0 && off % kDirectAlign == 0;
  if (aligned && len >= kDirectAlign && drop.load() && direct_ok.load(std::memory_order_relaxed)) {
    if (r.direct_fd.fd < 0) {
      if (refuse_direct.load())
        errno = EINVAL;
      else
        r.direct_fd.fd = ::open(r.path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
    }
    if (r.direct_fd.fd < 0 && errno == EINVAL) direct_ok.store(false, std::memory_order_relaxed);
    const i64 body = len / kDirectAlign * kDirectAlign;
    while (r.direct_fd.fd >= 0 && done < body) {
      const ssize_t got = ::pread(r.direct_fd.fd, dst + done, static_cast<std::size_t>(std::min(body - done, kMaxIo)),
                                  static_cast<off_t>(off + done));
      if (got > 0 && got % kDirectAlign == 0) {
        done += got;
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      // Refused (EINVAL), or a short count the file's size does not explain:
      // the buffered read below takes over from `done`, and reports errors.
      if (got < 0 && errno == EINVAL) direct_ok.store(false, std::memory_order_relaxed);
      if (got > 0) done += got;
      break;
    }
  }
  if (done > 0) {
    io.bytes_read.fetch_add(done, std::memory_order_relaxed);
    io.bytes_read_direct.fetch_add(done, std::memory_order_relaxed);
  }
  if (done < len) read_buffered(r, dst + done, off + done, len - done);
}

void store::impl::read_buffered(reader& r, char* dst, i64 off, i64 len) const {
  if (pread_full(r.fd.fd, dst, len, off, r.stripe, r.path) != len)
    fail(r.stripe, r.path, "truncated while reading (the file shrank)");
  io.bytes_read.fetch_add(len, std::memory_order_relaxed);
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

void inject_write_fault(i64 bytes) {
  exala::detail::inject_write_fault(bytes);
}

}  // namespace exala::detail::stripe
