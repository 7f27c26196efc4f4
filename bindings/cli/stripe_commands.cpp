// stripe_commands.cpp - `exala generate dense`, `exala import` and `exala
// solve` over the stripe LU (see stripe_commands.hpp).
//
// Order of work in every command: all option values are checked first (a
// typo costs nothing), then the input files are opened and their sizes
// checked, then the long work runs. The solution goes to -o or stdout; the
// progress display and the summary go to stderr (not with --quiet). A
// command that reads or writes a work directory set holds an advisory lock
// on every directory of it (workdir_lock), so that a second command stops
// at once. The stripe LU solves finite systems: a value of A or B that is
// not finite is reported with its file and line. A refined solution whose
// backward error stays far above its bound is an error, not a result
// (check_backward_error).
#include "stripe_commands.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exala/checked.hpp"
#include "exala/stripe_lu.hpp"
#include "forward_error.hpp"
#include "matrix_market.hpp"
#include "progress.hpp"

namespace exala::cli {

// ---- option_values ----

void option_values::add(std::string_view name, std::string_view value) {
  auto it = values_.find(name);
  if (it == values_.end()) {
    it = values_.emplace(std::string(name), std::vector<std::string>{}).first;
    order_.emplace_back(name);
  }
  it->second.emplace_back(value);
}

bool option_values::has(std::string_view name) const { return values_.find(name) != values_.end(); }

std::optional<std::string_view> option_values::get(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return std::string_view(it->second.back());
}

const std::vector<std::string>& option_values::all(std::string_view name) const {
  static const std::vector<std::string> none;
  const auto it = values_.find(name);
  return it == values_.end() ? none : it->second;
}

namespace {

using clock_type = std::chrono::steady_clock;

constexpr std::int64_t max_dense_n = 1'000'000'000;  // n^2 doubles still count in int64 bytes
constexpr std::int64_t max_nrhs = 1'000'000;
constexpr std::int64_t default_stripe_bytes = 32LL << 20;  // original stripes of ~32 MiB
constexpr std::uint64_t default_buffer = 1ULL << 30;       // import: 1 GiB of A
constexpr int max_refine_steps = 100;
constexpr int max_io_threads = 64;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// A whole decimal number in [lo, hi] (digits only).
std::int64_t parse_int(std::string_view name, std::string_view value, std::int64_t lo,
                       std::int64_t hi) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || value[0] == '+' || ec != std::errc{} ||
      end != value.data() + value.size() || v < lo || v > hi)
    throw usage_error("option '" + std::string(name) + "' needs an integer from " +
                      std::to_string(lo) + " to " + std::to_string(hi) + ", got " + quote_value(value));
  return v;
}

std::optional<std::int64_t> int_option(const stripe_request& r, std::string_view name,
                                       std::int64_t lo, std::int64_t hi) {
  const auto v = r.options.get(name);
  if (!v) return std::nullopt;
  return parse_int(name, *v, lo, hi);
}

// "A.mtx:5: entry (2, 1) is nan: ..." for a value that is not finite.
void require_finite(const exala::io::matrix_stream& s, std::int64_t i, std::int64_t j, double v,
                    std::string_view what) {
  if (!std::isfinite(v))
    s.fail("entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") is " +
           exala::io::format_real(v) + ": " + std::string(what) + " must be finite");
}

// The matrix of a Matrix Market file, dense and column-major, as
// exala::io::read_matrix_file reads it, but refusing a value that is not
// finite with the file and its line (what: "the matrix", ...).
exala::io::array read_finite_matrix(const std::string& path, std::string_view what) {
  return exala::io::read_matrix_file(
      path, [what](const exala::io::matrix_stream& s, std::int64_t i, std::int64_t j, double v) {
        require_finite(s, i, j, v, what);
      });
}

std::vector<std::string> required_workdirs(const stripe_request& r, std::string_view what) {
  std::vector<std::string> dirs = workdirs_of(r);
  if (dirs.empty()) throw usage_error(std::string(what) + " needs '--workdir DIR'");
  return dirs;
}

// generate dense and import write only stripe files.
void reject_output_and_threads(const stripe_request& r, std::string_view what) {
  if (!r.output.empty())
    throw usage_error("option '-o' does not apply to '" + std::string(what) +
                      "' (it writes to --workdir)");
  if (r.threads != 0)
    throw usage_error("option '--threads' does not apply to '" + std::string(what) + "'");
}

std::string plural(std::int64_t k, std::string_view one, std::string_view many) {
  return std::to_string(k) + " " + std::string(k == 1 ? one : many);
}

// Rows of the original stripes when --stripe is not given: ~32 MiB each.
std::int64_t default_stripe(std::int64_t n) {
  return std::clamp<std::int64_t>(default_stripe_bytes / (8 * n), 1, n);
}

bool quiet(const stripe_request& r) { return r.options.has("--quiet"); }

}  // namespace

// --progress-interval SEC: seconds between plain progress lines.
double progress_interval(const stripe_request& r) {
  const auto v = r.options.get("--progress-interval");
  if (!v) return default_progress_interval;
  const double t = parse_real_option("--progress-interval", *v);
  if (!(t >= 0) || !std::isfinite(t))
    throw usage_error("option '--progress-interval' needs a number of seconds >= 0, got " +
                      quote_value(*v));
  return t;
}

namespace {

exala::stripe_order parse_order(std::string_view v) {
  if (v == "basic") return exala::stripe_order::basic;
  if (v == "zigzag") return exala::stripe_order::zigzag;
  if (v == "meta-zigzag") return exala::stripe_order::meta_zigzag;
  throw usage_error("option '--order' has unknown value " + quote_value(v) +
                    " (expected basic|zigzag|meta-zigzag)");
}

exala::pivoting parse_pivot(std::string_view v) {
  if (v == "local") return exala::pivoting::local;
  if (v == "partial") return exala::pivoting::partial;
  throw usage_error("option '--pivot' has unknown value " + quote_value(v) + " (expected local|partial)");
}


// Runs `write` (which creates a stripe system); the library's advice for a
// work directory that already holds one is worded for the C++ API.
template <class F>
void creating_system(bool force, F write) {
  try {
    write();
  } catch (const exala::storage_error& e) {
    const std::string api = "pass overwrite to replace it";
    std::string what = e.what();
    const std::size_t at = what.find(api);
    if (force || at == std::string::npos) throw;
    what.replace(at, api.size(), "give --force to replace it");
    if (what.starts_with("exala: ")) what.erase(0, 7);
    throw exala::error(what);
  }
}

// One process: A and B read whole (values that are not finite refused).
class local_in_core final : public in_core_placement {
 public:
  std::string where() const override { return "in core"; }

  in_core_system read(const std::string& afile, const std::string& bfile,
                      const solve_settings&) override {
    a_ = read_finite_matrix(afile, "the matrix");
    exala::io::array b = read_finite_matrix(bfile, "the right-hand sides");
    const exala::io::array& a = a_;
    const std::string ashape = std::to_string(a.rows) + " x " + std::to_string(a.cols);
    if (a.rows != a.cols)
      throw usage_error("solve: " + exala::io::printable(afile, 4096) + " (" + ashape +
                        ") is not square");
    if (a.rows == 0) throw usage_error("solve: " + exala::io::printable(afile, 4096) + " is empty");
    const std::int64_t n = a.rows;
    if (b.rows != n || b.cols == 0)
      throw usage_error("solve: " + exala::io::printable(bfile, 4096) + " (" +
                        std::to_string(b.rows) + " x " + std::to_string(b.cols) +
                        ") does not fit " + exala::io::printable(afile, 4096) + " (" + ashape +
                        "): B needs " + std::to_string(n) + " rows, one column per right-hand side");
    return {n, b.cols, std::move(b.values)};
  }

  exala::refine_report solve(const in_core_system& sys, solve_settings& s,
                             std::vector<double>& x) override {
    const std::int64_t n = sys.n, nrhs = sys.nrhs;
    lu_.emplace(n, a_.values.data(), n, s.opt);
    x.assign(static_cast<std::size_t>(n * nrhs), 0.0);
    return lu_->solve_refined(nrhs, sys.b.data(), n, x.data(), n, s.refine_steps);
  }

  exala::stripe_lu_report report() override { return lu_->report(); }

 private:
  exala::io::array a_;
  std::optional<exala::stripe_lu> lu_;
};

// One process: the set locked against other exala commands; the solver
// (its cache and I/O threads) is gone before the set is opened again for
// the reference and to store the solution.
class local_stored final : public stored_placement {
 public:
  void open(const std::vector<std::string>& dirs, solve_settings&) override {
    check_workdirs_exist(dirs);
    lock_.emplace(dirs, false);
  }

  exala::refine_report solve(const std::vector<std::string>& dirs, solve_settings& st,
                             std::vector<double>& x, std::int64_t& n) override {
    std::optional<exala::stripe_lu> lu;
    lu.emplace(dirs, st.opt);
    const exala::refine_report ref = lu->solve_stored(x, st.refine_steps);
    n = lu->n();
    rep_ = lu->report();
    return ref;
  }

  exala::stripe_lu_report report() override { return rep_; }

  std::string where(const exala::stripe_lu_report& rep, const std::vector<std::string>& dirs,
                    const solve_settings& st) const override {
    // The library solves in core when the whole system fits the cache.
    const std::string cache = "cache " + format_bytes(static_cast<double>(st.opt.cache_bytes));
    return rep.in_core ? "in core from " + dirs_text(dirs) + " (it fits the " + cache + ")"
                       : "out of core in " + dirs_text(dirs) + " (" + cache + ")";
  }

 private:
  std::optional<workdir_lock> lock_;
  exala::stripe_lu_report rep_;
};

}  // namespace

// ---- shared with mpi_commands.cpp (declared in stripe_commands.hpp) ----

solution solve_stored_system(const std::vector<std::string>& dirs, solve_settings& st,
                             stored_placement& place) {
  const auto t0 = clock_type::now();
  place.open(dirs, st);
  const std::unique_ptr<progress_display> display = place.root() ? make_display(st) : nullptr;
  attach(display.get(), st.opt);
  std::vector<double> x;
  std::int64_t n = 0;
  const exala::refine_report ref = place.solve(dirs, st, x, n);
  if (display) display->clear();
  const exala::stripe_lu_report rep = place.report();
  const std::int64_t nrhs = n > 0 ? static_cast<std::int64_t>(x.size()) / n : 0;
  if (place.root() && !st.quiet) {
    print_summary(rep, ref, nrhs, st.refine_steps, place.where(rep, dirs, st), seconds_since(t0));
    print_forward_error(dirs, n, nrhs, x);
  }
  place.check([&] { check_backward_error(ref, st.refine_steps); });
  if (place.root()) store_solution(dirs, n, x);  // (never throws: no rank waits on it)
  place.finish();
  return {n, nrhs, std::move(x)};
}

solution solve_in_core(const stripe_request& r, solve_settings& st, in_core_placement& place) {
  const auto t0 = clock_type::now();
  const in_core_system sys = place.read(r.operands[0], r.operands[1], st);
  const std::unique_ptr<progress_display> display = place.root() ? make_display(st) : nullptr;
  attach(display.get(), st.opt);
  std::vector<double> x;
  const exala::refine_report ref = place.solve(sys, st, x);
  if (display) display->clear();
  const exala::stripe_lu_report rep = place.report();
  if (place.root() && !st.quiet)
    print_summary(rep, ref, sys.nrhs, st.refine_steps, place.where(), seconds_since(t0));
  place.check([&] { check_backward_error(ref, st.refine_steps); });
  place.finish();
  return {sys.n, sys.nrhs, std::move(x)};
}

// The --workdir set: every value given, each one a comma list; no empty or
// repeated names. Empty when none was given.
std::vector<std::string> workdirs_of(const stripe_request& r) {
  std::vector<std::string> dirs;
  for (const std::string& value : r.options.all("--workdir")) {
    std::string_view rest = value;
    while (true) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      const std::string_view dir = rest.substr(0, comma);
      if (dir.empty())
        throw usage_error("option '--workdir' needs directory names, got " + quote_value(value));
      if (std::find(dirs.begin(), dirs.end(), dir) != dirs.end())
        throw usage_error("option '--workdir' names " + quote_value(dir) + " twice");
      dirs.emplace_back(dir);
      if (comma == rest.size()) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return dirs;
}

void check_workdirs_exist(const std::vector<std::string>& dirs) {
  for (const std::string& d : dirs) {
    struct stat st{};
    if (::stat(d.c_str(), &st) != 0) {
      const int e = errno;
      if (e == ENOENT) throw usage_error("work directory " + quote_value(d) + " does not exist");
      throw exala::error("work directory " + quote_value(d) + ": cannot stat it: " + std::strerror(e));
    }
    if (!S_ISDIR(st.st_mode)) throw usage_error("work directory " + quote_value(d) + " is not a directory");
  }
}

std::string dirs_text(const std::vector<std::string>& dirs) {
  std::string s;
  for (const std::string& d : dirs) {
    if (!s.empty()) s += ',';
    s += exala::io::printable(d, 4096);
  }
  return s;
}

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

workdir_lock::workdir_lock(const std::string& dir, bool create) {
  try {
    lock(dir, create);
  } catch (...) {
    for (const int fd : fds_) ::close(fd);
    throw;
  }
}

workdir_lock::workdir_lock(const std::vector<std::string>& dirs, bool create) {
  try {
    for (const std::string& d : dirs) lock(d, create);
  } catch (...) {
    for (const int fd : fds_) ::close(fd);
    throw;
  }
}

void workdir_lock::lock(const std::string& dir, bool create) {
  if (create) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);  // errors: the library names them
  }
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) return;  // reported by the caller or the library
    throw exala::error("work directory " + quote_value(dir) + ": cannot open it to lock it: " +
                       std::strerror(e));
  }
  // The same directory under another name: locked once (a second flock of
  // this process would fail as if another command held it).
  struct stat mine{};
  if (::fstat(fd, &mine) == 0)
    for (const int held : fds_) {
      struct stat other{};
      if (::fstat(held, &other) == 0 && other.st_dev == mine.st_dev && other.st_ino == mine.st_ino) {
        ::close(fd);
        return;
      }
    }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      throw exala::error("work directory " + quote_value(dir) +
                         " is in use by another exala command (let it finish, or stop it)");
    throw exala::error("work directory " + quote_value(dir) + ": cannot lock: " + std::strerror(e));
  }
  fds_.push_back(fd);
}

workdir_lock::~workdir_lock() {
  for (const int fd : fds_) ::close(fd);
}

void check_backward_error(const exala::refine_report& ref, int max_refine) {
  const double eta = ref.backward_error_after;
  if (std::isnan(eta))
    throw exala::error(
        "solve: the backward error of the solution is NaN (the solution is not finite): it is not "
        "written");
  if (max_refine > 0 && !(eta <= refined_error_limit))
    throw exala::error(
        "solve: after refinement the backward error is " + format_sci(eta) +
        ", far above the 2u = 2.2e-16 that refinement reaches from sound factors (limit 2^10 u = "
        "1.1e-13): no solution is written (the LU factors are too inaccurate for refinement to "
        "correct: element growth, or a condition number near 1/u; out of core, also a stripe file "
        "altered by hand: solve again with --restart)");
}

solve_settings solve_options(const stripe_request& r, bool out_of_core) {
  solve_settings s;
  exala::stripe_lu_options& o = s.opt;
  if (!out_of_core)
    for (std::string_view name : {"--cache", "--io-threads", "--restart", "--resume", "--sync",
                                  "--drop-page-cache", "--order", "--meta"})
      if (r.options.has(name))
        throw usage_error("option '" + std::string(name) +
                          "' applies to an out-of-core solve (--workdir) only");
  constexpr std::int64_t max_rows = std::numeric_limits<std::int64_t>::max() / 8;
  if (const auto v = int_option(r, "--stripe", 1, max_rows)) o.stripe = *v;
  if (const auto v = int_option(r, "--substripe", 1, max_rows)) o.substripe = *v;
  if (o.stripe > 0 && o.substripe > o.stripe)
    throw usage_error("option '--substripe' (" + std::to_string(o.substripe) +
                      ") exceeds '--stripe' (" + std::to_string(o.stripe) + ")");
  if (const auto v = r.options.get("--order")) o.order = parse_order(*v);
  if (const auto v = int_option(r, "--meta", 1, 1'000'000)) {
    if (o.order != exala::stripe_order::meta_zigzag)
      throw usage_error("option '--meta' needs '--order meta-zigzag'");
    o.meta = *v;
  }
  if (const auto v = r.options.get("--pivot")) o.pivot = parse_pivot(*v);
  if (const auto v = r.options.get("--engine")) {
    if (*v != "cpu" && *v != "cuda")
      throw usage_error("option '--engine' has unknown value " + quote_value(*v) + " (expected cpu|cuda)");
    o.engine = std::string(*v);
  }
  if (const auto v = r.options.get("--cache")) {
    o.cache_bytes = parse_size("--cache", *v);
  } else if (out_of_core) {
    o.cache_bytes = std::max<std::uint64_t>(physical_memory() / 2, 1);  // 0 would be unlimited
  }
  o.threads = r.threads;
  if (const auto v = int_option(r, "--io-threads", 1, max_io_threads))
    o.io_threads = static_cast<int>(*v);
  o.sync = r.options.has("--sync");
  o.drop_page_cache = r.options.has("--drop-page-cache");
  if (r.options.has("--restart") && r.options.has("--resume"))
    throw usage_error("options '--restart' and '--resume' exclude each other");
  o.resume = !r.options.has("--restart");
  if (r.options.has("--refine") && r.options.has("--no-refine"))
    throw usage_error("options '--refine' and '--no-refine' exclude each other");
  if (const auto v = r.options.get("--refine"); v && !v->empty())
    s.refine_steps = static_cast<int>(parse_int("--refine", *v, 0, max_refine_steps));
  if (r.options.has("--no-refine")) s.refine_steps = 0;
  s.progress_interval = progress_interval(r);
  s.quiet = quiet(r);
  return s;
}

// Checks before a long run that -o FILE will be writable (its directory
// exists and may be written), so that no result is lost at the end.
void check_output(const std::string& output) {
  if (output.empty() || output == "-") return;  // standard output
  namespace fs = std::filesystem;
  auto fail = [&](int e) -> void {
    throw exala::io::file_error(output, 0, std::string("cannot create file: ") + std::strerror(e));
  };
  struct stat st{};
  if (::stat(output.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw exala::io::file_error(output, 0, "is a directory");
    if (::access(output.c_str(), W_OK) != 0) fail(errno);
    // A device or FIFO (/dev/null) is written in place, not replaced.
    if (!S_ISREG(st.st_mode)) return;
  } else if (errno != ENOENT) {
    fail(errno);
  }
  // The file is written as a temporary beside it, then renamed: its
  // directory must take new files.
  fs::path dir = fs::path(output).parent_path();
  if (dir.empty()) dir = ".";
  if (::stat(dir.c_str(), &st) != 0) fail(errno);
  if (!S_ISDIR(st.st_mode)) fail(ENOTDIR);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(errno);
}

// The summary of a solve on stderr.
void print_summary(const exala::stripe_lu_report& rep, const exala::refine_report& ref,
                   std::int64_t nrhs, int max_refine, const std::string& where, double total_s) {
  std::ostream& e = std::cerr;
  e << "exala: solved n = " << rep.n << ", "
    << plural(nrhs, "right-hand side", "right-hand sides") << ", " << where << ", in "
    << format_duration(total_s) << '\n';
  e << "  stripes: S = " << rep.stripe << ", S' = " << rep.substripe;
  if (!rep.in_core) e << ", order " << rep.order << ", meta " << rep.meta;
  // (Out of core over ranks: the members of a pivot group factored during
  // the previous group's sweep.)
  if (!rep.in_core && rep.lookahead > 0) e << ", lookahead " << rep.lookahead;
  e << ", pivoting " << rep.pivot << ", engine " << rep.engine << '\n';
  e << "  factor: " << format_duration(rep.factor_seconds) << ", "
    << format_fixed(rep.factor_gflops, 2) << " GFLOP/s, ";
  if (rep.resumed)
    e << "resumed (" << plural(rep.groups_resumed, "pivot group was", "pivot groups were")
      << " already done)";
  else
    e << "not resumed";
  // (0: not known, as after resuming a finished factorization.)
  if (rep.min_pivot_ratio > 0) e << ", smallest pivot ratio " << format_sci(rep.min_pivot_ratio);
  e << '\n';
  if (!rep.in_core) {
    const std::int64_t acq = rep.cache_hits + rep.cache_misses;
    e << "  I/O: read " << format_bytes(static_cast<double>(rep.bytes_read)) << ", written "
      << format_bytes(static_cast<double>(rep.bytes_written)) << "; cache: " << rep.cache_hits
      << " hits, " << rep.cache_misses << " misses";
    if (acq > 0)
      e << " (" << format_fixed(100.0 * static_cast<double>(rep.cache_hits) /
                                    static_cast<double>(acq), 1)
        << "% hits)";
    e << ", peak " << format_bytes(static_cast<double>(rep.peak_cache_bytes)) << '\n';
  }
  e << "  refinement: ";
  if (max_refine == 0)
    e << "off, backward error " << format_sci(ref.backward_error_after);
  else
    // ("converged" only where it is true: the library also stops when a
    // correction changes no bit, whatever the error.)
    e << plural(ref.steps, "step", "steps")
      << (ref.converged && ref.backward_error_after <= refined_error_limit ? " (converged)" : "")
      << ", backward error " << format_sci(ref.backward_error_before) << " -> "
      << format_sci(ref.backward_error_after) << ", " << format_duration(ref.seconds);
  e << '\n' << std::flush;
}

void store_solution(const std::vector<std::string>& dirs, std::int64_t n,
                    const std::vector<double>& x) {
  try {
    exala::store_stripe_solution(dirs, x.data(), std::max<std::int64_t>(n, 1));
  } catch (const exala::error& err) {
    std::string what = err.what();
    if (what.starts_with("exala: ")) what.erase(0, 7);
    std::cerr << "exala: warning: the solution is not stored in " << dirs_text(dirs)
              << " ('exala export solution' gives the previous one, if any): " << what << '\n'
              << std::flush;
  }
}

void print_forward_error(const std::vector<std::string>& dirs, std::int64_t n, std::int64_t nrhs,
                         const std::vector<double>& x) {
  std::ostream& e = std::cerr;
  try {
    const exala::stripe_system_reader rd(dirs);
    if (rd.n() != n || rd.nrhs() != nrhs ||
        x.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(nrhs))
      return;  // (not the system that was solved: cannot happen under the lock)
    std::vector<double> xref(x.size());
    if (!rd.read_xtrue(xref.data(), std::max<std::int64_t>(n, 1))) return;
    e << "  forward error: " << format_sci(forward_error(n, nrhs, x.data(), xref.data()))
      << " (max |x_i - xref_i| / max |xref_i| against the stored reference solution xref"
      << (nrhs > 1 ? ", largest over the right-hand sides)" : ")") << '\n' << std::flush;
  } catch (const exala::error& err) {
    std::string what = err.what();
    if (what.starts_with("exala: ")) what.erase(0, 7);
    e << "  forward error: not computed, the stored reference solution cannot be read: " << what
      << '\n' << std::flush;
  }
}

// A progress display on stderr, or none (--quiet).
std::unique_ptr<progress_display> make_display(const solve_settings& s) {
  if (s.quiet) return nullptr;
  return std::make_unique<progress_display>(std::cerr, stderr_is_terminal(), s.progress_interval);
}

void attach(progress_display* d, exala::stripe_lu_options& o) {
  if (d == nullptr) return;
  o.on_progress = d->callback();
  o.progress_interval_s = d->library_interval();
}

void generate_dense(const stripe_request& r) {
  reject_output_and_threads(r, "generate dense");
  const auto n_text = r.options.get("--n");
  if (!n_text) throw usage_error("generate dense needs '--n N'");
  const std::int64_t n = parse_int("--n", *n_text, 1, max_dense_n);
  std::uint64_t seed = 1;
  if (const auto v = r.options.get("--seed")) {
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), seed);
    if (v->empty() || ec != std::errc{} || end != v->data() + v->size())
      throw usage_error("option '--seed' needs a non-negative integer, got " + quote_value(*v));
  }
  double cond = 0;
  if (const auto v = r.options.get("--cond")) {
    cond = parse_real_option("--cond", *v);
    if (!(cond == 0 || cond >= 1) || std::isinf(cond))
      throw usage_error("option '--cond' needs 0 (uniform entries) or a finite number >= 1, got " +
                        quote_value(*v));
  }
  const std::int64_t nrhs = int_option(r, "--nrhs", 1, max_nrhs).value_or(1);
  const std::int64_t stripe =
      std::min(int_option(r, "--stripe", 1, max_dense_n).value_or(default_stripe(n)), n);
  const std::vector<std::string> dirs = required_workdirs(r, "generate dense");
  const auto t0 = clock_type::now();
  const bool force = r.options.has("--force");
  const workdir_lock lock(dirs, true);
  creating_system(force, [&] {
    exala::generate_dense_system(dirs, n, nrhs, seed, stripe, cond, force);
  });
  if (!quiet(r)) {
    const std::int64_t stripes = (n + stripe - 1) / stripe;
    std::cerr << "exala: generated n = " << n << ", "
              << plural(nrhs, "right-hand side", "right-hand sides") << " (seed " << seed << ", "
              << (cond == 0 ? std::string("uniform entries") : "cond " + format_sci(cond))
              << ") in " << dirs_text(dirs) << ": " << plural(stripes, "stripe", "stripes")
              << " of " << plural(stripe, "row", "rows") << ", " << format_duration(seconds_since(t0))
              << '\n';
  }
}

void import_system(const stripe_request& r) {
  reject_output_and_threads(r, "import");
  const std::optional<std::int64_t> stripe_opt = int_option(r, "--stripe", 1, max_dense_n);
  std::uint64_t buffer = default_buffer;
  if (const auto v = r.options.get("--buffer")) buffer = parse_size("--buffer", *v);
  const std::vector<std::string> dirs = required_workdirs(r, "import");
  const bool force = r.options.has("--force");
  progress_interval(r);  // checked before the files are read
  const auto t0 = clock_type::now();

  const std::string& afile = r.operands[0];
  const std::string& bfile = r.operands[1];
  exala::io::matrix_stream a(afile);
  const std::string aname = exala::io::printable(a.name(), 4096);
  const exala::io::matrix_info& info = a.info();
  const std::string ashape = std::to_string(info.rows) + " x " + std::to_string(info.cols);
  if (info.rows != info.cols)
    throw usage_error("import: " + aname + " (" + ashape + ") is not square");
  if (info.rows == 0) throw usage_error("import: " + aname + " is empty (0 x 0)");
  if (info.rows > max_dense_n)
    throw usage_error("import: " + aname + " (" + ashape + ") is too large (n > " +
                      std::to_string(max_dense_n) + ")");
  const std::int64_t n = info.rows;
  const exala::io::array b = read_finite_matrix(bfile, "the right-hand sides");
  if (b.rows != n || b.cols == 0)
    throw usage_error("import: " + exala::io::printable(bfile, 4096) + " (" +
                      std::to_string(b.rows) + " x " + std::to_string(b.cols) +
                      ") does not fit " + aname + " (" + ashape + "): B needs " +
                      std::to_string(n) + " rows, one column per right-hand side");
  const std::int64_t nrhs = b.cols;

  // A pass holds whole stripes: rows x n doubles, and for a coordinate file
  // one bit per entry to catch entries given twice.
  const bool coordinate = info.format == exala::io::mm_format::coordinate;
  const std::uint64_t row_bytes =
      8 * static_cast<std::uint64_t>(n) + (coordinate ? (static_cast<std::uint64_t>(n) + 7) / 8 : 0);
  const auto buffer_rows = static_cast<std::int64_t>(
      std::min<std::uint64_t>(buffer / row_bytes, static_cast<std::uint64_t>(n)));
  const std::string holds = "--buffer " + format_bytes(static_cast<double>(buffer)) + " holds " +
                            plural(buffer_rows, "row", "rows") + " of " + aname + " (" +
                            std::to_string(row_bytes) + " bytes a row)";
  if (buffer_rows == 0) throw usage_error("import: " + holds + ": give a larger --buffer");
  std::int64_t stripe = stripe_opt ? std::min(*stripe_opt, n)
                                   : std::min(default_stripe(n), buffer_rows);
  if (stripe > buffer_rows)
    throw usage_error("import: " + holds + ", fewer than one stripe (--stripe " +
                      std::to_string(stripe) + ")");
  const std::int64_t pass_rows = std::min(buffer_rows / stripe * stripe, n);
  const std::int64_t passes = (n + pass_rows - 1) / pass_rows;
  if (passes > 1 && !a.can_rewind())
    throw usage_error("import: " + aname + " can be read only once, but " + holds +
                      ": give a file, or a --buffer of at least " +
                      format_bytes(static_cast<double>(row_bytes) * static_cast<double>(n)));

  const workdir_lock lock(dirs, true);
  std::unique_ptr<exala::stripe_system_writer> writer;
  creating_system(force, [&] {
    writer = std::make_unique<exala::stripe_system_writer>(dirs, n, nrhs, stripe, force);
  });
  exala::stripe_system_writer& w = *writer;
  std::vector<double> rows(static_cast<std::size_t>(pass_rows * n));
  std::vector<bool> seen;
  // Progress: passes over A (the read rate estimated from the file's size).
  const std::unique_ptr<progress_display> display =
      quiet(r) ? nullptr
               : std::make_unique<progress_display>(std::cerr, stderr_is_terminal(),
                                                    progress_interval(r));
  std::error_code size_ec;
  const auto file_bytes = a.can_rewind() ? std::filesystem::file_size(afile, size_ec) : 0;
  const double entries = static_cast<double>(std::max<std::int64_t>(info.entries, 1));
  const auto show = [&](std::int64_t pass, std::int64_t visited) {
    exala::stripe_lu_progress p;
    p.phase = "import";
    p.step = pass;
    p.steps = passes;
    const double done = static_cast<double>(pass) + static_cast<double>(visited) / entries;
    p.fraction = done / static_cast<double>(passes);
    p.elapsed_s = seconds_since(t0);
    if (p.fraction > 0) p.eta_s = p.elapsed_s * (1 - p.fraction) / p.fraction;
    if (p.elapsed_s > 0 && !size_ec)
      p.io_read_mbs = done * static_cast<double>(file_bytes) / p.elapsed_s / 1e6;
    display->update(p);
  };
  for (std::int64_t pass = 0; pass < passes; ++pass) {
    std::int64_t visited = 0;
    const std::int64_t r0 = pass * pass_rows;
    const std::int64_t r1 = std::min(n, r0 + pass_rows);
    const std::int64_t ld = r1 - r0;
    if (coordinate) {
      std::fill(rows.begin(), rows.end(), 0.0);
      seen.assign(static_cast<std::size_t>(ld * n), false);
    }
    a.for_each([&](std::int64_t i, std::int64_t j, double v) {
      if (display && (++visited & 0xfffff) == 0) show(pass, visited);
      require_finite(a, i, j, v, "the matrix");  // every pass: the first one finds it
      if (i < r0 || i >= r1) return;
      const auto k = static_cast<std::size_t>((i - r0) + j * ld);
      if (coordinate) {
        if (seen[k])
          a.fail("entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                 ") is given twice");
        seen[k] = true;
      }
      rows[k] = v;
    });
    for (std::int64_t s = r0 / stripe; s * stripe < r1; ++s)
      w.write_stripe(s, rows.data() + (s * stripe - r0), ld);
    if (display) show(pass + 1, 0);
  }
  if (display) display->clear();
  w.write_rhs(b.values.data(), n);
  w.finish("import of " + aname + " and " + exala::io::printable(bfile, 4096));
  if (!quiet(r)) {
    const std::int64_t stripes = (n + stripe - 1) / stripe;
    std::cerr << "exala: imported n = " << n << ", "
              << plural(nrhs, "right-hand side", "right-hand sides") << " into " << dirs_text(dirs)
              << ": " << plural(stripes, "stripe", "stripes") << " of "
              << plural(stripe, "row", "rows") << ", " << plural(passes, "pass", "passes")
              << " over " << aname << ", " << format_duration(seconds_since(t0)) << '\n';
  }
}

// Runs a solve; the library's advice after a singular pivot names the C++
// API (pivoting::partial, substripe): here it names the options.
template <class F>
solution cli_worded(F run) {
  try {
    return run();
  } catch (const exala::singular_pivot& e) {
    std::string what = e.what();
    for (const auto& [api, cli] : {std::pair<std::string_view, std::string_view>{
                                       "try pivoting::partial in core", "try --pivot partial in core"},
                                   {"a larger substripe", "a larger --substripe"}}) {
      const std::size_t at = what.find(api);
      if (at != std::string::npos) what.replace(at, api.size(), cli);
    }
    if (what.starts_with("exala: ")) what.erase(0, 7);
    throw exala::error(what);
  }
}

solution solve(const stripe_request& r) {
  const bool out_of_core = r.options.has("--workdir");
  if (out_of_core && !r.operands.empty())
    throw usage_error("solve takes A B (in core) or --workdir DIR (out of core), not both");
  if (!out_of_core && r.operands.size() != 2)
    throw usage_error("solve needs 2 operands (exala solve A B) or '--workdir DIR', got " +
                      std::to_string(r.operands.size()));
  return cli_worded([&] {
    if (out_of_core) {
      const std::vector<std::string> dirs = workdirs_of(r);
      solve_settings s = solve_options(r, true);
      check_output(r.output);
      local_stored place;
      return solve_stored_system(dirs, s, place);
    }
    solve_settings s = solve_options(r, false);
    check_output(r.output);
    local_in_core place;
    return solve_in_core(r, s, place);
  });
}

std::uint64_t parse_size(std::string_view option, std::string_view value) {
  const std::string bad = "option '" + std::string(option) +
                          "' needs a size in bytes such as 1048576, 512MiB or 2G (suffixes K, "
                          "M, G, T, KiB, MiB, GiB, TiB), got " +
                          quote_value(value);
  std::size_t i = 0;
  unsigned __int128 whole = 0;
  std::uint64_t frac = 0, frac_scale = 1;
  bool any_digit = false;
  constexpr unsigned __int128 limit = static_cast<unsigned __int128>(1) << 64;
  for (; i < value.size() && value[i] >= '0' && value[i] <= '9'; ++i) {
    whole = whole * 10 + static_cast<unsigned>(value[i] - '0');
    if (whole >= limit) throw usage_error(bad);
    any_digit = true;
  }
  if (i < value.size() && value[i] == '.') {
    ++i;
    for (; i < value.size() && value[i] >= '0' && value[i] <= '9'; ++i) {
      if (frac_scale < 1'000'000'000'000'000ULL) {
        frac = frac * 10 + static_cast<unsigned>(value[i] - '0');
        frac_scale *= 10;
      }
      any_digit = true;
    }
  }
  if (!any_digit) {
    if (!value.empty() && value[0] == '-')
      throw usage_error("option '" + std::string(option) + "' needs a positive size, got " +
                        quote_value(value));
    throw usage_error(bad);
  }
  std::string suffix;
  for (const char c : value.substr(i))
    suffix += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  unsigned shift = 0;
  if (suffix.empty() || suffix == "B") shift = 0;
  else if (suffix == "K" || suffix == "KIB") shift = 10;
  else if (suffix == "M" || suffix == "MIB") shift = 20;
  else if (suffix == "G" || suffix == "GIB") shift = 30;
  else if (suffix == "T" || suffix == "TIB") shift = 40;
  else throw usage_error(bad);
  const unsigned __int128 bytes =
      (whole << shift) + ((static_cast<unsigned __int128>(frac) << shift) / frac_scale);
  if (bytes >= limit / 2) throw usage_error(bad);
  if (bytes == 0)
    throw usage_error("option '" + std::string(option) + "' needs a positive size, got " +
                      quote_value(value));
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace exala::cli
