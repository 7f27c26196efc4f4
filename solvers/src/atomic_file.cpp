// atomic_file.cpp - the one atomic writer (see exala/detail/atomic_file.hpp).
#include "exala/detail/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <system_error>

namespace exala::detail {

namespace fs = std::filesystem;
using i64 = std::int64_t;

namespace {

constexpr i64 kMaxIo = i64(1) << 30;  // bytes per pwrite call

std::string errno_text(int e) { return std::system_category().message(e); }

// --- fault injection -------------------------------------------------------
// budget >= 0: bytes still allowed; -1: off; -2: the environment variable
// could not be parsed (every write fails and says so).
std::atomic<i64> g_fault_budget{-1};
std::once_flag g_fault_once;
std::string g_fault_env_text;

void init_fault_from_env() {
  std::call_once(g_fault_once, [] {
    const char* s = std::getenv("EXALA_FAULT_WRITE_BYTES");
    if (s == nullptr || *s == '\0') return;
    i64 v = 0;
    const char* end = s + std::strlen(s);
    auto r = std::from_chars(s, end, v);
    if (r.ec != std::errc() || r.ptr != end) {
      g_fault_env_text = s;
      g_fault_budget.store(-2);
      return;
    }
    g_fault_budget.store(v < 0 ? -1 : v);
  });
}

// How many of `len` bytes the fault budget lets through (len when off, -1
// when the environment variable is not a number).
i64 fault_allow(i64 len) {
  init_fault_from_env();
  i64 cur = g_fault_budget.load();
  for (;;) {
    if (cur == -1) return len;
    if (cur < 0) return -1;
    const i64 take = std::min(cur, len);
    if (g_fault_budget.compare_exchange_weak(cur, cur - take)) return take;
  }
}

// Gives back bytes taken by fault_allow but not written (short write, EINTR).
void fault_refund(i64 bytes) {
  if (bytes <= 0) return;
  i64 cur = g_fault_budget.load();
  while (cur >= 0 && !g_fault_budget.compare_exchange_weak(cur, cur + bytes)) {
  }
}

std::atomic<std::uint64_t> g_seq{0};

}  // namespace

void inject_write_fault(i64 bytes) {
  init_fault_from_env();
  g_fault_budget.store(bytes < 0 ? -1 : bytes);
}

void fsync_directory(const fs::path& dir) {
  const fs::path d = dir.empty() ? fs::path(".") : dir;
  const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    throw write_failure(d.string(), e,
                        "cannot open directory '" + d.string() + "' to sync it: " + errno_text(e));
  }
  const int r = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  if (r != 0 && e != EINVAL && e != EROFS)
    throw write_failure(d.string(), e, "fsync of directory '" + d.string() + "' failed: " + errno_text(e));
}

bool atomic_file::is_temporary_name(const std::string& name) {
  // "<x>.tmp.<digits>.<digits>"
  const auto last = name.rfind('.');
  if (last == std::string::npos || last + 1 == name.size()) return false;
  const auto mid = name.rfind('.', last - 1);
  if (mid == std::string::npos || mid + 1 == last || mid < 4) return false;
  if (name.compare(mid - 4, 4, ".tmp") != 0) return false;
  auto digits = [&](std::size_t a, std::size_t b) {
    for (std::size_t i = a; i < b; ++i)
      if (name[i] < '0' || name[i] > '9') return false;
    return true;
  };
  return digits(mid + 1, last) && digits(last + 1, name.size());
}

atomic_file::atomic_file(fs::path final_path) : final_(std::move(final_path)) {
  tmp_ = final_.string() + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(g_seq.fetch_add(1));
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int e = errno;
    throw write_failure(final_.string(), e,
                        "cannot create the temporary file '" + tmp_.string() + "' to write '" +
                            final_.string() + "': " + errno_text(e));
  }
}

atomic_file::~atomic_file() {
  if (!committed_) discard();
}

void atomic_file::discard() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void atomic_file::fail(int err, const std::string& what) {
  discard();
  throw write_failure(final_.string(), err, what + ": the previous state is kept");
}

void atomic_file::write(const void* data, i64 bytes) {
  pwrite(data, bytes, end_);
}

void atomic_file::pwrite(const void* data, i64 bytes, i64 offset) {
  if (fd_ < 0) fail(EBADF, "write to '" + tmp_.string() + "' after it was closed");
  auto p = static_cast<const char*>(data);
  i64 done = 0;
  while (done < bytes) {
    const i64 want = std::min(bytes - done, kMaxIo);
    const i64 allow = fault_allow(want);
    if (allow < 0)
      fail(0, "EXALA_FAULT_WRITE_BYTES='" + g_fault_env_text +
                  "' is not a byte count: writes are refused (unset it or give an integer)");
    int err = 0;
    ssize_t w = 0;
    if (allow > 0) {
      w = ::pwrite(fd_, p + done, static_cast<std::size_t>(allow), static_cast<off_t>(offset + done));
      if (w < 0) err = errno;
      fault_refund(allow - std::max<i64>(w, 0));
    } else {
      err = ENOSPC;  // the injected fault: the "disk" is full
    }
    if (w > 0) {
      done += w;
      written_ += w;
      if (allow < want && w == allow) err = ENOSPC;  // budget used up inside this call
    }
    if (err == EINTR) continue;
    if (err == ENOSPC || err == EDQUOT)
      fail(err, std::string(err == ENOSPC ? "no space left on device" : "disk quota exceeded") +
                    " while writing '" + tmp_.string() + "' (" + std::to_string(written_) +
                    " bytes written)");
    if (err != 0) fail(err, "write error on '" + tmp_.string() + "': " + errno_text(err));
    if (w == 0 && allow > 0) fail(EIO, "write of '" + tmp_.string() + "' made no progress");
  }
  end_ = std::max(end_, offset + bytes);
}

void atomic_file::commit(bool sync, bool drop_cache) {
  if (fd_ < 0) fail(EBADF, "commit of '" + tmp_.string() + "' after it was closed");
  if (sync ? ::fsync(fd_) != 0 : (drop_cache && ::fdatasync(fd_) != 0)) {
    const int e = errno;
    fail(e, "fsync of '" + tmp_.string() + "' failed: " + errno_text(e));
  }
  if (drop_cache) (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int e = errno;
    fail(e, "close of '" + tmp_.string() + "' failed: " + errno_text(e));
  }
  if (::rename(tmp_.c_str(), final_.c_str()) != 0) {
    const int e = errno;
    fail(e, "cannot rename '" + tmp_.string() + "' to '" + final_.string() + "': " + errno_text(e));
  }
  committed_ = true;
  if (sync) fsync_directory(final_.parent_path());
}

void write_file_atomically(const fs::path& path, const std::string& data, bool sync) {
  atomic_file f(path);
  f.write(data.data(), static_cast<i64>(data.size()));
  f.commit(sync);
}

}  // namespace exala::detail
