// stripe/store.hpp - the disk tier of the stripe LU: a work directory set.
//
// A work directory set is one or more directories (several disks); dirs[0]
// holds the manifest, the right-hand sides and the progress journal; stripe
// files are spread round-robin: stripe I lives in dirs[I % dirs.size()].
//
// Files (every one: a fixed header with magic, version, kind, sizes, the
// identities below, and a 64-bit checksum of header and payload; payload
// column-major doubles):
//   manifest                 n, nrhs, original stripe height, max|a_ij|, ||A||_inf, source
//   rhs.bin, xtrue.bin       B (n x nrhs) and, for generated systems, the x used to make B
//   solution.bin             the last solution stored for the system (n x nrhs; `exala solve
//                            --workdir` stores each one it accepts); the only file of the
//                            system written after finish(), replaced whole (atomically); a new
//                            system removes it (it is not one of the new system's files)
//   orig_<I>.bin             original stripe I (rows x n), never modified after creation
//   progress                 factorization parameters and the number of finished groups
//   act_<I>.bin              active part of factorization stripe I: columns [col0, n)
//                            after k pivot groups were applied
//   lseg_<I>_<c0>_<c1>.bin   final L columns [c0, c1) of stripe I (moved out of the active part)
//   lu_<I>.bin               factored stripe I: all n columns + its row interchanges
// (orig_ files use the original stripe height; act_/lseg_/lu_ files use the
// factorization's stripe height S recorded in `progress`.)
//
// Identity: create() draws a random 128-bit system id, written into the
// header of every file of the system (manifest, rhs.bin, xtrue.bin, orig_,
// and the factorization's files); a factorization draws a random 128-bit
// factorization id when it starts (clear_factorization) and writes it into
// `progress` and every act_/lseg_/lu_ file. A read checks both against the
// manifest and the progress journal, so a file copied in from another work
// directory, or left by another factorization, is refused naming it - even
// when its sizes and checksums are perfect.
//
// Safety: every write goes to a temporary name in the same directory and is
// renamed over the final name once complete (optionally after fsync), so a
// killed process leaves either the old or the new file, never a torn one;
// temporary files are removed on open. Every read checks the size and the
// checksum. Any failure throws exala::storage_error naming the stripe (or -1)
// and the file; a failed write (ENOSPC, EIO, an injected fault) removes its
// temporary file and leaves the previous state intact.
//
// A new system replaces an old one only when it is complete: create() writes
// it into a staging subdirectory ".exala-staging" of each work directory,
// and finish() writes the staged manifest last (the commit point), then
// moves the staged files over the old ones (the manifest last) and removes
// the old system's other files (its factorization, stripes beyond the new
// count). A failed or killed writer leaves the old system as it was (its
// staging is discarded by the next create or open); a writer killed after
// the commit point leaves the new one, which the next create or open
// finishes moving into place. So a work directory always holds one complete
// system (or none), never a mixture. The cost: while it is written, the new
// system takes its space beside the old one.
//
// Thread safety: all const and non-const member functions may be called
// concurrently for different files (the I/O threads do).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace exala::detail::stripe {

// A random 128-bit identity (0: none).
struct id128 {
  std::uint64_t hi = 0, lo = 0;
  bool empty() const noexcept { return hi == 0 && lo == 0; }
  friend bool operator==(const id128&, const id128&) = default;
  std::string hex() const;  // 32 hex digits
  // A fresh one from the system's random source (getrandom), never empty.
  static id128 random();
};

struct manifest {
  std::int64_t n = 0;
  std::int64_t nrhs = 0;
  std::int64_t stripe = 0;   // rows per orig_ file (the last one may be shorter)
  double max_abs = 0;        // max |a_ij|
  double norm_inf = 0;       // ||A||_inf = max_i sum_j |a_ij| (rounded upward)
  bool has_xtrue = false;
  std::string source;        // one line: how the system was made
  id128 system_id;           // drawn by create(), in every file of the system
};

struct progress_record {
  std::int64_t stripe = 0;     // S
  std::int64_t substripe = 0;  // S'
  std::int64_t meta = 1;       // stripes per pivot group
  int pivot = 0;               // exala::pivoting as int
  std::string engine;          // engine name (bits depend on it)
  std::int64_t groups_done = 0;  // groups whose lu_ files are complete
};

struct io_counters {
  std::atomic<std::int64_t> bytes_read{0};
  std::atomic<std::int64_t> bytes_read_direct{0};  // of bytes_read: with O_DIRECT (drop policy)
  std::atomic<std::int64_t> bytes_written{0};
  std::atomic<std::int64_t> files_read{0};
  std::atomic<std::int64_t> files_written{0};
};

class store {
 public:
  // Creates a new set: makes the directories if needed; throws
  // storage_error if dirs[0] already holds a manifest and !overwrite. The new
  // set is staged (see "A new system replaces an old one" above): the old
  // set, if any, stays readable and untouched until finish() succeeds.
  static store create(const std::vector<std::string>& dirs, std::int64_t n, std::int64_t nrhs,
                      std::int64_t stripe, bool overwrite);
  // Opens an existing, complete set (manifest present and valid), after
  // finishing the switch-over of a new set that was committed but not yet
  // moved into place, or discarding an uncommitted staged one.
  // partial: orig_ files may be missing (a rank's copy of its own stripes in
  // the distributed stripe LU, exala/mpi.hpp); reading one fails as "missing".
  static store open(const std::vector<std::string>& dirs, bool partial = false);

  store(store&&) noexcept;
  store& operator=(store&&) noexcept;
  ~store();

  const manifest& info() const;
  const std::vector<std::string>& dirs() const;
  // sync: fsync files and directories before rename (power-loss safety).
  // drop_cache: keep the files out of the page cache so the disk tier is
  // real: payload reads into 4096-aligned memory at aligned offsets bypass it
  // (O_DIRECT, no copy through the kernel; buffered where the file system
  // refuses), and after each read/write the kernel is asked to drop the
  // file's pages (posix_fadvise DONTNEED after fdatasync).
  void set_policy(bool sync, bool drop_cache);
  io_counters& counters() const;

  // --- the original system, written once by generate / import ---
  void write_original(std::int64_t index, const double* data, std::int64_t ld);  // rows_I x n
  void write_rhs(const double* b, std::int64_t ldb);                              // n x nrhs
  void write_xtrue(const double* x, std::int64_t ldx);                            // n x nrhs
  // Checks that B was written (when nrhs > 0; stripe_system_writer checks
  // the stripes, a rank's copy in the distributed stripe LU holds only its
  // own), writes the manifest last (the commit point), and moves the new
  // set into place over the old one, removing every file of the old set
  // that the new one does not replace. A set without a manifest is
  // incomplete (open fails).
  void finish(double max_abs, double norm_inf, const std::string& source);
  // Rows [row0, row0+rows) x columns [c0, c1) of A into dst (column-major, ld);
  // any row range (it may span several orig_ files).
  void read_original(std::int64_t row0, std::int64_t rows, std::int64_t c0, std::int64_t c1,
                     double* dst, std::int64_t ld) const;
  void read_rhs(double* b, std::int64_t ldb) const;
  bool read_xtrue(double* x, std::int64_t ldx) const;  // false if none
  // A solution of the finished system (n x nrhs), replacing the stored one
  // atomically: it carries the system id (not a factorization's: it stays
  // valid for the system whatever is factored later).
  void write_solution(const double* x, std::int64_t ldx);
  bool read_solution(double* x, std::int64_t ldx) const;  // false if none

  // --- factorization state (stripe index I of the factorization's S) ---
  // (Only on a finished set.) The store's factorization id is the journal's
  // once read_progress has read it; clear_factorization draws a new one; a
  // factorization file written or read before either adopts the journal's
  // (or draws one when there is no journal).
  std::optional<progress_record> read_progress() const;
  void write_progress(const progress_record& p);
  // The store's factorization id (empty until known; see above).
  id128 factorization_id() const;
  // Removes progress (first), act_, lseg_ and lu_ files, and draws a new
  // factorization id (a fresh factorization).
  void clear_factorization();

  struct active_header {
    std::int64_t groups_applied = 0;
    std::int64_t col0 = 0;
  };
  std::optional<active_header> read_active_header(std::int64_t index) const;
  // Columns [col0, n) of the stripe's `rows` rows.
  void write_active(std::int64_t index, std::int64_t rows, std::int64_t groups_applied,
                    std::int64_t col0, const double* data, std::int64_t ld);
  void read_active(std::int64_t index, std::int64_t rows, std::int64_t col0, double* dst,
                   std::int64_t ld) const;
  void remove_active(std::int64_t index);

  void write_lsegment(std::int64_t index, std::int64_t rows, std::int64_t c0, std::int64_t c1,
                      const double* data, std::int64_t ld);
  // The [c0, c1) ranges present for the stripe, sorted.
  std::vector<std::pair<std::int64_t, std::int64_t>> lsegments(std::int64_t index) const;
  void read_lsegment(std::int64_t index, std::int64_t rows, std::int64_t c0, std::int64_t c1,
                     double* dst, std::int64_t ld) const;
  void remove_lsegments(std::int64_t index);

  // Factored stripe: all n columns (rows x n, ld) and `rows` 0-based
  // in-stripe pivots (local pivoting) or global ones (partial; not stored out
  // of core). read_lu reads columns [c0, c1); ipiv may be null.
  void write_lu(std::int64_t index, std::int64_t rows, const double* data, std::int64_t ld,
                const std::int64_t* ipiv);
  void read_lu(std::int64_t index, std::int64_t rows, std::int64_t c0, std::int64_t c1,
               double* dst, std::int64_t ld, std::int64_t* ipiv) const;
  bool has_lu(std::int64_t index) const;

 private:
  struct impl;
  explicit store(impl* p);
  impl* p_ = nullptr;
};

// Test hook: called with 0, 1, 2, ... before each step (a rename or an
// unlink) of moving a committed new set into place; a hook that ends the
// process there simulates a crash at that step. Null: none.
void set_switch_hook(std::function<void(int step)> hook);

// Throws storage_error naming the directory when a file system of `dirs`
// has less space available (statvfs f_bavail) than the original files of an
// n x n system with nrhs right-hand sides and stripes of `stripe` rows need
// there (orig_ files round-robin over dirs, rhs.bin and xtrue.bin in
// dirs[0]; directories on one file system add up): generate and import
// check it before they write anything, rather than fail after hours.
// Environment EXALA_SKIP_SPACE_CHECK=1 skips it (file systems that report
// no or wrong free space).
void check_space_for_original(const std::vector<std::string>& dirs, std::int64_t n,
                              std::int64_t nrhs, std::int64_t stripe);

// Test hook: after `bytes` more bytes written by this process, every write
// fails as if the disk were full (ENOSPC); a negative value disables it. The
// environment variable EXALA_FAULT_WRITE_BYTES sets it at first use.
void inject_write_fault(std::int64_t bytes);
// Test hook: while on, every O_DIRECT open fails with EINVAL, as on a file
// system that refuses O_DIRECT (the buffered fallback).
void inject_direct_refusal(bool on);

// The files' 64-bit checksum (XXH64 construction: four multiply-rotate lanes
// over the 64-bit words, merged at the end): any change confined to one
// 8-byte word - one flipped byte in particular - changes it. Exposed for tests
// and tools (store.cpp describes the file format that uses it).
std::uint64_t checksum64(const void* data, std::size_t bytes, std::uint64_t seed = 0) noexcept;

}  // namespace exala::detail::stripe
