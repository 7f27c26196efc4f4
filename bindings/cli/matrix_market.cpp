// matrix_market.cpp - reader and writer for dense Matrix Market array files
// (see matrix_market.hpp for the accepted format).
//
// Assumptions: the file is ASCII text with '\n' or "\r\n" line ends; numbers
// are parsed with std::from_chars, which is locale-independent and correctly
// rounded (round to nearest, ties to even) in libstdc++ >= 12.
#include "matrix_market.hpp"

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

namespace exala::io {

namespace {

constexpr std::string_view whitespace = " \t\r\v\f";
constexpr std::size_t max_header_length = 1024;  // the Matrix Market line limit
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

// Reads a file line by line and knows where it is, for messages.
class line_reader {
 public:
  line_reader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  // The next line without its line end; false at the end of the file.
  bool next(std::string& line) {
    if (!std::getline(in_, line)) {
      if (in_.bad()) fail("read error");
      return false;
    }
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }

  // The same, but a line longer than max_length fails without being read in
  // full (so that a binary file or a device such as /dev/zero fails fast).
  bool next_bounded(std::string& line, std::size_t max_length) {
    line.clear();
    char c = 0;
    bool any = false;
    while (in_.get(c)) {
      if (!any) ++line_;
      any = true;
      if (c == '\n') break;
      if (line.size() == max_length)
        fail("line is longer than " + std::to_string(max_length) + " characters");
      line += c;
    }
    if (in_.bad()) fail("read error");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return any;
  }

  // The next line that is neither blank nor a '%' comment.
  bool next_content(std::string& line) {
    while (next(line)) {
      const std::size_t first = line.find_first_not_of(whitespace);
      if (first != std::string::npos && line[first] != '%') return true;
    }
    return false;
  }

  // Throws file_error at the current line (line 1 before the first line).
  [[noreturn]] void fail(const std::string& what) const {
    throw file_error(name_, std::max<std::int64_t>(line_, 1), what);
  }

  std::int64_t line() const { return line_; }
  void set_line(std::int64_t line) { line_ = line; }

 private:
  std::istream& in_;
  const std::string& name_;
  std::int64_t line_ = 0;
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
  if (!r.next_bounded(line, max_header_length))
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

// Parses the 'M N' line and checks that M*N values can be held.
dims read_size(line_reader& r) {
  std::string line;
  if (!r.next_content(line)) r.fail("missing size line 'M N' before the end of the file");
  const std::vector<std::string_view> words = split(line);
  if (words.size() != 2)
    r.fail("bad size line " + quote_token(line) +
           ", expected 'M N' (two counts) for an array file");
  const auto rows = parse_count(words[0]);
  const auto cols = parse_count(words[1]);
  if (!rows) r.fail("bad row count " + quote_token(words[0]) + ", expected a non-negative integer");
  if (!cols)
    r.fail("bad column count " + quote_token(words[1]) + ", expected a non-negative integer");
  const auto max_count = static_cast<std::int64_t>(std::vector<double>().max_size());
  if (*cols != 0 && *rows > max_count / *cols)
    r.fail("size " + std::to_string(*rows) + " x " + std::to_string(*cols) + " is too large");
  return {*rows, *cols, *rows * *cols};
}

std::string count_text(const dims& d) {
  return std::to_string(d.count) + " (" + std::to_string(d.rows) + " x " + std::to_string(d.cols) +
         ")";
}

// Reads the d.count values that follow the size line, and checks that no
// value follows them.
std::vector<double> read_values(line_reader& r, field f, const dims& d) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(std::min<std::int64_t>(d.count, 1 << 20)));
  const auto count = static_cast<std::size_t>(d.count);
  std::string line;
  while (r.next_content(line)) {
    std::string_view rest = line;
    for (std::string_view t = next_token(rest); !t.empty(); t = next_token(rest)) {
      if (values.size() == count) r.fail("too many values, expected " + count_text(d));
      const std::optional<double> v = f == field::real ? parse_real(t) : parse_integer(t);
      if (!v)
        r.fail(quote_token(t) +
               (f == field::real ? " is not a real number" : " is not an integer"));
      values.push_back(*v);
    }
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
  if (!r.next_bounded(line, max_header_length))
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
  if (!r.next_content(line))
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
  constexpr std::int64_t max_int = std::numeric_limits<std::int64_t>::max();
  if (*cols != 0 && *rows > max_int / *cols)
    r.fail("size " + std::to_string(*rows) + " x " + std::to_string(*cols) + " is too large");
  info.rows = *rows;
  info.cols = *cols;
  info.entries = *rows * *cols;
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
    while (r.next_content(line)) {
      std::string_view rest = line;
      for (std::string_view t = next_token(rest); !t.empty(); t = next_token(rest)) {
        if (count == info.entries) r.fail("too many values, expected " + count_text(d));
        visit(i, j, parse_value(t));
        ++count;
        if (++i == info.rows) {
          i = 0;
          ++j;
        }
      }
    }
    if (count < info.entries)
      r.fail("too few values, expected " + count_text(d) + ", found " + std::to_string(count) +
             " before the end of the file");
    return;
  }
  const bool symmetric = info.symmetry == mm_symmetry::symmetric;
  const bool skew = info.symmetry == mm_symmetry::skew_symmetric;
  while (r.next_content(line)) {
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

array read_matrix_file(const std::string& path) {
  matrix_stream s(path);
  const matrix_info& info = s.info();
  const std::string size = std::to_string(info.rows) + " x " + std::to_string(info.cols);
  array a{info.rows, info.cols, {}};
  if (info.format == mm_format::array) {
    // Values arrive in order: no zero-filled allocation up front, so a short
    // file with a huge declared size fails on its length, not on memory.
    a.values.reserve(static_cast<std::size_t>(std::min<std::int64_t>(info.entries, 1 << 20)));
    s.for_each([&a](std::int64_t, std::int64_t, double v) { a.values.push_back(v); });
    return a;
  }
  const auto max_count = static_cast<std::int64_t>(std::vector<double>().max_size());
  if (info.cols != 0 && info.rows > max_count / info.cols)
    throw file_error(s.name(), 0, "size " + size + " is too large to hold in memory");
  const std::int64_t count = info.rows * info.cols;
  std::vector<bool> seen;
  try {
    a.values.assign(static_cast<std::size_t>(count), 0.0);
    seen.assign(static_cast<std::size_t>(count), false);
  } catch (const std::bad_alloc&) {
    throw file_error(s.name(), 0, "size " + size + " is too large to hold in memory");
  }
  s.for_each([&](std::int64_t i, std::int64_t j, double v) {
    const auto k = static_cast<std::size_t>(i + j * info.rows);
    if (seen[k])
      s.fail("entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
             ") is given twice");
    seen[k] = true;
    a.values[k] = v;
  });
  return a;
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

void write_array(std::ostream& os, std::int64_t rows, std::int64_t cols,
                 std::span<const double> data) {
  if (rows < 0) throw invalid_argument("rows", "must be >= 0, got " + std::to_string(rows));
  if (cols < 0) throw invalid_argument("cols", "must be >= 0, got " + std::to_string(cols));
  const auto n = static_cast<std::int64_t>(data.size());
  if ((cols != 0 && rows > n / cols) || n != rows * cols)
    throw invalid_argument("data", "has " + std::to_string(data.size()) + " values, expected " +
                                       std::to_string(rows) + " x " + std::to_string(cols));
  os << "%%MatrixMarket matrix array real general\n" << rows << ' ' << cols << '\n';
  for (const double v : data) os << format_real(v) << '\n';
}

void write_array_file(const std::string& path, std::int64_t rows, std::int64_t cols,
                      std::span<const double> data) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    const int e = errno;
    throw file_error(
        path, 0,
        std::string("cannot create file") + (e ? ": " + std::string(std::strerror(e)) : ""));
  }
  write_array(out, rows, cols, data);
  out.close();
  if (!out) throw file_error(path, 0, "write failed");
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
