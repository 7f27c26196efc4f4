// exala/error.hpp - the one exception hierarchy of ExaLA.
//
// Every C++ entry point reports bad input by throwing a class derived from
// exala::error whose message names the offending argument and its value.
// Lower layers never print, exit or abort.
#pragma once

#include <stdexcept>
#include <string>

namespace exala {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An argument is out of its documented domain (n < 0, null pointer, ...).
class invalid_argument : public error {
 public:
  invalid_argument(const std::string& arg, const std::string& what)
      : error("exala: argument '" + arg + "' " + what), argument_(arg) {}
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

// A backend, kernel set or optional component was not built into this binary.
class not_compiled_in : public error {
 public:
  explicit not_compiled_in(const std::string& what)
      : error("exala: " + what + " is not compiled in") {}
};

// A triangular solve met an exact zero on the diagonal (0-based row): the
// system is singular, and no finite solution exists for that row.
class singular_matrix : public error {
 public:
  singular_matrix(const std::string& routine, long long row)
      : error("exala: " + routine + ": exact zero on the diagonal at row " + std::to_string(row) +
              " (0-based): the triangular matrix is singular"),
        row_(row) {}
  long long row() const noexcept { return row_; }

 private:
  long long row_;
};

// Serialized data that cannot be decoded (wrong magic, version, size).
class format_error : public error {
 public:
  using error::error;
};

}  // namespace exala
