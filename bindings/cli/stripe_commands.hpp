// stripe_commands.hpp - the `exala` commands of the out-of-core stripe LU:
//
//   exala generate dense --n N --seed S --workdir DIR [--stripe S] [--cond C]
//                        [--nrhs K] [--force]
//   exala import A.mtx B.mtx --workdir DIR [--stripe S] [--buffer SIZE] [--force]
//   exala solve A.mtx B.mtx [options] [-o X.mtx]          (in core)
//   exala solve --workdir DIR [--cache SIZE] [options] [-o X.mtx]  (out of core)
//
// exala.cpp parses the command line (its option table names the options and
// the commands that take them) and hands each command a stripe_request; the
// functions here check every option value first, then read files and call
// the library (exala/stripe_lu.hpp). Errors are exceptions derived from
// exala::error, reported by exala.cpp as one line 'exala: error: ...'.
// Progress and the summary go to stderr; stdout gets the solution only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "progress.hpp"

namespace exala::cli {

// A mistake on the command line (as opposed to in a file or the library).
class usage_error : public exala::error {
 public:
  using exala::error::error;
};

// 'value', printable (control bytes escaped), for messages (options.cpp).
std::string quote_value(std::string_view value);

// A real number written as in the files (decimal, hex float, inf, nan), or a
// usage_error naming the option (options.cpp).
double parse_real_option(std::string_view name, std::string_view value);

// The command options given, by name, with every value in order (an option
// without a value, such as --force, has the value "").
class option_values {
 public:
  void add(std::string_view name, std::string_view value);
  bool has(std::string_view name) const;
  // The last value given.
  std::optional<std::string_view> get(std::string_view name) const;
  // Every value given, in order (empty if none).
  const std::vector<std::string>& all(std::string_view name) const;
  // Every option given, in the order of first appearance.
  const std::vector<std::string>& names() const noexcept { return order_; }

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::vector<std::string> order_;
};

// What a stripe command sees of its command line.
struct stripe_request {
  std::string_view command;                 // "generate", "import", "solve"
  const std::vector<std::string>& operands;  // after the command name
  const option_values& options;
  const std::string& output;  // -o FILE; empty: none given
  int threads = 0;            // --threads N; 0: not given
};

// A solution: rows x cols, column-major.
struct solution {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<double> values;
};

// exala generate dense (operands[0] == "dense"): a random system written
// straight to stripe files.
void generate_dense(const stripe_request& r);
// exala import A B: a Matrix Market system turned into stripe files, holding
// at most --buffer bytes of A (several passes over A when needed).
void import_system(const stripe_request& r);
// exala solve: in core (operands A B) or out of core (--workdir).
solution solve(const stripe_request& r);
// exala export matrix|rhs|solution|reference (export_command.cpp): a part
// of the stored system (or its stored solution) written as a Matrix Market
// array file (-o FILE, replaced atomically; standard output without -o),
// every value with 17 significant digits, so that `exala import` reads back
// the same bits.
void export_system(const stripe_request& r);

// Stores an accepted solution of `exala solve --workdir` in the set
// (exala::store_stripe_solution) for `exala export solution`. A failure
// (a full disk) is a warning line on stderr, not an error: the solution
// itself still goes to -o or standard output.
void store_solution(const std::vector<std::string>& dirs, std::int64_t n,
                    const std::vector<double>& x);
// The summary's forward-error line on stderr (forward_error.hpp), when the
// work directory set holds a reference solution (`exala generate dense`
// stores the x it made B from; `exala import` stores none): nothing
// otherwise. Never throws for a
// reference that cannot be read (the line says so): a solve stands without it.
void print_forward_error(const std::vector<std::string>& dirs, std::int64_t n, std::int64_t nrhs,
                         const std::vector<double>& x);

// --progress-interval SEC (default 10): seconds between plain progress
// lines when stderr is not a terminal. Throws usage_error for a bad value.
double progress_interval(const stripe_request& r);

// A byte count: digits (a decimal fraction allowed) and an optional suffix
// B, K, M, G, T (powers of 1024) or KiB, MiB, GiB, TiB; at least 1 byte.
// Throws usage_error naming `option` otherwise.
std::uint64_t parse_size(std::string_view option, std::string_view value);

// ---- the parts of `exala solve` that its MPI form (mpi_commands.cpp) shares ----

inline constexpr int default_refine_steps = 10;
inline constexpr double default_progress_interval = 10.0;

// The option values of `exala solve`, all checked before any file is read.
struct solve_settings {
  exala::stripe_lu_options opt;
  int refine_steps = default_refine_steps;
  double progress_interval = default_progress_interval;
  bool quiet = false;
};
// Checks every solve option (out_of_core: --workdir was given; its default
// cache is half the physical memory).
solve_settings solve_options(const stripe_request& r, bool out_of_core);

// The --workdir set: every value given, each one a comma list; no empty or
// repeated names. Empty when none was given.
std::vector<std::string> workdirs_of(const stripe_request& r);
// Throws usage_error "work directory 'D' does not exist" (or "is not a
// directory") for the first such directory of the set.
void check_workdirs_exist(const std::vector<std::string>& dirs);
// "DIR1,DIR2" for messages.
std::string dirs_text(const std::vector<std::string>& dirs);
// Bytes of physical memory (0 if unknown).
std::uint64_t physical_memory();
// Checks before a long run that -o FILE will be writable (its directory
// exists and may be written), so that no result is lost at the end.
void check_output(const std::string& output);

// An advisory lock (flock) on the directories of a work directory set
// themselves, held while the command runs, so that two exala commands never
// use one set at once (the second one stops before touching anything, at
// whichever of its directories is taken). Every command that reads or
// writes a set locks every directory of it (generate, import, solve, and
// rank 0 of the MPI solve). The kernel releases the locks when the process
// ends, killed or not; no file is created. `create` makes the directories
// first (generate, import); otherwise a missing directory is left for the
// caller to report; any other failure to open or lock one is an error
// naming it and the cause. One directory given twice under two names is
// locked once.
class workdir_lock {
 public:
  workdir_lock(const std::string& dir, bool create);
  workdir_lock(const std::vector<std::string>& dirs, bool create);
  ~workdir_lock();
  workdir_lock(const workdir_lock&) = delete;
  workdir_lock& operator=(const workdir_lock&) = delete;

 private:
  void lock(const std::string& dir, bool create);
  std::vector<int> fds_;
};

// The refined backward error of a solve against its bound: throws
// exala::error (exit status 2) when it is NaN, or when refinement was asked
// for (max_refine > 0) and the error stays above refined_error_limit (far
// above the 2u that a working refinement reaches): the solution is then not
// a solution of the stored system, and is not written.
inline constexpr double refined_error_limit = 0x1p-43;  // 2^10 u, u = 2^-53
void check_backward_error(const exala::refine_report& ref, int max_refine);

// The progress display of a solve on stderr, or none (--quiet), and its
// hook into the options.
std::unique_ptr<progress_display> make_display(const solve_settings& s);
void attach(progress_display* d, exala::stripe_lu_options& o);
// The summary of a solve on stderr; `where` says how it ran.
void print_summary(const exala::stripe_lu_report& rep, const exala::refine_report& ref,
                   std::int64_t nrhs, int max_refine, const std::string& where, double total_s);

// ---- exala solve A B (in core): one sequence, two placements ----

// The system of an in-core solve, read and checked: B is n x nrhs,
// column-major.
struct in_core_system {
  std::int64_t n = 0;
  std::int64_t nrhs = 0;
  std::vector<double> b;
};

// Where an in-core solve runs: in this process (stripe_commands.cpp: A read
// whole), or over the ranks of an MPI job (mpi_commands.cpp: each rank keeps
// the rows of its own stripes, and every step is agreed on by the ranks).
class in_core_placement {
 public:
  virtual ~in_core_placement() = default;
  // Whether this process shows the progress and the summary.
  virtual bool root() const { return true; }
  // How the solve ran, for the summary ("in core", "in core on 4 ranks").
  virtual std::string where() const = 0;
  // Reads and checks A (afile) and B (bfile).
  virtual in_core_system read(const std::string& afile, const std::string& bfile,
                              const solve_settings& st) = 0;
  // Factors A and solves A X = B with refinement; X (n x nrhs) into x.
  virtual exala::refine_report solve(const in_core_system& sys, solve_settings& st,
                                     std::vector<double>& x) = 0;
  // The report of the factorization (MPI: with the counters of every rank).
  virtual exala::stripe_lu_report report() = 0;
  // Runs the check of the result (MPI: on every rank, agreed on).
  virtual void check(const std::function<void()>& check) { check(); }
  // The end of the solve (MPI: no collective call follows).
  virtual void finish() {}
};

// exala solve A B, the options checked (st): reads the system, factors and
// solves it, shows the progress and the summary, and refuses a result whose
// backward error stays above its bound (check_backward_error).
solution solve_in_core(const stripe_request& r, solve_settings& st, in_core_placement& place);

// ---- exala solve --workdir DIR (the stored system): one sequence, two placements ----

// Where a solve of the stored system runs: in this process, or over the
// ranks of an MPI job (each rank with its own work directory).
class stored_placement {
 public:
  virtual ~stored_placement() = default;
  // Whether this process shows the progress and the summary and stores the
  // solution.
  virtual bool root() const { return true; }
  // Checks and locks the set (MPI: also the rank's own directory, and the
  // default cache).
  virtual void open(const std::vector<std::string>& dirs, solve_settings& st) = 0;
  // Factors the stored system and solves it with refinement: X (n x nrhs)
  // into x, its order into n.
  virtual exala::refine_report solve(const std::vector<std::string>& dirs, solve_settings& st,
                                     std::vector<double>& x, std::int64_t& n) = 0;
  // The report of the factorization (MPI: with the counters of every rank).
  virtual exala::stripe_lu_report report() = 0;
  // How the solve ran, for the summary.
  virtual std::string where(const exala::stripe_lu_report& rep, const std::vector<std::string>& dirs,
                            const solve_settings& st) const = 0;
  // Runs the check of the result (MPI: on every rank, agreed on).
  virtual void check(const std::function<void()>& check) { check(); }
  // The end of the solve (MPI: no collective call follows).
  virtual void finish() {}
};

// exala solve --workdir DIRS (the set, workdirs_of), the options checked
// (st): factors and solves the stored system, shows the progress, the summary and the forward error (when
// the set holds a reference solution), refuses a result whose backward error
// stays above its bound, and stores the accepted solution in the set.
solution solve_stored_system(const std::vector<std::string>& dirs, solve_settings& st,
                             stored_placement& place);

}  // namespace exala::cli
