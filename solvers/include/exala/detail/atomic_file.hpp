// exala/detail/atomic_file.hpp - the one atomic writer of ExaLA: every file the
// `exala` tool or the stripe store writes goes through it.
//
// Guarantee: a reader of the final name sees either the complete previous
// file (or none) or the complete new one, never a torn or partial file, even
// when the process is killed, the disk fills up or a write fails. The data go
// to a temporary file "<final>.tmp.<pid>.<seq>" in the same directory (so
// rename() is atomic), which commit() optionally fsyncs, closes and renames
// over the final name, then fsyncs the directory (with sync). An
// atomic_file destroyed without commit() removes its temporary file.
// Assumptions: a POSIX file system where rename() within a directory is
// atomic. Every failure throws exala::detail::write_failure, whose message
// names the file, the cause (the errno text: "no space left on device", ...)
// and says that the previous file is kept.
//
// Fault injection (tests): after `bytes` more bytes written through any
// atomic_file of this process, every write fails as on a full disk (ENOSPC);
// inject_write_fault(-1) turns it off; the environment variable
// EXALA_FAULT_WRITE_BYTES sets it at the first write.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "exala/error.hpp"

namespace exala::detail {

class write_failure : public exala::error {
 public:
  write_failure(std::string path, int err, const std::string& what)
      : error(what), path_(std::move(path)), errno_(err) {}
  // The final name of the file that could not be written.
  const std::string& path() const noexcept { return path_; }
  // The errno value behind it (0 when there was none).
  int err() const noexcept { return errno_; }

 private:
  std::string path_;
  int errno_;
};

class atomic_file {
 public:
  // Creates the temporary file beside `final_path` (mode 0644 & ~umask).
  explicit atomic_file(std::filesystem::path final_path);
  ~atomic_file();
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;

  // Writes `bytes` at the end of what was written so far / at `offset`
  // (retried on EINTR and short counts, at most 1 GiB per system call).
  void write(const void* data, std::int64_t bytes);
  void pwrite(const void* data, std::int64_t bytes, std::int64_t offset);

  // Makes the file the final one: (sync) fsync, (drop_cache) fdatasync and
  // POSIX_FADV_DONTNEED, close, rename, (sync) fsync of the directory.
  void commit(bool sync = true, bool drop_cache = false);

  const std::filesystem::path& final_path() const noexcept { return final_; }
  const std::filesystem::path& temp_path() const noexcept { return tmp_; }
  int fd() const noexcept { return fd_; }
  // Bytes written so far (the total of every write and pwrite).
  std::int64_t bytes_written() const noexcept { return written_; }

  // Whether `name` (a file name, no directory) is the temporary of some
  // atomic_file: "<anything>.tmp.<digits>.<digits>".
  static bool is_temporary_name(const std::string& name);

 private:
  [[noreturn]] void fail(int err, const std::string& what);
  void discard() noexcept;

  std::filesystem::path final_, tmp_;
  int fd_ = -1;
  std::int64_t end_ = 0;      // where write() appends
  std::int64_t written_ = 0;  // bytes written
  bool committed_ = false;
};

// Writes `data` as the whole new content of `path` through an atomic_file.
void write_file_atomically(const std::filesystem::path& path, const std::string& data,
                           bool sync = true);

// See "Fault injection" above.
void inject_write_fault(std::int64_t bytes);

// fsync of a directory (after a rename or an unlink in it); EINVAL and EROFS
// (file systems that cannot sync directories) are not errors.
void fsync_directory(const std::filesystem::path& dir);

}  // namespace exala::detail
