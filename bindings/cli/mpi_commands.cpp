// mpi_commands.cpp - `exala ... --backend mpi` (see mpi_commands.hpp).
//
// Assumptions: every rank runs the same command and sees the same input
// files (a shared or replicated file system) - checked, not trusted:
// mpi_session::begin refuses a run where they differ; every rank runs
// with --backend mpi (a rank without it never calls MPI_Init, and mpirun
// ends the job); MPI_COMM_WORLD is the communicator; only the calling thread
// makes MPI calls.
//
// How errors stay collective: every command's first MPI call is the
// agreement of mpi_session::begin (over exala::mpi::detail::agree), so a
// rank that failed earlier (an option, -o) joins it from mpi_session::settle
// with its error, and a rank that runs no command joins it from the
// destructor; every rank learns of either. begin then compares what the
// ranks run (run_identity). After that, every step that may throw on one
// rank runs inside an agreement, and the library's collective calls throw on
// every rank or on none. Rank 0 prints the one error line.
#include "mpi_commands.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <new>
#include <system_error>

#include "exala/mpi.hpp"
#include "matrix_market.hpp"

namespace exala::cli {

bool mpi_compiled_in() noexcept { return true; }

namespace {

// Thrown on every rank once the ranks agree that the run failed; `line` is
// what this rank would print (rank 0 prints it).
class mpi_agreed_error : public exala::error {
 public:
  explicit mpi_agreed_error(std::string line) : exala::error(line), line_(std::move(line)) {}
  const std::string& line() const noexcept { return line_; }

 private:
  std::string line_;
};

std::string without_prefix(std::string what) {
  if (what.starts_with("exala: ")) what.erase(0, 7);
  return what;
}

// The error line of an exception (without 'exala: error: '): another rank's
// error names that rank.
std::string line_of(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const exala::mpi::remote_error& e) {
    std::string what = e.what();
    const std::string head = "exala: mpi: rank " + std::to_string(e.rank()) + " failed: ";
    if (what.starts_with(head)) what.erase(0, head.size());
    return "rank " + std::to_string(e.rank()) + ": " + without_prefix(what);
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return without_prefix(e.what());
  } catch (...) {
    return "unknown failure";
  }
}

std::string entries_text(std::int64_t n) {
  return std::to_string(n) + (n == 1 ? " entry" : " entries");
}

// ---- what every rank runs (run_identity) ----

// The names of --rounding's values.
std::string rounding_text(exala::rounding mode) {
  switch (mode) {
    case exala::rounding::to_nearest_even: return "nearest";
    case exala::rounding::toward_zero: return "zero";
    case exala::rounding::upward: return "up";
    case exala::rounding::downward: return "down";
  }
  return "?";
}

// Length-prefixed fields ("5:value"), so that any byte may occur in them.
void put_field(std::string& out, const std::string& v) {
  out += std::to_string(v.size());
  out += ':';
  out += v;
}
std::string get_field(const std::string& in, std::size_t& at) {
  const std::size_t colon = in.find(':', at);
  if (colon == std::string::npos) throw exala::error("exala: mpi: malformed identity");
  const std::size_t len = static_cast<std::size_t>(std::stoull(in.substr(at, colon - at)));
  if (len > in.size() - colon - 1) throw exala::error("exala: mpi: malformed identity");
  at = colon + 1 + len;
  return in.substr(colon + 1, len);
}

// Item kinds: the first character of `what` in the serialized form.
constexpr char kind_command = 'c', kind_setting = 's', kind_file = 'f';

// A file's identity value: "b<bytes>:<checksum>", "u<reason>", "-" or "n"
// (none given).
std::string describe_file_value(const std::string& value) {
  if (value == "n") return "";
  if (value == "-") return "standard input";
  if (!value.empty() && value[0] == 'u') return "unreadable: " + value.substr(1);
  const std::size_t colon = value.find(':');
  return value.substr(1, colon - 1) + " bytes, checksum " + value.substr(colon + 1);
}

// ---- splits ----

// Rank r's block of an even split of n items over p ranks (the first n mod p
// ranks get one more): [first, first + count).
struct block {
  std::int64_t first = 0;
  std::int64_t count = 0;
};
block even_block(std::int64_t n, int p, int r) {
  const std::int64_t q = n / p, extra = n % p;
  return {r * q + std::min<std::int64_t>(r, extra), q + (r < extra ? 1 : 0)};
}

// ---- reading parts of array files ----

// A file's header (read and checked on every rank).
struct header {
  std::string path;
  exala::io::matrix_info info;
  std::int64_t values() const { return info.rows * info.cols; }
  // "FILE (M x N, K entries)", as the single-process command names it.
  std::string describe() const {
    return exala::io::printable(path, 4096) + " (" + std::to_string(info.rows) + " x " +
           std::to_string(info.cols) + ", " + entries_text(values()) + ")";
  }
};

// Reads and checks the header and size line of an array file (as the
// single-process commands accept: 'matrix array real|integer general').
header read_header(const std::string& path) {
  if (path == "-")
    throw usage_error(
        "standard input ('-') cannot be read by every rank with --backend mpi: "
        "give a file");
  const exala::io::matrix_stream stream(path);
  if (stream.info().format != exala::io::mm_format::array)
    throw exala::io::file_error(path, 1,
                                "format 'coordinate' is not supported yet, expected 'array'");
  return {path, stream.info()};
}

// Which values of a file this rank parses: `slot(k)` is the local index of
// value k (column-major position), or -1 for a value of another rank. The
// scan stops after value `stop - 1`, or with check_end at the end of the
// file (checking that no value follows the last one and none is missing);
// a rank with no values and no check_end does not read past the header.
struct part_spec {
  std::function<std::int64_t(std::int64_t)> slot;
  std::int64_t stop = 0;
  bool check_end = false;
  std::int64_t local_size = 0;
};

// Contiguous values [first, first + count) of a file of `total` values; the
// rank holding the last value (rank 0 for an empty file) checks the end.
part_spec contiguous(std::int64_t first, std::int64_t count, std::int64_t total, int rank) {
  part_spec s;
  s.slot = [first, count](std::int64_t k) {
    return k >= first && k < first + count ? k - first : -1;
  };
  s.stop = first + count;
  s.check_end = total == 0 ? rank == 0 : count > 0 && first + count == total;
  s.local_size = count;
  return s;
}
part_spec everything(std::int64_t total) { return contiguous(0, total, total, 0); }

// The position of a failure in the files' order, for choosing the error a
// single process would have reported first: (file index, value index + 1),
// 0 for the file as a whole.
std::int64_t position(std::int64_t file, std::int64_t pos) {
  return (file << 56) | std::min<std::int64_t>(pos, (std::int64_t{1} << 56) - 1);
}

// Scans the values of an array file for the part `spec` and parses those.
// Throws file_error with the same messages (and line numbers) as the
// single-process reader; *fail_pos gets the value index + 1 of the problem.
std::vector<double> read_part(const header& h, const part_spec& spec, std::int64_t* fail_pos) {
  std::vector<double> values(static_cast<std::size_t>(spec.local_size), 0.0);
  *fail_pos = 0;
  if (spec.local_size == 0 && !spec.check_end) return values;
  const std::string& name = h.path;
  errno = 0;
  std::ifstream in(name, std::ios::binary);
  if (!in) {
    const int e = errno;
    throw exala::io::file_error(
        name, 0, std::string("cannot open file") + (e ? ": " + std::string(std::strerror(e)) : ""));
  }
  std::int64_t line_no = 0;
  std::string line;
  const auto next = [&]() {
    if (!std::getline(in, line)) {
      if (in.bad())
        throw exala::io::file_error(name, std::max<std::int64_t>(line_no, 1), "read error");
      return false;
    }
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  constexpr std::string_view blank = " \t\r\v\f";
  const auto next_content = [&]() {
    while (next()) {
      const std::size_t first = line.find_first_not_of(blank);
      if (first != std::string::npos && line[first] != '%') return true;
    }
    return false;
  };
  const auto fail = [&](std::int64_t pos, const std::string& what) {
    *fail_pos = pos;
    throw exala::io::file_error(name, std::max<std::int64_t>(line_no, 1), what);
  };
  // The header (line 1) and the size line were checked by read_header.
  if (!next() || !next_content()) fail(0, "changed while it was read (no size line)");
  const std::int64_t total = h.values();
  const std::string expected = std::to_string(total) + " (" + std::to_string(h.info.rows) + " x " +
                               std::to_string(h.info.cols) + ")";
  const bool real = h.info.field == exala::io::mm_field::real;
  std::int64_t k = 0;
  while (next_content()) {
    std::string_view rest = line;
    while (true) {
      const std::size_t b = rest.find_first_not_of(blank);
      if (b == std::string_view::npos) break;
      rest.remove_prefix(b);
      const std::size_t e = std::min(rest.find_first_of(blank), rest.size());
      const std::string_view token = rest.substr(0, e);
      rest.remove_prefix(e);
      if (k == total) fail(total + 1, "too many values, expected " + expected);
      const std::int64_t at = spec.slot(k);
      if (at >= 0) {
        const std::optional<double> v =
            real ? exala::io::parse_real(token) : exala::io::parse_integer(token);
        if (!v) fail(k + 1, quote_value(token) + (real ? " is not a real number" : " is not an integer"));
        values[static_cast<std::size_t>(at)] = *v;
      }
      ++k;
      if (!spec.check_end && k >= spec.stop) return values;
    }
  }
  if (k < total)
    fail(k + 1, "too few values, expected " + expected + ", found " + std::to_string(k) +
                    " before the end of the file");
  return values;
}

// One file to read in a reading phase.
struct read_job {
  const header* h;
  part_spec spec;
  std::vector<double>* out;
};

// Every rank reads its parts; the failure reported is the first in the
// files' order (the lowest position over the ranks), as one process reading
// the files in order would report it.
void read_agreed(mpi_session& s, const std::vector<read_job>& jobs) {
  std::int64_t key = std::numeric_limits<std::int64_t>::max();
  std::exception_ptr failure;
  for (std::size_t f = 0; f < jobs.size() && !failure; ++f) {
    std::int64_t pos = 0;
    try {
      *jobs[f].out = read_part(*jobs[f].h, jobs[f].spec, &pos);
    } catch (...) {
      failure = std::current_exception();
      key = position(static_cast<std::int64_t>(f), pos);
    }
  }
  std::int64_t first = 0;
  MPI_Allreduce(&key, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  s.agree([&] {
    if (failure && key == first) std::rethrow_exception(failure);
  });
}

// ---- moving data ----

constexpr std::int64_t chunk = std::int64_t{1} << 26;  // doubles per message
constexpr std::int64_t chunk_bytes = std::int64_t{1} << 29;  // chars per message

void bcast(std::vector<double>& v, int root) {
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(v.size()); i += chunk) {
    const int count = static_cast<int>(std::min<std::int64_t>(chunk, std::int64_t(v.size()) - i));
    MPI_Bcast(v.data() + i, count, MPI_DOUBLE, root, MPI_COMM_WORLD);
  }
}

// Rank 0 gets every rank's contiguous block (even_block of n) of a vector.
void gather_blocks(const std::vector<double>& mine, std::vector<double>& all, std::int64_t n,
                   const mpi_session& s) {
  if (s.root()) {
    all.assign(static_cast<std::size_t>(n), 0.0);
    std::copy(mine.begin(), mine.end(), all.begin());
    for (int r = 1; r < s.size(); ++r) {
      const block b = even_block(n, s.size(), r);
      for (std::int64_t i = 0; i < b.count; i += chunk) {
        const int count = static_cast<int>(std::min(chunk, b.count - i));
        MPI_Recv(all.data() + b.first + i, count, MPI_DOUBLE, r, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
    }
  } else {
    const std::int64_t n_local = static_cast<std::int64_t>(mine.size());
    for (std::int64_t i = 0; i < n_local; i += chunk) {
      const int count = static_cast<int>(std::min(chunk, n_local - i));
      MPI_Send(mine.data() + i, count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
  }
}

// The library rejects null pointers; an empty vector may have none.
double* data_of(std::vector<double>& v) {
  static double dummy = 0.0;
  return v.empty() ? &dummy : v.data();
}

std::int64_t ld(std::int64_t rows) { return std::max<std::int64_t>(1, rows); }

}  // namespace

// ---- the session ----

mpi_session::mpi_session(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw exala::error("exala: MPI is already initialized");
  if (MPI_Init(argc, argv) != MPI_SUCCESS) throw exala::error("exala: MPI_Init failed");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

mpi_session::~mpi_session() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // A rank that ran no command (--help, --version) joins the others' first
  // agreement, which they would otherwise wait in forever.
  bool mismatch = false;
  if (agreements_ == 0) {
    try {
      begin([](run_identity& id) { id.add("command", "", "no command (--help or --version)"); });
    } catch (const mpi_agreed_error& e) {
      mismatch = true;
      if (root()) std::cerr << "exala: error: " << e.line() << '\n' << std::flush;
    } catch (...) {
      mismatch = true;
    }
  }
  MPI_Finalize();
  if (mismatch) std::exit(2);
}

// ---- run_identity ----

void run_identity::add(std::string what, std::string value, std::string shown) {
  const char kind = what == "command" ? kind_command : kind_setting;
  if (shown.empty()) shown = quote_value(value);
  items_.push_back({kind + std::move(what), std::move(value), std::move(shown), {}});
}

void run_identity::add_no_file(std::string what) {
  items_.push_back({kind_file + std::move(what), "n", "not given", {}});
}

void run_identity::add_file(std::string what, const std::string& path) {
  item it{kind_file + std::move(what), "-", quote_value(path), {}};
  if (path != "-") {
    const exala::mpi::detail::file_identity f = exala::mpi::detail::identify_file(path);
    if (f.readable) {
      char hex[20];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(f.checksum));
      it.value = "b" + std::to_string(f.bytes) + ":" + hex;
      try {  // its shape, for messages (the command checks the header itself)
        const exala::io::matrix_stream stream(path);
        it.note = std::to_string(stream.info().rows) + " x " + std::to_string(stream.info().cols);
      } catch (const std::exception&) {
        it.note = "no valid header";
      }
    } else {
      it.value = "u" + f.reason;
    }
  }
  items_.push_back(std::move(it));
}

std::string run_identity::text() const {
  std::string out;
  for (const item& it : items_) {
    put_field(out, it.what);
    put_field(out, it.value);
    put_field(out, it.shown);
    put_field(out, it.note);
  }
  return out;
}

run_identity run_identity::parse(const std::string& text) {
  run_identity id;
  std::size_t at = 0;
  while (at < text.size()) {
    item it;
    it.what = get_field(text, at);
    it.value = get_field(text, at);
    it.shown = get_field(text, at);
    it.note = get_field(text, at);
    if (it.what.empty()) throw exala::error("exala: mpi: malformed identity");
    id.items_.push_back(std::move(it));
  }
  return id;
}

std::string run_identity::difference(const run_identity& root) const {
  const auto find = [](const std::vector<item>& v, const std::string& what) -> const item* {
    for (const item& it : v)
      if (it.what == what) return &it;
    return nullptr;
  };
  // The items in order of first appearance, this rank's first.
  std::vector<const item*> order;
  for (const item& it : items_) order.push_back(&it);
  for (const item& it : root.items_)
    if (!find(items_, it.what)) order.push_back(&it);
  for (const item* it : order) {
    const item* mine = find(items_, it->what);
    const item* theirs = find(root.items_, it->what);
    if (mine && theirs && mine->value == theirs->value) continue;
    const char kind = it->what[0];
    const std::string name = it->what.substr(1);
    if (kind == kind_command)
      return "runs " + (mine ? mine->shown : "no command") + " here but " +
             (theirs ? theirs->shown : "no command") +
             " on rank 0: every rank must run the same command";
    if (kind == kind_setting)
      return name + " is " + (mine ? mine->shown : "not given") + " here but " +
             (theirs ? theirs->shown : "not given") +
             " on rank 0: every rank must give the same options";
    const auto desc = [](const item* f) {
      if (!f) return std::string("not given");
      std::string v = f->note;
      const std::string more = describe_file_value(f->value);
      if (!more.empty()) v += (v.empty() ? "" : ", ") + more;
      return v.empty() ? f->shown : f->shown + " (" + v + ")";
    };
    std::string what_differs;
    if (mine && theirs && mine->value[0] == 'b' && theirs->value[0] == 'b')
      what_differs = mine->value.substr(1, mine->value.find(':') - 1) ==
                             theirs->value.substr(1, theirs->value.find(':') - 1)
                         ? " (same size, different contents)"
                         : " (different sizes)";
    return "input " + name + " is " + desc(mine) + " here but " + desc(theirs) + " on rank 0" +
           what_differs + ": every rank must read the same files";
  }
  return {};
}

// ---- the session's agreements ----

void mpi_session::begin(const std::function<void(run_identity&)>& describe) {
  run_identity mine;
  agree([&] { describe(mine); });
  // Rank 0's identity to every rank; each compares its own with it.
  std::string root_text = root() ? mine.text() : std::string();
  std::int64_t len = static_cast<std::int64_t>(root_text.size());
  MPI_Bcast(&len, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  root_text.resize(static_cast<std::size_t>(len));
  for (std::int64_t i = 0; i < len; i += chunk_bytes) {
    const int count = static_cast<int>(std::min<std::int64_t>(chunk_bytes, len - i));
    MPI_Bcast(root_text.data() + i, count, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  agree([&] {
    if (root()) return;
    const std::string diff = mine.difference(run_identity::parse(root_text));
    if (!diff.empty()) throw usage_error(diff);
  });
}

void mpi_session::agree(const std::function<void()>& phase) {
  ++agreements_;
  try {
    exala::mpi::detail::agree(MPI_COMM_WORLD, phase);
  } catch (...) {
    throw mpi_agreed_error(line_of(std::current_exception()));
  }
}

void mpi_session::collective(const std::function<void()>& call) {
  ++agreements_;
  try {
    call();
  } catch (const mpi_agreed_error&) {
    throw;
  } catch (...) {
    throw mpi_agreed_error(line_of(std::current_exception()));
  }
}

std::string mpi_session::settle(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const mpi_agreed_error& e) {
    return root() ? e.line() : std::string();
  } catch (...) {
  }
  if (agreements_ == 0) {
    // Before this rank's first agreement (the options, -o): the other ranks
    // failed alike or wait in their first agreement; join it.
    try {
      agree([&] { std::rethrow_exception(failure); });
    } catch (const mpi_agreed_error& e) {
      return root() ? e.line() : std::string();
    }
  }
  const std::string line = line_of(failure);
  if (finished_) return line;  // rank 0 writing the result: no rank waits for it
  // A failure the other ranks cannot learn of (they may wait in a
  // collective call): report it here and end the job.
  std::cerr << "exala: error: rank " << rank_ << ": " << line << '\n' << std::flush;
  MPI_Abort(MPI_COMM_WORLD, 2);
  return line;
}

// ---- sum, asum, dot ----

namespace {

// The settings every command shares: the command, --rounding and -o.
void add_common(run_identity& id, std::string_view command, const exala::exec& local,
                const mpi_session& s) {
  id.add("command", std::string(command));
  id.add("option '--rounding'", rounding_text(local.mode));
  if (s.output().empty())
    id.add("option '-o'", "", "not given (standard output)");
  else
    id.add("option '-o'", s.output());
}

}  // namespace

double mpi_reduce(mpi_session& s, std::string_view command, const std::vector<std::string>& files,
                  const exala::exec& local) {
  s.begin([&](run_identity& id) {
    add_common(id, command, local, s);
    if (command == "dot") {
      id.add_file("X", files[0]);
      id.add_file("Y", files[1]);
    } else {
      id.add_file("FILE", files[0]);
    }
  });
  std::vector<header> h(files.size());
  s.agree([&] {
    for (std::size_t f = 0; f < files.size(); ++f) h[f] = read_header(files[f]);
    if (command == "dot" && h[0].values() != h[1].values())
      throw usage_error("dot: " + h[0].describe() + " and " + h[1].describe() + " differ in size");
  });
  std::vector<std::vector<double>> parts(files.size());
  std::vector<read_job> jobs;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const block b = even_block(h[f].values(), s.size(), s.rank());
    jobs.push_back({&h[f], contiguous(b.first, b.count, h[f].values(), s.rank()), &parts[f]});
  }
  read_agreed(s, jobs);
  const auto n_local = static_cast<std::int64_t>(parts[0].size());
  double result = 0.0;
  s.collective([&] {
    if (command == "sum")
      result = exala::mpi::sum(MPI_COMM_WORLD, n_local, data_of(parts[0]), 1, local);
    else if (command == "asum")
      result = exala::mpi::asum(MPI_COMM_WORLD, n_local, data_of(parts[0]), 1, local);
    else
      result = exala::mpi::dot(MPI_COMM_WORLD, n_local, data_of(parts[0]), 1, data_of(parts[1]), 1,
                               local);
  });
  s.finish();
  return result;
}

// ---- gemv ----

solution mpi_gemv(mpi_session& s, const mpi_gemv_args& g, const exala::exec& local) {
  const bool none = g.trans == exala::transpose::none;
  s.begin([&](run_identity& id) {
    add_common(id, "gemv", local, s);
    id.add("option '--trans'", none ? "N" : "T");
    id.add_file("A", g.a);
    id.add_file("X", g.x);
    if (g.y)
      id.add_file("Y (--y)", *g.y);
    else
      id.add_no_file("Y (--y)");
    id.add("option '--alpha'", exala::io::format_real(g.alpha));
    id.add("option '--beta'", exala::io::format_real(g.beta));
  });
  header a, x, y;
  std::int64_t rows = 0, inner = 0;  // of op(A)
  s.agree([&] {
    a = read_header(g.a);
    x = read_header(g.x);
    rows = none ? a.info.rows : a.info.cols;
    inner = none ? a.info.cols : a.info.rows;
    const std::string op_shape = std::string(none ? "A" : "A^T") + " is " + std::to_string(rows) +
                                 " x " + std::to_string(inner);
    if (x.values() != inner)
      throw usage_error("gemv: " + x.describe() + " does not fit " + a.describe() + ": " +
                        op_shape + ", so X needs " + entries_text(inner));
    if (g.y) {
      y = read_header(*g.y);
      if (y.values() != rows)
        throw usage_error("gemv: " + y.describe() + " does not fit " + a.describe() + ": " +
                          op_shape + ", so Y needs " + entries_text(rows));
    }
  });
  const std::int64_t m = a.info.rows, n = a.info.cols;
  // This rank's columns of A: [c.first, c.first + c.count).
  const block c = even_block(n, s.size(), s.rank());
  std::vector<double> a_local, x_vec, y_vec;
  std::vector<read_job> jobs;
  jobs.push_back({&a, contiguous(c.first * m, c.count * m, m * n, s.rank()), &a_local});
  const part_spec nothing = contiguous(0, 0, 1, s.rank());  // reads nothing, checks nothing
  if (none) {
    // x: this rank's entries; y: all of it, on rank 0 (broadcast below).
    jobs.push_back({&x, contiguous(c.first, c.count, n, s.rank()), &x_vec});
    if (g.y) jobs.push_back({&y, s.root() ? everything(m) : nothing, &y_vec});
  } else {
    // x: all of it, on rank 0; y: this rank's entries (rows of A^T).
    jobs.push_back({&x, s.root() ? everything(m) : nothing, &x_vec});
    if (g.y) jobs.push_back({&y, contiguous(c.first, c.count, n, s.rank()), &y_vec});
  }
  read_agreed(s, jobs);
  solution out{rows, 1, {}};
  if (none) {
    y_vec.resize(static_cast<std::size_t>(m), 0.0);
    if (g.y) bcast(y_vec, 0);
    s.collective([&] {
      exala::mpi::gemv_col_block(MPI_COMM_WORLD, exala::layout::col_major, m, c.count, g.alpha,
                                 data_of(a_local), ld(m), data_of(x_vec), 1, g.beta, data_of(y_vec),
                                 1, local);
    });
    out.values = std::move(y_vec);
  } else {
    x_vec.resize(static_cast<std::size_t>(m), 0.0);
    bcast(x_vec, 0);
    y_vec.resize(static_cast<std::size_t>(c.count), 0.0);
    // A's columns c.first.. are rows c.first.. of A^T, stored one after the
    // other: a c.count x m row-major block with lda m.
    s.collective([&] {
      exala::mpi::gemv_row_block(MPI_COMM_WORLD, exala::layout::row_major, c.count, m, g.alpha,
                                 data_of(a_local), ld(m), data_of(x_vec), 1, g.beta, data_of(y_vec),
                                 1, local);
    });
    gather_blocks(y_vec, out.values, n, s);
  }
  s.finish();
  return out;
}

// ---- trsv ----

solution mpi_trsv(mpi_session& s, const mpi_trsv_args& g, const exala::exec& local) {
  s.begin([&](run_identity& id) {
    add_common(id, "trsv", local, s);
    id.add("option '--uplo'", g.ul == exala::uplo::lower ? "L" : "U");
    id.add("option '--trans'", g.trans == exala::transpose::none ? "N" : "T");
    id.add("option '--diag'", g.dg == exala::diag::unit ? "U" : "N");
    id.add("option '--block'", std::to_string(g.nb));
    id.add_file("T", g.t);
    id.add_file("B", g.b);
  });
  header t, b;
  s.agree([&] {
    t = read_header(g.t);
    b = read_header(g.b);
    if (t.info.rows != t.info.cols) throw usage_error("trsv: " + t.describe() + " is not square");
    if (b.values() != t.info.rows)
      throw usage_error("trsv: " + b.describe() + " does not fit " + t.describe() + ": B needs " +
                        entries_text(t.info.rows));
  });
  const std::int64_t n = t.info.rows;
  exala::mpi::block_cyclic dist;
  dist.n = n;
  dist.nb = g.nb;
  dist.ranks = s.size();
  const std::int64_t local_rows = dist.local_rows(s.rank());
  const std::int64_t lda = ld(local_rows);
  // Every rank scans T; value k is row k % n of column k / n.
  part_spec mine;
  const int rank = s.rank(), p = s.size();
  const std::int64_t nb = g.nb;
  mine.slot = [n, nb, p, rank, lda](std::int64_t k) -> std::int64_t {
    const std::int64_t i = k % n, j = k / n, blk = i / nb;
    if (blk % p != rank) return -1;
    return (blk / p) * nb + i % nb + j * lda;
  };
  mine.stop = n * n;
  mine.check_end = true;
  mine.local_size = lda * n;
  std::vector<double> t_local, x;
  read_agreed(s, {{&t, mine, &t_local},
                  {&b, s.root() ? everything(n) : contiguous(0, 0, 1, s.rank()), &x}});
  x.resize(static_cast<std::size_t>(n), 0.0);
  bcast(x, 0);
  s.collective([&] {
    try {
      exala::mpi::trsv_block_cyclic(MPI_COMM_WORLD, exala::layout::col_major, g.ul, g.trans, g.dg,
                                    n, g.nb, data_of(t_local), lda, data_of(x), 1, local);
    } catch (const exala::singular_matrix& e) {  // named as the single-process command names it
      exala::io::fail_singular_diagonal(g.t, e.row());
    }
  });
  s.finish();
  return {n, 1, std::move(x)};
}

// ---- solve ----

namespace {

// solve's options that are each rank's own (exala/stripe_lu.hpp: they
// change neither a bit of the result nor the collective calls).
constexpr std::array<std::string_view, 7> per_rank_solve_options{
    "--cache", "--io-threads", "--sync", "--drop-page-cache", "--rank-workdir", "--quiet",
    "--progress-interval"};

// The library's advice after a singular pivot names the C++ API; the
// distributed stripe LU pivots locally only.
std::string reworded(std::string line) {
  const std::string api = "try pivoting::partial in core or a larger substripe";
  const std::size_t at = line.find(api);
  if (at != std::string::npos) line.replace(at, api.size(), "try a larger --substripe");
  return line;
}

// Runs a collective step of the solve, rewording the singular pivot advice.
void solve_step(mpi_session& s, const std::function<void()>& call) {
  try {
    s.collective(call);
  } catch (const mpi_agreed_error& e) {
    throw mpi_agreed_error(reworded(e.line()));
  }
}

// The ranks that share this rank's node (for the default cache).
int ranks_on_node() {
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
      MPI_SUCCESS)
    return 1;
  int k = 1;
  MPI_Comm_size(node, &k);
  MPI_Comm_free(&node);
  return std::max(k, 1);
}

// Sums the I/O and cache counters of every rank's report on rank 0.
exala::stripe_lu_report total_report(const exala::stripe_lu_report& mine) {
  exala::stripe_lu_report all = mine;
  std::int64_t v[4] = {mine.bytes_read, mine.bytes_written, mine.cache_hits, mine.cache_misses};
  std::int64_t sum[4] = {};
  MPI_Reduce(v, sum, 4, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  std::uint64_t peak = mine.peak_cache_bytes, peak_sum = 0;
  MPI_Reduce(&peak, &peak_sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  all.bytes_read = sum[0];
  all.bytes_written = sum[1];
  all.cache_hits = sum[2];
  all.cache_misses = sum[3];
  all.peak_cache_bytes = peak_sum;
  return all;
}

std::string ranks_text(int p) { return std::to_string(p) + (p == 1 ? " rank" : " ranks"); }

// The rank's own directory: PATTERN with every %r replaced by the rank.
std::string rank_dir(const std::string& pattern, int rank) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'r') {
      out += std::to_string(rank);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// Rows [first, first + count) of stripes of height `S` owned by `rank`
// (stripe J on rank J % P) are kept by the in-core solve's row source.
bool owns_row(std::int64_t i, std::int64_t S, int p, int rank) { return (i / S) % p == rank; }

// Rows of a matrix file into dst (column-major, ldr): row i goes to row
// at[i] of dst, or nowhere when at[i] < 0.
void read_rows(exala::io::matrix_stream& stream, const std::vector<std::int64_t>& at,
               std::int64_t ldr, std::vector<double>& dst) {
  const bool coordinate = stream.info().format == exala::io::mm_format::coordinate;
  std::vector<bool> seen;
  if (coordinate) seen.assign(dst.size(), false);
  stream.for_each([&](std::int64_t i, std::int64_t j, double v) {
    const std::int64_t li = at[static_cast<std::size_t>(i)];
    if (li < 0) return;
    const auto k = static_cast<std::size_t>(li + j * ldr);
    if (coordinate) {
      if (seen[k])
        stream.fail("entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                    ") is given twice");
      seen[k] = true;
    }
    dst[k] = v;
  });
}

// The ranks of the job: each one keeps the rows of its own stripes of A (one
// pass over the file); rank 0 reads B and broadcasts it; every step is agreed
// on by the ranks.
class distributed_in_core final : public in_core_placement {
 public:
  explicit distributed_in_core(mpi_session& s) : s_(s) {}

  bool root() const override { return s_.root(); }
  std::string where() const override { return "in core on " + ranks_text(s_.size()); }

  in_core_system read(const std::string& afile, const std::string& bfile,
                      const solve_settings& st) override {
    mpi_session& s = s_;
    afile_ = afile;
    std::unique_ptr<exala::io::matrix_stream> a;
    std::int64_t n = 0;
    s.agree([&] {
      a = std::make_unique<exala::io::matrix_stream>(afile);
      const exala::io::matrix_info& info = a->info();
      const std::string ashape = std::to_string(info.rows) + " x " + std::to_string(info.cols);
      if (info.rows != info.cols)
        throw usage_error("solve: " + exala::io::printable(afile, 4096) + " (" + ashape +
                          ") is not square");
      if (info.rows == 0)
        throw usage_error("solve: " + exala::io::printable(afile, 4096) + " is empty");
      n = info.rows;
    });
    // One pass over A keeps the rows of this rank's stripes. The stripe
    // height is the library's choice when --stripe is not given:
    // default_stripe_height(n) in core, the guess used here; a row asked for
    // later that was not kept costs one more pass (the bits never depend on
    // the guess).
    const int p = s.size(), rank = s.rank();
    const std::int64_t S =
        st.opt.stripe > 0 ? std::min(st.opt.stripe, n) : exala::default_stripe_height(n);
    std::vector<std::int64_t>& local_of = local_of_;
    std::int64_t& kept = kept_;
    std::vector<double>& rows = rows_;
    {
      std::int64_t key = std::numeric_limits<std::int64_t>::max();
      std::exception_ptr failure;
      try {
        local_of.assign(static_cast<std::size_t>(n), -1);
        for (std::int64_t i = 0; i < n; ++i)
          if (owns_row(i, S, p, rank)) local_of[static_cast<std::size_t>(i)] = kept++;
        rows.assign(static_cast<std::size_t>(kept * n), 0.0);
        read_rows(*a, local_of, ld(kept), rows);
      } catch (const exala::io::file_error& e) {
        failure = std::current_exception();
        key = e.line();
      } catch (...) {
        failure = std::current_exception();
        key = 0;
      }
      std::int64_t first = 0;
      MPI_Allreduce(&key, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
      s.agree([&] {
        if (failure && key == first) std::rethrow_exception(failure);
      });
    }
    // B: read by rank 0, broadcast.
    std::int64_t nrhs = 0;
    std::vector<double> b;
    s.agree([&] {
      if (!s.root()) return;
      exala::io::array bin = exala::io::read_matrix_file(bfile);
      if (bin.rows != n || bin.cols == 0)
        throw usage_error("solve: " + exala::io::printable(bfile, 4096) + " (" +
                          std::to_string(bin.rows) + " x " + std::to_string(bin.cols) +
                          ") does not fit " + exala::io::printable(afile, 4096) + " (" +
                          std::to_string(n) + " x " + std::to_string(n) + "): B needs " +
                          std::to_string(n) + " rows, one column per right-hand side");
      nrhs = bin.cols;
      b = std::move(bin.values);
    });
    MPI_Bcast(&nrhs, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    b.resize(static_cast<std::size_t>(n * nrhs));
    bcast(b, 0);
    return {n, nrhs, std::move(b)};
  }

  exala::refine_report solve(const in_core_system& sys, solve_settings& st,
                             std::vector<double>& x) override {
    const std::int64_t n = sys.n, nrhs = sys.nrhs;
    const std::string& afile = afile_;
    const std::vector<std::int64_t>& local_of = local_of_;
    const std::int64_t kept = kept_;
    const std::vector<double>& rows = rows_;
    const exala::mpi::row_source source = [&, n, kept](std::int64_t row0, std::int64_t count,
                                                      double* dst, std::int64_t ldd) {
      bool all_kept = true;
      for (std::int64_t i = row0; i < row0 + count; ++i)
        all_kept = all_kept && local_of[static_cast<std::size_t>(i)] >= 0;
      if (all_kept) {
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t i = 0; i < count; ++i)
            dst[i + j * ldd] = rows[static_cast<std::size_t>(
                local_of[static_cast<std::size_t>(row0 + i)] + j * ld(kept))];
        return;
      }
      // Not kept (the library chose another stripe height): one more pass.
      std::vector<std::int64_t> at(static_cast<std::size_t>(n), -1);
      for (std::int64_t i = 0; i < count; ++i) at[static_cast<std::size_t>(row0 + i)] = i;
      std::vector<double> part(static_cast<std::size_t>(ld(count) * n), 0.0);
      exala::io::matrix_stream again(afile);
      read_rows(again, at, ld(count), part);
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < count; ++i)
          dst[i + j * ldd] = part[static_cast<std::size_t>(i + j * ld(count))];
    };
    x.assign(static_cast<std::size_t>(n * nrhs), 0.0);
    // The rank's stripes, factored in place: with rows_ (the residual's
    // source) two copies of the rank's rows, not three.
    std::optional<exala::mpi::local_stripes> a;
    s_.agree([&] {
      a.emplace(MPI_COMM_WORLD, n, st.opt);
      a->fill(source);
    });
    exala::refine_report ref;
    solve_step(s_, [&] {
      lu_.emplace(MPI_COMM_WORLD, std::move(*a), st.opt);
      ref = lu_->solve_refined(nrhs, sys.b.data(), n, x.data(), n, source, st.refine_steps);
    });
    return ref;
  }

  exala::stripe_lu_report report() override { return total_report(lu_->report()); }
  // The refined backward error is the same on every rank: all refuse alike.
  void check(const std::function<void()>& check) override { s_.agree(check); }
  void finish() override { s_.finish(); }

 private:
  mpi_session& s_;
  std::string afile_;
  std::vector<std::int64_t> local_of_;  // row i of A: its row in rows_, or -1
  std::int64_t kept_ = 0;
  std::vector<double> rows_;  // this rank's rows of A, kept_ x n
  std::optional<exala::mpi::stripe_lu> lu_;
};

// The rank's own directory pattern (--rank-workdir, default
// DIR/mpi/rank-%r); checked before the first agreement.
std::string rank_pattern(const stripe_request& r, const std::vector<std::string>& dirs, int ranks) {
  std::string pattern = dirs[0] + "/mpi/rank-%r";
  if (const auto v = r.options.get("--rank-workdir")) pattern = std::string(*v);
  if (pattern.empty()) throw usage_error("option '--rank-workdir' needs a directory pattern");
  if (ranks > 1 && pattern.find("%r") == std::string::npos)
    throw usage_error("option '--rank-workdir' needs '%r' (the rank) in " + quote_value(pattern) +
                      ": each rank needs its own directory");
  return pattern;
}

// Over the ranks: rank 0 keeps other exala commands off the stored system,
// every rank works in its own directory (pattern, %r the rank), and every
// step is agreed on by the ranks.
class distributed_stored final : public stored_placement {
 public:
  // cache_given: --cache was given to this rank (else the default cache).
  distributed_stored(mpi_session& s, std::string pattern, bool cache_given)
      : s_(s), pattern_(std::move(pattern)), mine_(rank_dir(pattern_, s.rank())),
        cache_given_(cache_given) {}

  bool root() const override { return s_.root(); }

  void open(const std::vector<std::string>& dirs, solve_settings& st) override {
    // The default cache: half the physical memory, shared by the ranks of a
    // node, the same on every rank (the smallest), since the stripe height S
    // chosen without --stripe depends on it. (One process alone would take
    // the whole half: give --stripe, or --cache, for the same S and bits.)
    // --cache is each rank's own (a rank may give it and another not): every
    // rank takes part in both collectives, whether it uses the result or not.
    const int on_node = ranks_on_node();
    const std::uint64_t budget =
        std::max<std::uint64_t>(physical_memory() / 2 / std::uint64_t(on_node), 1);
    std::uint64_t smallest = budget;
    MPI_Allreduce(&budget, &smallest, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (!cache_given_) st.opt.cache_bytes = smallest;
    s_.agree([&] {
      check_workdirs_exist(dirs);
      if (s_.root()) system_lock_.emplace(dirs, false);  // every directory of the set
      std::error_code ec;
      std::filesystem::create_directories(mine_, ec);
      if (ec)
        throw exala::error("rank work directory " + quote_value(mine_) +
                           ": cannot create it: " + ec.message());
      own_lock_.emplace(mine_, false);
    });
  }

  exala::refine_report solve(const std::vector<std::string>& dirs, solve_settings& st,
                             std::vector<double>& x, std::int64_t& n) override {
    exala::refine_report ref;
    solve_step(s_, [&] {
      lu_.emplace(MPI_COMM_WORLD, dirs, mine_, st.opt);
      ref = lu_->solve_stored(x, st.refine_steps);
    });
    n = lu_->n();
    return ref;
  }

  exala::stripe_lu_report report() override { return total_report(lu_->report()); }

  std::string where(const exala::stripe_lu_report& rep, const std::vector<std::string>& dirs,
                    const solve_settings& st) const override {
    const std::string cache =
        "cache " + format_bytes(static_cast<double>(st.opt.cache_bytes)) + " a rank";
    return std::string(rep.in_core ? "in core" : "out of core") + " from " + dirs_text(dirs) +
           " on " + ranks_text(s_.size()) + " (" + cache + "; rank directories " +
           exala::io::printable(pattern_, 4096) + "; I/O and cache counts of all ranks)";
  }

  // The refined backward error is the same on every rank: all refuse alike.
  void check(const std::function<void()>& check) override { s_.agree(check); }
  void finish() override { s_.finish(); }

 private:
  mpi_session& s_;
  const std::string pattern_, mine_;
  const bool cache_given_;
  std::optional<workdir_lock> system_lock_, own_lock_;
  std::optional<exala::mpi::stripe_lu> lu_;
};

}  // namespace

solution mpi_solve(mpi_session& s, const stripe_request& r) {
  const bool out_of_core = r.options.has("--workdir");
  if (out_of_core && !r.operands.empty())
    throw usage_error("solve takes A B (in core) or --workdir DIR (out of core), not both");
  if (!out_of_core && r.operands.size() != 2)
    throw usage_error("solve needs 2 operands (exala solve A B) or '--workdir DIR', got " +
                      std::to_string(r.operands.size()));
  if (!out_of_core && r.options.has("--rank-workdir"))
    throw usage_error("option '--rank-workdir' applies to an out-of-core solve (--workdir) only");
  solve_settings st = solve_options(r, out_of_core);
  if (st.opt.pivot != exala::pivoting::local)
    throw usage_error(
        "option '--pivot partial' does not apply to '--backend mpi' (the "
        "distributed stripe LU pivots within substripes: --pivot local)");
  // The set and each rank's directory pattern, checked before the first agreement.
  const std::vector<std::string> dirs = out_of_core ? workdirs_of(r) : std::vector<std::string>{};
  const std::string pattern = out_of_core ? rank_pattern(r, dirs, s.size()) : std::string();
  if (!out_of_core) {
    for (const std::string& f : r.operands)
      if (f == "-")
        throw usage_error(
            "standard input ('-') cannot be read by every rank with --backend mpi: "
            "give a file");
  }
  if (s.root()) check_output(r.output);
  s.begin([&](run_identity& id) {
    id.add("command", "solve");
    if (r.output.empty())
      id.add("option '-o'", "", "not given (standard output)");
    else
      id.add("option '-o'", r.output);
    // Every option but each rank's own, sorted by name; repeated values
    // (--workdir) in order.
    std::vector<std::string> names = r.options.names();
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (std::find(per_rank_solve_options.begin(), per_rank_solve_options.end(), name) !=
          per_rank_solve_options.end())
        continue;
      std::string values, shown;
      for (const std::string& v : r.options.all(name)) {
        put_field(values, v);
        shown += (shown.empty() ? "" : ", ") + (v.empty() ? std::string("given") : quote_value(v));
      }
      id.add("option '" + name + "'", values, shown);
    }
    if (!out_of_core) {
      id.add_file("A", r.operands[0]);
      id.add_file("B", r.operands[1]);
    }
  });
  if (out_of_core) {
    distributed_stored place(s, pattern, r.options.has("--cache"));
    return solve_stored_system(dirs, st, place);
  }
  distributed_in_core place(s);
  return solve_in_core(r, st, place);
}

}  // namespace exala::cli
