// matrix_market.hpp - a small reader and writer for dense Matrix Market
// "array" files, the exchange format of the `exala` command-line tool.
//
// Read: '%%MatrixMarket matrix array real general' or '... integer general'
// (keywords case-insensitive), '%' comment lines and blank lines, a size line
// 'M N', then M*N values in column-major order, any number per line. Values
// are read exactly: every number is correctly rounded to the nearest double
// (std::from_chars), so a decimal written with 17 significant digits or a hex
// float reads back to the same bits. Real fields accept every strtod form
// (decimal, hex float 0x1.8p-3, subnormals, a leading '+') and inf, infinity,
// nan in any case; a number beyond the double range rounds to +-inf or +-0 as
// strtod does. Integer fields accept [+-]digits only. Other objects, formats
// (coordinate), fields (complex, pattern) and symmetries are rejected.
//
// Write: the same format with values printed by format_real (17 significant
// digits, so they read back exactly; inf, -inf, nan). write_array_file
// replaces a file atomically (exala/detail/atomic_file.hpp: a temporary file
// beside it, fsync, rename), so a full disk or a killed process never leaves
// a partial or truncated file: the previous file stays until the new one is
// complete.
//
// The general reader (matrix_stream, read_matrix_file; used by `exala
// import` and `exala solve`) also takes coordinate files: '%%MatrixMarket
// matrix coordinate real|integer general|symmetric|skew-symmetric', a size
// line 'M N NNZ', then NNZ lines 'I J VALUE' (1-based indices). Symmetric
// files store the lower triangle (i >= j) and skew-symmetric ones the strict
// lower triangle (i > j); each stored entry stands for itself and its mirror
// (negated when skew). Absent entries are zero; an entry given twice is an
// error (read_matrix_file, and `exala import` per pass).
//
// Limits (bounded memory for any input, the Matrix Market line limit): the
// header line, the size line and each coordinate entry line may have at most
// max_line_length = 1024 characters; an array file's values may stand any
// number to a line, each value (token) at most max_token_length = 1024
// characters; comment and blank lines may be of any length (they are skipped
// without being held). rows * cols may be at most 2^60 - 1 (the most an
// ExaLA routine addresses; exala/checked.hpp).
//
// Every problem with a file throws exala::io::file_error, whose message is
// 'FILE:LINE: what is wrong' (or 'FILE: what is wrong' when no line applies).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exala/error.hpp"

namespace exala::io {

// The reader's limits (see the top of this file).
inline constexpr std::size_t max_line_length = 1024;
inline constexpr std::size_t max_token_length = 1024;

// A file that cannot be opened, read, parsed or written.
class file_error : public exala::error {
 public:
  // line == 0: the problem is with the file as a whole.
  file_error(const std::string& file, std::int64_t line, const std::string& what);
  const std::string& file() const noexcept { return file_; }
  std::int64_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::int64_t line_;
};

// A dense rows x cols matrix, values in column-major order.
struct array {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<double> values;
};

// Reads an array file from `in`; `name` is the file name used in messages.
array read_array(std::istream& in, const std::string& name);
// Opens and reads `path`; "-" reads standard input (named "<stdin>").
array read_array_file(const std::string& path);

// ---- the general reader: array and coordinate files, streamed ----

enum class mm_format { array, coordinate };
enum class mm_field { real, integer };
enum class mm_symmetry { general, symmetric, skew_symmetric };

struct matrix_info {
  mm_format format = mm_format::array;
  mm_field field = mm_field::real;
  mm_symmetry symmetry = mm_symmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;  // values (array: rows * cols) or entry lines (coordinate)
};

// One Matrix Market file of any supported kind, read entry by entry, as
// many times as needed (passes) without holding it in memory. The
// constructor reads the header and the size line (so info() is known before
// any value is read). Standard input ("-", named "<stdin>") can be read in
// one pass only.
class matrix_stream {
 public:
  explicit matrix_stream(const std::string& path);
  ~matrix_stream();
  matrix_stream(const matrix_stream&) = delete;
  matrix_stream& operator=(const matrix_stream&) = delete;

  const matrix_info& info() const noexcept;
  const std::string& name() const noexcept;
  // Whether for_each may be called again (false for standard input).
  bool can_rewind() const noexcept;

  // One pass over every value from the start: visit(row, col, value) with
  // 0-based indices, in file order; a symmetric or skew-symmetric entry off
  // the diagonal is visited twice (as stored, then mirrored). Checks every
  // value, index, triangle and the counts, throwing file_error at the line.
  using visitor = std::function<void(std::int64_t row, std::int64_t col, double value)>;
  void for_each(const visitor& visit);
  // Throws file_error at the line being read (for checks made by a visitor).
  [[noreturn]] void fail(const std::string& what) const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

// The whole matrix of a file of any supported kind, dense column-major.
// Throws file_error for an entry given twice, or if rows * cols values
// cannot be held. `check`, if given, sees every value as it is read (row,
// col 0-based) and may refuse it with s.fail (FILE:LINE of the value).
using entry_check =
    std::function<void(const matrix_stream& s, std::int64_t row, std::int64_t col, double value)>;
array read_matrix_file(const std::string& path, const entry_check& check = {});

// Throws file_error "PATH:LINE: WHAT" at the line of entry (row, col)
// (0-based) of the matrix file `path`, found by reading the file again; the
// message has no line where the entry is not in the file (an absent
// coordinate entry) or the file cannot be read again (standard input).
[[noreturn]] void fail_at_entry(const std::string& path, std::int64_t row, std::int64_t col,
                                const std::string& what);

// The error of every trsv of the tool for an exact zero on T's diagonal at
// 0-based row `row` (exala::singular_matrix::row): fail_at_entry at T(row,
// row), "exact zero on the diagonal at T(i, i): the triangular matrix is
// singular" with the 1-based i.
[[noreturn]] void fail_singular_diagonal(const std::string& path, std::int64_t row);

// The double nearest to a whole real-number token (see the top of this file),
// or nothing if the token is not a number.
std::optional<double> parse_real(std::string_view token);
// The double nearest to a whole [+-]digits token, or nothing.
std::optional<double> parse_integer(std::string_view token);

// v with 17 significant digits ('%.17g', reads back exactly); "inf", "-inf",
// and "nan" for every NaN (whatever its sign); -0.0 is "-0".
std::string format_real(double v);

// Writes a 'matrix array real general' file. Throws exala::invalid_argument
// if rows or cols is negative or data.size() != rows * cols. Stream errors
// are left in the stream's state for the caller to check.
void write_array(std::ostream& os, std::int64_t rows, std::int64_t cols,
                 std::span<const double> data);
// Writes the file `path`, replacing it atomically: the previous file (or
// none) stays until the new one is complete and synced, also when the disk
// fills up or the process is killed. A symbolic link gets its target
// replaced (the link stays); an existing device or FIFO (/dev/null) is
// written as a plain stream; "-" is standard output. The mode of a replaced
// file is kept. Throws file_error naming the path and the cause ("cannot
// create file: ...", "cannot write file: No space left on device; the
// previous file is kept unchanged").
void write_array_file(const std::string& path, std::int64_t rows, std::int64_t cols,
                      std::span<const double> data);

// Columns [c0, c1) of a matrix, rows x (c1 - c0) values column-major into
// dst (ld = rows): a matrix too large to be held whole, written by panels.
using column_source = std::function<void(std::int64_t c0, std::int64_t c1, double* dst)>;

// One array file for write_array_files: its values are `data`, or, when
// `source` is set, come from it in panels of at most `panel` columns
// (panel >= 1; data is then unused).
struct array_file {
  std::string path;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::span<const double> data;
  column_source source = {};
  std::int64_t panel = 0;
};
// Writes `f` as write_array_file writes its data ("-": standard output; a
// device or FIFO: in place; otherwise replaced atomically), its values taken
// from f.source panel by panel when it is set, so that at most rows x panel
// values are held at once. An exception thrown by the source leaves the
// previous file unchanged (the temporary is removed) and is passed on.
void write_array_file(const array_file& f);

// Replaces several regular files together: each is written to a temporary
// beside it and synced, then `before_rename` runs (may be empty), then all
// are renamed. A failure before the renames keeps every previous file; only
// a failing rename (not a full disk) can leave some replaced. Throws
// file_error as write_array_file.
void write_array_files(const std::vector<array_file>& files,
                       const std::function<void()>& before_rename = {});

// ---- sizes ----

// "R x C = N entries", N exact (beyond int64 too), with " (2^k)" when N is a
// power of two: for messages about sizes.
std::string entries_text(std::int64_t rows, std::int64_t cols);
// Why a rows x cols array of doubles cannot be held, or "" when it can as far
// as can be told before allocating: "would have R x C = N entries, more than
// the 2^60 - 1 ExaLA can address" (exala/checked.hpp), or "would have R x C
// = N entries: B bytes (X TiB), more than this machine's memory of M GiB".
std::string size_problem(std::int64_t rows, std::int64_t cols);
// A zero-filled rows x cols array (column-major values). Throws exala::error
// "WHAT PROBLEM CONTEXT" when size_problem says it cannot be held or the
// allocation fails ("... cannot be allocated (out of memory)").
std::vector<double> zero_values(const std::string& what, std::int64_t rows, std::int64_t cols,
                                const std::string& context = "");

// `s` made safe for a one-line message: control and non-ASCII bytes become
// \xNN, and text beyond max_chars is cut and marked with "...".
std::string printable(std::string_view s, std::size_t max_chars = 64);

}  // namespace exala::io
