// store.cpp - the disk tier of the stripe LU (see store.hpp for the files).
//
// Guarantee: a reader gets back exactly the bytes a writer handed over, or an
// exala::storage_error naming the stripe and the file; a failed writer leaves
// the previous file untouched. Assumptions stated once: a POSIX file system
// where rename() within a directory is atomic, and a little-endian host (the
// files hold native little-endian words; the magic would not match on a
// big-endian reader).
//
// The store is four files: store_checksum.cpp (checksum64, the random ids),
// store_format.cpp (the file format, the names, the records), store_io.cpp
// (the verified reader, the writer, fault injection) and this one (create,
// open, the switch-over to a new system, the API); store_internal.hpp holds
// what they share.
#include "store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>

#include "exala/checked.hpp"
#include "exala/detail/atomic_file.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "store_internal.hpp"

namespace exala::detail::stripe {

namespace {

// Test hook of the switch-over (set_switch_hook).
std::mutex g_hook_mu;
std::function<void(int)> g_switch_hook;

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
void store::write_solution(const double* x, i64 ldx) {
  impl& s = *p_;
  const i64 n = s.info.n, nrhs = s.info.nrhs;
  check_arg(x != nullptr || nrhs == 0, "x", "is null");
  check_arg(ldx >= n, "ldx", "must be >= n = " + num(n) + " (got " + num(ldx) + ")");
  check_span("ldx", nrhs, n, ldx);
  if (s.staging)
    throw exala::error("exala: stripe store: solution.bin: the system is not finished");
  payload_src src;
  src.parts[0] = block{reinterpret_cast<const char*>(x), n * 8, nrhs, ldx * 8};
  src.count = nrhs > 0 ? 1 : 0;
  s.write_file(s.main_dir() / "solution.bin", -1,
               blank_header(kind::solution, n, n, -1, 0, 0, nrhs, nrhs, 0), src);
}
bool store::read_solution(double* x, i64 ldx) const {
  if (p_->staging || !path_exists(p_->main_dir() / "solution.bin", -1)) return false;
  p_->read_nrhs(kind::solution, "solution.bin", x, ldx, "x", "ldx");
  return true;
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

void set_switch_hook(std::function<void(int step)> hook) {
  std::lock_guard<std::mutex> lk(g_hook_mu);
  g_switch_hook = std::move(hook);
}

}  // namespace exala::detail::stripe
