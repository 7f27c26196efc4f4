// stripe/system_reader.cpp - exala::stripe_system_reader: a stored system
// read back through the disk tier (every read size- and checksum-checked).
#include <algorithm>
#include <string>

#include "exala/stripe_lu.hpp"
#include "store.hpp"

namespace exala {

namespace st = detail::stripe;

struct stripe_system_reader::impl {
  explicit impl(st::store&& s) : sto(std::move(s)) {}
  st::store sto;
};

stripe_system_reader::stripe_system_reader(const std::vector<std::string>& workdirs) {
  if (workdirs.empty()) throw invalid_argument("workdirs", "is empty");
  p_ = std::make_unique<impl>(st::store::open(workdirs));
}

stripe_system_reader::~stripe_system_reader() = default;

std::int64_t stripe_system_reader::n() const noexcept { return p_->sto.info().n; }
std::int64_t stripe_system_reader::nrhs() const noexcept { return p_->sto.info().nrhs; }
std::int64_t stripe_system_reader::stripe() const noexcept { return p_->sto.info().stripe; }
double stripe_system_reader::norm_inf() const noexcept { return p_->sto.info().norm_inf; }
const std::string& stripe_system_reader::source() const noexcept { return p_->sto.info().source; }

void stripe_system_reader::read_rows(std::int64_t row0, std::int64_t rows, double* dst,
                                     std::int64_t ld) const {
  read_block(row0, rows, 0, n(), dst, ld);
}

void stripe_system_reader::read_block(std::int64_t row0, std::int64_t rows, std::int64_t col0,
                                      std::int64_t cols, double* dst, std::int64_t ld) const {
  const std::int64_t n = this->n();
  if (row0 < 0 || row0 > n)
    throw invalid_argument("row0", "must be in 0.." + std::to_string(n) + ", got " + std::to_string(row0));
  if (rows < 0 || rows > n - row0)
    throw invalid_argument("rows", "must be in 0.." + std::to_string(n - row0) + ", got " +
                                       std::to_string(rows));
  if (col0 < 0 || col0 > n)
    throw invalid_argument("col0", "must be in 0.." + std::to_string(n) + ", got " + std::to_string(col0));
  if (cols < 0 || cols > n - col0)
    throw invalid_argument("cols", "must be in 0.." + std::to_string(n - col0) + ", got " +
                                       std::to_string(cols));
  if (ld < std::max<std::int64_t>(1, rows))
    throw invalid_argument("ld", "must be >= max(1, rows), got " + std::to_string(ld));
  if (rows == 0 || cols == 0) return;
  if (dst == nullptr) throw invalid_argument("dst", "is null");
  p_->sto.read_original(row0, rows, col0, col0 + cols, dst, ld);
}

void stripe_system_reader::read_rhs(double* b, std::int64_t ldb) const {
  if (ldb < std::max<std::int64_t>(1, n()))
    throw invalid_argument("ldb", "must be >= max(1, n), got " + std::to_string(ldb));
  if (n() > 0 && nrhs() > 0) {
    if (b == nullptr) throw invalid_argument("b", "is null");
    p_->sto.read_rhs(b, ldb);
  }
}

bool stripe_system_reader::read_xtrue(double* x, std::int64_t ldx) const {
  if (ldx < std::max<std::int64_t>(1, n()))
    throw invalid_argument("ldx", "must be >= max(1, n), got " + std::to_string(ldx));
  if (n() > 0 && nrhs() > 0 && x == nullptr) throw invalid_argument("x", "is null");
  return p_->sto.read_xtrue(x, ldx);
}

bool stripe_system_reader::read_solution(double* x, std::int64_t ldx) const {
  if (ldx < std::max<std::int64_t>(1, n()))
    throw invalid_argument("ldx", "must be >= max(1, n), got " + std::to_string(ldx));
  if (n() > 0 && nrhs() > 0 && x == nullptr) throw invalid_argument("x", "is null");
  return p_->sto.read_solution(x, ldx);
}

void store_stripe_solution(const std::vector<std::string>& workdirs, const double* x,
                           std::int64_t ldx) {
  if (workdirs.empty()) throw invalid_argument("workdirs", "is empty");
  st::store s = st::store::open(workdirs);
  const std::int64_t n = s.info().n;
  if (ldx < std::max<std::int64_t>(1, n))
    throw invalid_argument("ldx", "must be >= max(1, n), got " + std::to_string(ldx));
  if (n > 0 && s.info().nrhs > 0 && x == nullptr) throw invalid_argument("x", "is null");
  s.set_policy(true, false);  // one small file: fsync it before it replaces the old one
  s.write_solution(x, ldx);
}

}  // namespace exala
