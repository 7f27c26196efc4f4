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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exala/error.hpp"

namespace exala::cli {

// A mistake on the command line (as opposed to in a file or the library).
class usage_error : public exala::error {
 public:
  using exala::error::error;
};

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

// A byte count: digits (a decimal fraction allowed) and an optional suffix
// B, K, M, G, T (powers of 1024) or KiB, MiB, GiB, TiB; at least 1 byte.
// Throws usage_error naming `option` otherwise.
std::uint64_t parse_size(std::string_view option, std::string_view value);

}  // namespace exala::cli
