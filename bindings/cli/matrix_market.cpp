// matrix_market.cpp - reader and writer for dense Matrix Market array files
// (see matrix_market.hpp for the accepted format).
//
// Assumptions: the file is ASCII text with '\n' or "\r\n" line ends; numbers
// are parsed with std::from_chars, which is locale-independent and correctly
// rounded (round to nearest, ties to even) in libstdc++ >= 12.
#include "matrix_market.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <system_error>

#include "exala/checked.hpp"
#include "exala/detail/atomic_file.hpp"
#include "progress.hpp"         // format_bytes
#include "stripe_commands.hpp"  // physical_memory

namespace exala::io {

namespace {

constexpr std::string_view whitespace = " \t\r\v\f";
constexpr std::string_view expected_header = "'%%MatrixMarket matrix array real general'";

std::string message(const std::string& file, std::int64_t line, const std::string& what) {
  std::string text = printable(file, 4096);
  if (line > 0) text.append(":").append(std::to_string(line));
  return text.append(": ").append(what);
}

std::string quote_token(std::string_view token) {
  std::string text = "'";
  return text.append(printable(token)).append("'");
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits the next whitespace-separated token off `rest`; empty at the end.
std::string_view next_token(std::string_view& rest) {
  const std::size_t begin = rest.find_first_not_of(whitespace);
  if (begin == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(begin);
  const std::size_t end = std::min(rest.find_first_of(whitespace), rest.size());
  const std::string_view token = rest.substr(0, end);
  rest.remove_prefix(end);
  return token;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> tokens;
  for (std::string_view t = next_token(line); !t.empty(); t = next_token(line)) tokens.push_back(t);
  return tokens;
}

// Reads a file character by character and knows where it is, for messages:
// line() is the number of the last line begun (0 before the first). Only the
// line or token asked for is held, and never more than its limit, so any
// input (a binary file, /dev/zero, a line of a gigabyte) costs bounded
// memory and fails fast.
class line_reader {
 public:
  line_reader(std::istream& in, const std::string& name) : buf_(in.rdbuf()), name_(name) {}

  // The first line (the header) without its line end; false for an empty
  // file. `what` names the line in the message of one beyond max_length.
  bool next_line(std::string& line, std::size_t max_length, std::string_view what) {
    line.clear();
    const int c = get();
    if (c == eof) return false;
    if (c != '\n') rest_of_line(line, c, max_length, what);
    return true;
  }

  // The next line that is neither blank nor a '%' comment (comments are
  // skipped whatever their length), from its first non-blank character.
  bool next_content(std::string& line, std::size_t max_length, std::string_view what) {
    line.clear();
    for (;;) {
      int c = get();
      while (c != eof && c != '\n' && is_blank(c)) c = get();
      if (c == eof) return false;
      if (c == '\n') continue;
      if (c == '%') {
        skip_line();
        continue;
      }
      rest_of_line(line, c, max_length, what);
      return true;
    }
  }

  // The next whitespace-separated value across lines, skipping comment lines
  // (a '%' first on its line); false at the end of the file. line() is the
  // value's line.
  bool next_token(std::string& token, std::size_t max_length) {
    token.clear();
    int c = 0;
    for (;;) {
      const bool line_start = blank_line_;
      c = get();
      if (c == eof) return false;
      if (c == '\n' || is_blank(c)) continue;
      if (c == '%' && line_start) {
        skip_line();
        continue;
      }
      break;
    }
    token += static_cast<char>(c);
    for (c = peek(); c != eof && c != '\n' && !is_blank(c); c = peek()) {
      if (token.size() == max_length)
        fail("value " + quote_token(token) + " is longer than " + std::to_string(max_length) +
             " characters");
      token += static_cast<char>(get());
    }
    return true;
  }

  // Throws file_error at the current line (line 1 before the first line).
  [[noreturn]] void fail(const std::string& what) const {
    throw file_error(name_, std::max<std::int64_t>(line_, 1), what);
  }

  std::int64_t line() const { return line_; }
  // After a seek to the start of line `line` + 1.
  void set_line(std::int64_t line) {
    line_ = line;
    at_start_ = true;
    blank_line_ = true;
  }

 private:
  using traits = std::char_traits<char>;
  static constexpr int eof = traits::eof();

  static bool is_blank(int c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
  }

  int get() {
    const int c = buf_ == nullptr ? eof : buf_->sbumpc();
    if (c == eof) return eof;
    if (at_start_) {
      ++line_;
      at_start_ = false;
    }
    if (c == '\n') {
      at_start_ = true;
      blank_line_ = true;
    } else if (!is_blank(c)) {
      blank_line_ = false;
    }
    return c;
  }
  int peek() { return buf_ == nullptr ? eof : buf_->sgetc(); }

  void skip_line() {
    for (int c = get(); c != eof && c != '\n';) c = get();
  }

  // `line` gets `first` and the rest of its line, without the line end
  // ("\n" or "\r\n"); more than max_length characters fail.
  void rest_of_line(std::string& line, int first, std::size_t max_length, std::string_view what) {
    for (int c = first; c != eof && c != '\n'; c = get()) {
      if (line.size() == max_length && !(c == '\r' && peek() == '\n'))
        fail(std::string(what) + " is longer than " + std::to_string(max_length) +
             " characters (the Matrix Market line limit)");
      line += static_cast<char>(c);
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
  }

  std::streambuf* buf_;
  const std::string& name_;
  std::int64_t line_ = 0;
  bool at_start_ = true;    // the next character begins a line
  bool blank_line_ = true;  // only blanks so far on the current line
};

enum class field { real, integer };

// Checks one header keyword against the supported value and the known but
// unsupported ones.
void check_keyword(const line_reader& r, const std::string& value, std::string_view what,
                   std::string_view supported, std::initializer_list<std::string_view> known) {
  if (value == supported) return;
  const bool is_known = std::find(known.begin(), known.end(), value) != known.end();
  r.fail(std::string(is_known ? "" : "unknown ") + std::string(what) + " " + quote_token(value) +
         (is_known ? " is not supported yet" : "") + ", expected '" + std::string(supported) + "'");
}

// Parses the '%%MatrixMarket object format field symmetry' line.
field read_header(line_reader& r) {
  std::string line;
  if (!r.next_line(line, max_line_length, "header line"))
    r.fail("empty file, expected a " + std::string(expected_header) + " header");
  const std::vector<std::string_view> words = split(line);
  if (words.empty() || lower(words[0]) != "%%matrixmarket")
    r.fail("not a Matrix Market file: the first line must be a " + std::string(expected_header) +
           " header");
  if (words.size() < 5) r.fail("incomplete header, expected " + std::string(expected_header));
  if (words.size() > 5) r.fail("unexpected " + quote_token(words[5]) + " after the header");
  check_keyword(r, lower(words[1]), "object", "matrix", {"vector"});
  check_keyword(r, lower(words[2]), "format", "array", {"coordinate"});
  const std::string f = lower(words[3]);
  if (f != "integer") check_keyword(r, f, "field", "real", {"complex", "pattern"});
  check_keyword(r, lower(words[4]), "symmetry", "general",
                {"symmetric", "skew-symmetric", "hermitian"});
  return f == "integer" ? field::integer : field::real;
}

// A row or column count: decimal digits only, within int64.
std::optional<std::int64_t> parse_count(std::string_view token) {
  if (token.empty() || token.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc{} || end != token.data() + token.size()) return std::nullopt;
  return v;
}

struct dims {
  std::int64_t rows, cols, count;
};

// The exact product a * b (a, b >= 0) in decimal, and " (2^k)" when it is a
// power of two (else "").
std::string product_text(std::int64_t a, std::int64_t b) {
  unsigned __int128 p = static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(p % 10)));
    p /= 10;
  } while (p != 0);
  return digits;
}
std::string power_text(std::int64_t a, std::int64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b);
  if (p < 2 || (p & (p - 1)) != 0) return "";
  int k = 0;
  for (unsigned __int128 q = p; q > 1; q >>= 1) ++k;
  return " (2^" + std::to_string(k) + ")";
}

constexpr std::string_view addressable = "more than the 2^60 - 1 ExaLA can address";

// rows * cols, failing at the size line when it exceeds 2^60 - 1.
std::int64_t checked_size(const line_reader& r, std::int64_t rows, std::int64_t cols) {
  const auto count = exala::detail::count_of(rows, cols);
  if (!count)
    r.fail("size " + std::to_string(rows) + " x " + std::to_string(cols) + " is too large: " +
           product_text(rows, cols) + " entries" + power_text(rows, cols) + ", " +
           std::string(addressable));
  return *count;
}

// Reserves room for the rows x cols values of a file as they arrive: all of
// them when they fit in memory (a short file with a huge declared size then
// costs address space only), else (or when that fails) a first 2^20.
void reserve_values(std::vector<double>& values, std::int64_t rows, std::int64_t cols) {
  const auto first = static_cast<std::size_t>(std::min<std::int64_t>(rows * cols, 1 << 20));
  if (size_problem(rows, cols).empty()) {
    try {
      values.reserve(static_cast<std::size_t>(rows * cols));
      return;
    } catch (const std::bad_alloc&) {
    }
  }
  values.reserve(first);
}

// The message of a file whose values ran out of memory after `held` values.
std::string out_of_memory_text(std::int64_t rows, std::int64_t cols, std::size_t held) {
  const std::string problem = size_problem(rows, cols);
  return "the matrix " +
         (problem.empty() ? "of " + entries_text(rows, cols) + " cannot be held (out of memory)"
                          : problem) +
         ", after " + std::to_string(held) + " values";
}

// Parses the 'M N' line and checks that M*N values can be held.
dims read_size(line_reader& r) {
  std::string line;
  if (!r.next_content(line, max_line_length, "size line"))
    r.fail("missing size line 'M N' before the end of the file");
  const std::vector<std::string_view> words = split(line);
  if (words.size() != 2)
    r.fail("bad size line " + quote_token(line) +
           ", expected 'M N' (two counts) for an array file");
  const auto rows = parse_count(words[0]);
  const auto cols = parse_count(words[1]);
  if (!rows) r.fail("bad row count " + quote_token(words[0]) + ", expected a non-negative integer");
  if (!cols)
    r.fail("bad column count " + quote_token(words[1]) + ", expected a non-negative integer");
  return {*rows, *cols, checked_size(r, *rows, *cols)};
}

std::string count_text(const dims& d) {
  return std::to_string(d.count) + " (" + std::to_string(d.rows) + " x " + std::to_string(d.cols) +
         ")";
}

// Reads the d.count values that follow the size line, and checks that no
// value follows them. The values are held as they arrive (all reserved up
// front only when they fit in memory), so that a short file with a huge
// declared size fails on its length, and one too long for memory names the
// bytes it needs.
std::vector<double> read_values(line_reader& r, field f, const dims& d) {
  std::vector<double> values;
  const auto count = static_cast<std::size_t>(d.count);
  std::string t;
  try {
    reserve_values(values, d.rows, d.cols);
    while (r.next_token(t, max_token_length)) {
      if (values.size() == count) r.fail("too many values, expected " + count_text(d));
      const std::optional<double> v = f == field::real ? parse_real(t) : parse_integer(t);
      if (!v)
        r.fail(quote_token(t) +
               (f == field::real ? " is not a real number" : " is not an integer"));
      values.push_back(*v);
    }
  } catch (const std::bad_alloc&) {
    r.fail(out_of_memory_text(d.rows, d.cols, values.size()));
  }
  if (values.size() < count)
    r.fail("too few values, expected " + count_text(d) + ", found " +
           std::to_string(values.size()) + " before the end of the file");
  return values;
}

// Whether a valid finite number that std::from_chars reported out of range
// overflows (true) or underflows (false). `digits` is the unsigned number
// without any 0x prefix. Such a number is far (> 2^1000) from 1, so the
// position of its leading digit and its exponent decide.
bool overflows(std::string_view digits, bool hex) {
  const auto is_digit = [hex](char c) {
    return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : (c >= '0' && c <= '9');
  };
  std::int64_t int_digits = 0;  // integer digits from the leading nonzero one on
  std::int64_t frac_zeros = 0;  // zeros between the point and the leading nonzero digit
  bool point = false, nonzero = false;
  std::size_t i = 0;
  for (; i < digits.size() && (digits[i] == '.' || is_digit(digits[i])); ++i) {
    const char c = digits[i];
    if (c == '.') {
      point = true;
    } else if (!point && (nonzero || c != '0')) {
      nonzero = true;
      ++int_digits;
    } else if (point && !nonzero) {
      nonzero = c != '0';
      frac_zeros += c == '0' ? 1 : 0;
    }
  }
  if (!nonzero) return false;
  // The leading nonzero digit stands for radix^lead.
  const std::int64_t lead = int_digits > 0 ? int_digits - 1 : -(frac_zeros + 1);
  std::int64_t exponent = 0;  // after 'e' (decimal) or 'p' (binary), saturated
  bool negative = false;
  if (i < digits.size()) ++i;  // 'e' or 'p'
  if (i < digits.size() && (digits[i] == '+' || digits[i] == '-')) negative = digits[i++] == '-';
  for (; i < digits.size(); ++i)
    exponent = std::min<std::int64_t>(exponent * 10 + (digits[i] - '0'), 1'000'000'000);
  if (negative) exponent = -exponent;
  return (hex ? 4 * lead + exponent : lead + exponent) >= 0;
}

// ---- the general reader (array and coordinate files) ----

constexpr std::string_view general_header =
    "'%%MatrixMarket matrix array|coordinate real|integer general|symmetric|skew-symmetric'";

// Parses the header line of the general reader into `info`.
void read_general_header(line_reader& r, matrix_info& info) {
  std::string line;
  if (!r.next_line(line, max_line_length, "header line"))
    r.fail("empty file, expected a " + std::string(general_header) + " header");
  const std::vector<std::string_view> words = split(line);
  if (words.empty() || lower(words[0]) != "%%matrixmarket")
    r.fail("not a Matrix Market file: the first line must be a " + std::string(general_header) +
           " header");
  if (words.size() < 5) r.fail("incomplete header, expected " + std::string(general_header));
  if (words.size() > 5) r.fail("unexpected " + quote_token(words[5]) + " after the header");
  check_keyword(r, lower(words[1]), "object", "matrix", {"vector"});
  const std::string format = lower(words[2]);
  if (format == "array")
    info.format = mm_format::array;
  else if (format == "coordinate")
    info.format = mm_format::coordinate;
  else
    r.fail("unknown format " + quote_token(format) + ", expected 'array' or 'coordinate'");
  const std::string f = lower(words[3]);
  if (f == "real") {
    info.field = mm_field::real;
  } else if (f == "integer") {
    info.field = mm_field::integer;
  } else {
    const bool known = f == "complex" || f == "pattern";
    r.fail(std::string(known ? "" : "unknown ") + "field " + quote_token(f) +
           (known ? " is not supported yet" : "") + ", expected 'real' or 'integer'");
  }
  const std::string sym = lower(words[4]);
  if (sym == "general") {
    info.symmetry = mm_symmetry::general;
  } else if (sym == "symmetric") {
    info.symmetry = mm_symmetry::symmetric;
  } else if (sym == "skew-symmetric") {
    info.symmetry = mm_symmetry::skew_symmetric;
  } else {
    const bool known = sym == "hermitian";
    r.fail(std::string(known ? "" : "unknown ") + "symmetry " + quote_token(sym) +
           (known ? " is not supported yet" : "") +
           ", expected 'general', 'symmetric' or 'skew-symmetric'");
  }
  if (info.format == mm_format::array && info.symmetry != mm_symmetry::general)
    r.fail("symmetry " + quote_token(sym) +
           " is supported for coordinate files only, expected 'general' for an array file");
}

// Parses the size line of the general reader ('M N' or 'M N NNZ').
void read_general_size(line_reader& r, matrix_info& info) {
  const bool coordinate = info.format == mm_format::coordinate;
  const std::string_view shape = coordinate ? "'M N NNZ'" : "'M N'";
  std::string line;
  if (!r.next_content(line, max_line_length, "size line"))
    r.fail("missing size line " + std::string(shape) + " before the end of the file");
  const std::vector<std::string_view> words = split(line);
  if (words.size() != (coordinate ? 3U : 2U))
    r.fail("bad size line " + quote_token(line) + ", expected " + std::string(shape) +
           (coordinate ? " (three counts) for a coordinate file"
                       : " (two counts) for an array file"));
  const auto rows = parse_count(words[0]);
  const auto cols = parse_count(words[1]);
  if (!rows) r.fail("bad row count " + quote_token(words[0]) + ", expected a non-negative integer");
  if (!cols)
    r.fail("bad column count " + quote_token(words[1]) + ", expected a non-negative integer");
  info.rows = *rows;
  info.cols = *cols;
  info.entries = checked_size(r, *rows, *cols);
  if (!coordinate) return;
  const auto nnz = parse_count(words[2]);
  if (!nnz)
    r.fail("bad entry count " + quote_token(words[2]) + ", expected a non-negative integer");
  std::int64_t positions = *rows * *cols;
  std::string kind;
  if (info.symmetry != mm_symmetry::general) {
    kind = info.symmetry == mm_symmetry::symmetric ? "symmetric" : "skew-symmetric";
    if (*rows != *cols)
      r.fail("a " + kind + " matrix must be square, got " + std::to_string(*rows) + " x " +
             std::to_string(*cols));
    const std::int64_t n = *rows;  // n (n +- 1) / 2 without overflow
    const std::int64_t other = info.symmetry == mm_symmetry::symmetric ? n + 1 : n - 1;
    positions = n % 2 == 0 ? (n / 2) * std::max<std::int64_t>(other, 0)
                           : n * (std::max<std::int64_t>(other, 0) / 2);
    kind = " " + kind;
  }
  if (*nnz > positions)
    r.fail(std::to_string(*nnz) + " entries do not fit a " + std::to_string(*rows) + " x " +
           std::to_string(*cols) + kind + " matrix (" + std::to_string(positions) +
           " positions" + (kind.empty() ? "" : " in the stored triangle") + ")");
  info.entries = *nnz;
}

// A 1-based index token in 1..limit, as a 0-based index.
std::optional<std::int64_t> parse_index(std::string_view token, std::int64_t limit) {
  const auto v = parse_count(token);
  if (!v || *v < 1 || *v > limit) return std::nullopt;
  return *v - 1;
}

}  // namespace

struct matrix_stream::impl {
  std::string name;
  std::ifstream file;
  std::istream* in = nullptr;
  std::optional<line_reader> reader;
  matrix_info info;
  std::istream::pos_type data_pos;
  std::int64_t data_line = 0;
  bool is_stdin = false;
  bool read_once = false;
};

matrix_stream::matrix_stream(const std::string& path) : p_(std::make_unique<impl>()) {
  impl& m = *p_;
  if (path == "-") {
    m.name = "<stdin>";
    m.in = &std::cin;
    m.is_stdin = true;
  } else {
    m.name = path;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw file_error(path, 0, "is a directory");
    errno = 0;
    m.file.open(path, std::ios::binary);
    if (!m.file) {
      const int e = errno;
      throw file_error(path, 0,
                       std::string("cannot open file") +
                           (e ? ": " + std::string(std::strerror(e)) : ""));
    }
    m.in = &m.file;
  }
  m.reader.emplace(*m.in, m.name);
  read_general_header(*m.reader, m.info);
  read_general_size(*m.reader, m.info);
  m.data_line = m.reader->line();
  if (!m.is_stdin) m.data_pos = m.in->tellg();
}

matrix_stream::~matrix_stream() = default;

const matrix_info& matrix_stream::info() const noexcept { return p_->info; }
const std::string& matrix_stream::name() const noexcept { return p_->name; }
bool matrix_stream::can_rewind() const noexcept { return !p_->is_stdin; }

void matrix_stream::fail(const std::string& what) const { p_->reader->fail(what); }

void matrix_stream::for_each(const visitor& visit) {
  impl& m = *p_;
  line_reader& r = *m.reader;
  if (m.read_once) {
    if (m.is_stdin)
      throw file_error(m.name, 0, "standard input can be read only once (give a file instead)");
    m.in->clear();
    m.in->seekg(m.data_pos);
    if (!*m.in) throw file_error(m.name, 0, "cannot seek back to the values (file changed?)");
    r.set_line(m.data_line);
  }
  m.read_once = true;
  const matrix_info& info = m.info;
  const bool real = info.field == mm_field::real;
  const auto parse_value = [&r, real](std::string_view t) {
    const std::optional<double> v = real ? parse_real(t) : parse_integer(t);
    if (!v) r.fail(quote_token(t) + (real ? " is not a real number" : " is not an integer"));
    return *v;
  };
  std::string line;
  std::int64_t count = 0;
  if (info.format == mm_format::array) {
    const dims d{info.rows, info.cols, info.entries};
    std::int64_t i = 0, j = 0;
    while (r.next_token(line, max_token_length)) {
      if (count == info.entries) r.fail("too many values, expected " + count_text(d));
      visit(i, j, parse_value(line));
      ++count;
      if (++i == info.rows) {
        i = 0;
        ++j;
      }
    }
    if (count < info.entries)
      r.fail("too few values, expected " + count_text(d) + ", found " + std::to_string(count) +
             " before the end of the file");
    return;
  }
  const bool symmetric = info.symmetry == mm_symmetry::symmetric;
  const bool skew = info.symmetry == mm_symmetry::skew_symmetric;
  while (r.next_content(line, max_line_length, "entry line")) {
    const std::vector<std::string_view> t = split(line);
    if (count == info.entries)
      r.fail("too many entries, expected " + std::to_string(info.entries));
    if (t.size() != 3)
      r.fail("bad entry line " + quote_token(line) + ", expected 'I J VALUE'");
    const auto i = parse_index(t[0], info.rows);
    if (!i)
      r.fail("row index " + quote_token(t[0]) + " is not an integer from 1 to " +
             std::to_string(info.rows));
    const auto j = parse_index(t[1], info.cols);
    if (!j)
      r.fail("column index " + quote_token(t[1]) + " is not an integer from 1 to " +
             std::to_string(info.cols));
    const double v = parse_value(t[2]);
    std::string where = "(";
    where.append(t[0]).append(", ").append(t[1]).append(")");
    if ((symmetric || skew) && *i < *j)
      r.fail("entry " + where + " is above the diagonal: a " +
             std::string(symmetric ? "symmetric" : "skew-symmetric") +
             " file stores the lower triangle only");
    if (skew && *i == *j)
      r.fail("entry " + where +
             " is on the diagonal: a skew-symmetric file stores the strict lower triangle only");
    ++count;
    visit(*i, *j, v);
    if ((symmetric || skew) && *i != *j) visit(*j, *i, skew ? -v : v);
  }
  if (count < info.entries)
    r.fail("too few entries, expected " + std::to_string(info.entries) + ", found " +
           std::to_string(count) + " before the end of the file");
}

array read_matrix_file(const std::string& path, const entry_check& check) {
  matrix_stream s(path);
  const matrix_info& info = s.info();
  array a{info.rows, info.cols, {}};
  if (info.format == mm_format::array) {
    // Values arrive in order: no zero-filled allocation up front, so a short
    // file with a huge declared size fails on its length, not on memory.
    try {
      reserve_values(a.values, info.rows, info.cols);
      s.for_each([&](std::int64_t i, std::int64_t j, double v) {
        if (check) check(s, i, j, v);
        a.values.push_back(v);
      });
    } catch (const std::bad_alloc&) {
      s.fail(out_of_memory_text(info.rows, info.cols, a.values.size()));
    }
    return a;
  }
  // Coordinate entries come in any order: the dense matrix is held (and a
  // bit per entry to catch entries given twice).
  try {
    a.values = zero_values("the matrix", info.rows, info.cols);
  } catch (const exala::error& e) {
    throw file_error(s.name(), 0, e.what());
  }
  const std::int64_t count = info.rows * info.cols;
  std::vector<bool> seen;
  try {
    seen.assign(static_cast<std::size_t>(count), false);
  } catch (const std::bad_alloc&) {
    throw file_error(s.name(), 0, "the matrix of " + entries_text(info.rows, info.cols) +
                                      " cannot be held (out of memory)");
  }
  s.for_each([&](std::int64_t i, std::int64_t j, double v) {
    if (check) check(s, i, j, v);
    const auto k = static_cast<std::size_t>(i + j * info.rows);
    if (seen[k])
      s.fail("entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
             ") is given twice");
    seen[k] = true;
    a.values[k] = v;
  });
  return a;
}

void fail_at_entry(const std::string& path, std::int64_t row, std::int64_t col,
                   const std::string& what) {
  if (path != "-") {
    bool found = false;
    try {
      matrix_stream s(path);
      s.for_each([&](std::int64_t i, std::int64_t j, double) {
        if (i != row || j != col) return;
        found = true;
        s.fail(what);
      });
    } catch (const file_error&) {
      if (found) throw;
    }
  }
  throw file_error(path == "-" ? "<stdin>" : path, 0, what);
}

void fail_singular_diagonal(const std::string& path, std::int64_t row) {
  const std::string i = std::to_string(row + 1);
  fail_at_entry(path, row, row,
                "exact zero on the diagonal at T(" + i + ", " + i +
                    "): the triangular matrix is singular");
}

file_error::file_error(const std::string& file, std::int64_t line, const std::string& what)
    : exala::error(message(file, line, what)), file_(file), line_(line) {}

std::optional<double> parse_real(std::string_view token) {
  std::string_view t = token;
  const bool negative = !t.empty() && t[0] == '-';
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  if (t.empty() || t[0] == '+' || t[0] == '-') return std::nullopt;
  const bool hex = t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  if (hex) {
    t.remove_prefix(2);  // from_chars' hex format takes no prefix
    if (t.empty() || !(std::isxdigit(static_cast<unsigned char>(t[0])) || t[0] == '.'))
      return std::nullopt;
  }
  double v = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v,
                                         hex ? std::chars_format::hex : std::chars_format::general);
  if (end != t.data() + t.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range)
    v = overflows(t, hex) ? std::numeric_limits<double>::infinity() : 0.0;
  else if (ec != std::errc{})
    return std::nullopt;
  return negative ? -v : v;
}

std::optional<double> parse_integer(std::string_view token) {
  std::string_view digits = token;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return parse_real(token);
}

array read_array(std::istream& in, const std::string& name) {
  line_reader r(in, name);
  const field f = read_header(r);
  const dims d = read_size(r);
  return {d.rows, d.cols, read_values(r, f, d)};
}

array read_array_file(const std::string& path) {
  if (path == "-") return read_array(std::cin, "<stdin>");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw file_error(path, 0, "is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    throw file_error(
        path, 0, std::string("cannot open file") + (e ? ": " + std::string(std::strerror(e)) : ""));
  }
  return read_array(in, path);
}

std::string format_real(double v) {
  if (std::isnan(v)) return "nan";
  std::array<char, 64> buf{};
  const auto r =
      std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::general, 17);
  return std::string(buf.data(), r.ptr);
}

namespace {

namespace fs = std::filesystem;

std::string errno_text(int e) { return std::strerror(e); }

// The header and values of an array file, handed to `sink` in pieces of
// about 1 MiB (so that a big result is never formatted whole in memory).
// The values are f.data, or f.source's panels of at most f.panel columns.
void format_array(const array_file& f, const std::function<void(const std::string&)>& sink) {
  constexpr std::size_t piece = std::size_t{1} << 20;
  std::string text = "%%MatrixMarket matrix array real general\n" + std::to_string(f.rows) + " " +
                     std::to_string(f.cols) + "\n";
  text.reserve(piece + 64);
  const auto put = [&](std::span<const double> values) {
    for (const double v : values) {
      text += format_real(v);
      text += '\n';
      if (text.size() >= piece) {
        sink(text);
        text.clear();
      }
    }
  };
  if (!f.source) {
    put(f.data);
  } else if (f.rows > 0) {
    const std::int64_t panel = std::min(f.panel, f.cols);
    std::vector<double> buf(static_cast<std::size_t>(f.rows * std::max<std::int64_t>(panel, 1)));
    for (std::int64_t c0 = 0; c0 < f.cols; c0 += panel) {
      const std::int64_t c1 = std::min(f.cols, c0 + panel);
      f.source(c0, c1, buf.data());
      put(std::span<const double>(buf.data(), static_cast<std::size_t>(f.rows * (c1 - c0))));
    }
  }
  if (!text.empty()) sink(text);
}

void check_array(const array_file& f) {
  if (f.rows < 0) throw invalid_argument("rows", "must be >= 0, got " + std::to_string(f.rows));
  if (f.cols < 0) throw invalid_argument("cols", "must be >= 0, got " + std::to_string(f.cols));
  const auto count = exala::detail::count_of(f.rows, f.cols);
  if (f.source) {
    if (!count) throw invalid_argument("rows", "rows x cols is too large");
    if (f.panel < 1) throw invalid_argument("panel", "must be >= 1, got " + std::to_string(f.panel));
    if (!exala::detail::count_of(f.rows, f.panel))
      throw invalid_argument("panel", "rows x panel is too large");
    return;
  }
  if (!count || *count != static_cast<std::int64_t>(f.data.size()))
    throw invalid_argument("data", "has " + std::to_string(f.data.size()) + " values, expected " +
                                       std::to_string(f.rows) + " x " + std::to_string(f.cols));
}

// Where a file written to `path` goes: replaced atomically (`target`: the
// path, or the final target of a symbolic link), or written as a plain
// stream (an existing device, FIFO or socket, such as /dev/null).
struct destination {
  bool stream = false;
  fs::path target;
  bool existed = false;
  mode_t mode = 0;
};

destination destination_of(const std::string& path) {
  destination d;
  d.target = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {  // follows symbolic links
    if (S_ISDIR(st.st_mode)) throw file_error(path, 0, "is a directory");
    if (!S_ISREG(st.st_mode)) {
      d.stream = true;
      return d;
    }
    d.existed = true;
    d.mode = st.st_mode & 07777;
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (!ec) d.target = real;
    return d;
  }
  // A dangling symbolic link gets its target created, as a plain open would.
  for (int hops = 0; hops < 40 && ::lstat(d.target.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
       ++hops) {
    std::error_code ec;
    const fs::path link = fs::read_symlink(d.target, ec);
    if (ec) break;
    d.target = link.is_absolute() ? link : d.target.parent_path() / link;
  }
  return d;
}

// A file being written: the atomic temporary, or nothing for a stream
// (written at once).
struct pending {
  const array_file* file;
  destination dest;
  std::unique_ptr<exala::detail::atomic_file> tmp;
};

[[noreturn]] void write_failed(const std::string& path, bool existed, const std::string& cause) {
  throw file_error(path, 0,
                   "cannot write file: " + cause +
                       (existed ? "; the previous file is kept unchanged"
                                : "; no file was written"));
}

// Writes a device or FIFO in place.
void write_stream(const array_file& f) {
  const int fd = ::open(f.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    throw file_error(f.path, 0, "cannot open file for writing: " + errno_text(e));
  }
  int err = 0;
  format_array(f, [&](const std::string& text) {
    std::size_t done = 0;
    while (err == 0 && done < text.size()) {
      const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
      if (w > 0)
        done += static_cast<std::size_t>(w);
      else if (w < 0 && errno != EINTR)
        err = errno;
      else if (w == 0)
        err = EIO;
    }
  });
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw file_error(f.path, 0, "cannot write file: " + errno_text(err));
}

// Writes `f` to a synced temporary beside its target.
void prepare(pending& p) {
  const array_file& f = *p.file;
  try {
    p.tmp = std::make_unique<exala::detail::atomic_file>(p.dest.target);
  } catch (const exala::detail::write_failure& e) {
    throw file_error(f.path, 0,
                     "cannot create file: " + (e.err() != 0 ? errno_text(e.err()) : e.what()));
  }
  try {
    if (p.dest.existed && ::fchmod(p.tmp->fd(), p.dest.mode) != 0) {
      const int e = errno;
      write_failed(f.path, true, "cannot keep its mode: " + errno_text(e));
    }
    format_array(f, [&p](const std::string& text) {
      p.tmp->write(text.data(), static_cast<std::int64_t>(text.size()));
    });
    if (::fsync(p.tmp->fd()) != 0) {
      const int e = errno;
      write_failed(f.path, p.dest.existed, "fsync failed: " + errno_text(e));
    }
  } catch (const exala::detail::write_failure& e) {
    p.tmp.reset();  // removes the temporary
    write_failed(f.path, p.dest.existed, e.err() != 0 ? errno_text(e.err()) : e.what());
  }
}

}  // namespace

void write_array(std::ostream& os, std::int64_t rows, std::int64_t cols,
                 std::span<const double> data) {
  const array_file f{"", rows, cols, data};
  check_array(f);
  format_array(f, [&os](const std::string& text) { os << text; });
}

void write_array_files(const std::vector<array_file>& files,
                       const std::function<void()>& before_rename) {
  for (const array_file& f : files) check_array(f);
  std::vector<pending> all;
  all.reserve(files.size());
  for (const array_file& f : files) all.push_back({&f, destination_of(f.path), nullptr});
  for (pending& p : all) {
    if (p.dest.stream)
      write_stream(*p.file);
    else
      prepare(p);  // a failure here removes every temporary (their destructors)
  }
  if (before_rename) before_rename();
  std::vector<fs::path> dirs;
  for (pending& p : all) {
    if (!p.tmp) continue;
    try {
      p.tmp->commit(false);  // synced above: close and rename
    } catch (const exala::detail::write_failure& e) {
      throw file_error(p.file->path, 0,
                       "cannot replace file: " + (e.err() != 0 ? errno_text(e.err()) : e.what()));
    }
    const fs::path dir = p.dest.target.parent_path();
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  for (const fs::path& dir : dirs) {
    try {
      exala::detail::fsync_directory(dir);
    } catch (const exala::detail::write_failure& e) {
      throw file_error(dir.empty() ? "." : dir.string(), 0,
                       "the new file is in place, but its directory could not be synced: " +
                           (e.err() != 0 ? errno_text(e.err()) : e.what()));
    }
  }
}

void write_array_file(const std::string& path, std::int64_t rows, std::int64_t cols,
                      std::span<const double> data) {
  if (path == "-") {
    write_array(std::cout, rows, cols, data);
    std::cout.flush();
    if (!std::cout) throw exala::error("cannot write to standard output");
    return;
  }
  write_array_files({array_file{path, rows, cols, data}});
}

void write_array_file(const array_file& f) {
  if (f.path == "-") {
    check_array(f);
    format_array(f, [](const std::string& text) { std::cout << text; });
    std::cout.flush();
    if (!std::cout) throw exala::error("cannot write to standard output");
    return;
  }
  write_array_files({f});
}

std::string entries_text(std::int64_t rows, std::int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols) + " = " + product_text(rows, cols) +
         " entries" + power_text(rows, cols);
}

std::string size_problem(std::int64_t rows, std::int64_t cols) {
  const auto count = exala::detail::count_of(rows, cols);
  if (!count) return "would have " + entries_text(rows, cols) + ", " + std::string(addressable);
  const std::uint64_t bytes = static_cast<std::uint64_t>(*count) * sizeof(double);
  const std::uint64_t memory = exala::cli::physical_memory();
  if (memory == 0 || bytes <= memory) return {};
  return "would have " + entries_text(rows, cols) + ": " + std::to_string(bytes) + " bytes (" +
         exala::cli::format_bytes(static_cast<double>(bytes)) +
         "), more than this machine's memory of " +
         exala::cli::format_bytes(static_cast<double>(memory));
}

std::vector<double> zero_values(const std::string& what, std::int64_t rows, std::int64_t cols,
                                const std::string& context) {
  const std::string problem = size_problem(rows, cols);
  if (!problem.empty()) throw exala::error(what + " " + problem + context);
  try {
    return std::vector<double>(static_cast<std::size_t>(rows * cols), 0.0);
  } catch (const std::bad_alloc&) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(rows * cols) * sizeof(double);
    throw exala::error(what + " would have " + entries_text(rows, cols) + ": " +
                       std::to_string(bytes) + " bytes (" +
                       exala::cli::format_bytes(static_cast<double>(bytes)) +
                       "), which cannot be allocated (out of memory)" + context);
  }
}

std::string printable(std::string_view s, std::size_t max_chars) {
  static constexpr char hex_digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == max_chars) return out + "...";
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex_digits[c >> 4];
      out += hex_digits[c & 15];
    }
  }
  return out;
}

}  // namespace exala::io
