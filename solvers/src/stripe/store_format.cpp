// store_format.cpp - the stripe store's file format: the layout helpers, the
// file names and the manifest / progress records (the store and its
// guarantee: store.cpp; the declarations: store_internal.hpp).
//
// File format, version 2 (every file of the set, "manifest" and "progress"
// included; version 1, with a 16-word header and no identities, is refused
// with a "format version" message):
//
//   [0, 256)              header: 32 little-endian 64-bit words (layout below)
//   [256, 256 + 8 K)      chunk table: K = ceil(P / 1 MiB) 64-bit checksums,
//                         entry k = checksum64(payload bytes [k MiB, (k+1) MiB), seed k)
//   [256 + 8 K, D)        zero padding (checked on read)
//   [D, D + P)            payload, D = 256 + 8 K rounded up to 4096
//
//   word  0  magic "EXALASTP"          word  8  aux (nrhs for manifest/rhs/xtrue,
//   word  1  version (u32) | kind (u32)         pivot count for lu_)
//   word  2  n                         word  9  payload bytes P
//   word  3  rows                      word 10  data offset D
//   word  4  index (stripe; -1)        word 11  chunk bytes (1 MiB)
//   word  5  row0 (orig_: index*stripe; -1)   word 12  checksum64(chunk table, seed 0x5eed)
//   word  6  col0                      word 13  reserved (0)
//   word  7  col1                      word 14  groups_applied
//   words 15-16  system id (hi, lo): the manifest's, in every file of the system
//   words 17-18  factorization id (hi, lo): progress, act_, lseg_, lu_; 0 elsewhere
//   words 19-30  reserved (0)
//   word 31  checksum64(words 0..30, seed 0x4ead)
//
// Payloads: orig_/act_/lseg_ hold rows x (col1 - col0) column-major doubles
// (ld = rows); lu_ the same for all n columns followed by `aux` int64 pivots;
// rhs/xtrue n x nrhs column-major; manifest and progress a small binary record
// (see encode_manifest / encode_progress; at most 1 MiB).
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "exala/checked.hpp"
#include "exala/error.hpp"
#include "exala/stripe_lu.hpp"
#include "store_internal.hpp"

namespace exala::detail::stripe::store_internal {

// ---------------------------------------------------------------------------
// format constants and helpers
// ---------------------------------------------------------------------------
const char* kind_name(std::uint32_t k) {
  switch (static_cast<kind>(k)) {
    case kind::manifest: return "manifest";
    case kind::rhs: return "rhs";
    case kind::xtrue: return "xtrue";
    case kind::orig: return "orig";
    case kind::progress: return "progress";
    case kind::active: return "act";
    case kind::lseg: return "lseg";
    case kind::lu: return "lu";
    case kind::solution: return "solution";
  }
  return "unknown";
}


bool factorization_kind(kind k) {
  return k == kind::progress || k == kind::active || k == kind::lseg || k == kind::lu;
}

i64 chunks_of(i64 payload) { return (payload + kChunk - 1) / kChunk; }
i64 data_offset_of(i64 payload) {
  const i64 end = kHeaderBytes + 8 * chunks_of(payload);
  return (end + kDataAlign - 1) / kDataAlign * kDataAlign;
}
i64 file_size_of(i64 payload) { return data_offset_of(payload) + payload; }

u64 header_checksum(const header& h) {
  return checksum64(&h, offsetof(header, header_checksum), kHeaderSeed);
}

std::string errno_text(int e) { return std::system_category().message(e); }

[[noreturn]] void fail(i64 stripe, const std::string& path, const std::string& what) {
  throw exala::storage_error(stripe, path, what);
}

std::string num(i64 v) { return std::to_string(v); }

std::optional<i64> elements_of(i64 a, i64 b) {
  if (a < 0 || b < 0) return std::nullopt;
  const auto p = exala::detail::count_of(a, b);
  if (!p || *p > kMaxElements) return std::nullopt;
  return p;
}


void check_span(const char* ld_name, i64 cols, i64 rows, i64 ld) {
  if (ld > exala::detail::max_elements)
    throw exala::invalid_argument(ld_name, "= " + std::to_string(ld) +
                                               " exceeds 2^60 elements: the address ld * 8 overflows");
  exala::detail::check_matrix_span(ld_name, cols, rows, ld);
}

// --- names ---------------------------------------------------------------
namespace {

bool parse_u64(std::string_view s, i64& v) {
  if (s.empty() || s.size() > 18 || (s.size() > 1 && s[0] == '0')) return false;  // canonical only
  for (char c : s)
    if (c < '0' || c > '9') return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}


}  // namespace

bool parse_numbered(std::string_view name, std::string_view prefix, int count, i64* out) {
  if (name.size() <= prefix.size() + 4 || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - 4) != ".bin")
    return false;
  std::string_view body = name.substr(prefix.size(), name.size() - prefix.size() - 4);
  for (int i = 0; i < count; ++i) {
    const auto us = body.find('_');
    const std::string_view part = (i + 1 < count) ? body.substr(0, us) : body;
    if ((i + 1 < count) == (us == std::string_view::npos)) return false;
    if (!parse_u64(part, out[i])) return false;
    if (i + 1 < count) body = body.substr(us + 1);
  }
  return true;
}

name_class classify(std::string_view name) {
  if (name == "manifest" || name == "rhs.bin" || name == "xtrue.bin" || name == "solution.bin")
    return name_class::original;
  i64 v[3];
  if (parse_numbered(name, "orig_", 1, v)) return name_class::original;
  if (name == "progress" || parse_numbered(name, "act_", 1, v) ||
      parse_numbered(name, "lu_", 1, v) || parse_numbered(name, "lseg_", 3, v))
    return name_class::factorization;
  return name_class::none;
}


name_class classify_temp(std::string_view name) {
  const auto pos = name.find(".tmp.");
  if (pos == std::string_view::npos) return name_class::none;
  std::string_view rest = name.substr(pos + 5);
  const auto dot = rest.find('.');
  i64 v;
  if (dot == std::string_view::npos || !parse_u64(rest.substr(0, dot), v) ||
      !parse_u64(rest.substr(dot + 1), v))
    return name_class::none;
  return classify(name.substr(0, pos));
}

// ---------------------------------------------------------------------------
// manifest / progress records
// ---------------------------------------------------------------------------
payload_src contiguous_src(const std::vector<char>& v) {
  payload_src s;
  s.parts[0] = block{v.data(), static_cast<i64>(v.size()), 1, static_cast<i64>(v.size())};
  s.count = v.empty() ? 0 : 1;
  return s;
}

header blank_header(kind k, i64 n, i64 rows, i64 index, i64 row0, i64 col0, i64 col1, i64 aux,
                    i64 groups) {
  header h{};
  h.kind = static_cast<std::uint32_t>(k);
  h.n = n;
  h.rows = rows;
  h.index = index;
  h.row0 = row0;
  h.col0 = col0;
  h.col1 = col1;
  h.aux = aux;
  h.groups_applied = groups;
  return h;
}

void check_arg(bool ok, const char* arg, const std::string& what) {
  if (!ok) throw exala::invalid_argument(arg, what);
}

}  // namespace exala::detail::stripe::store_internal
