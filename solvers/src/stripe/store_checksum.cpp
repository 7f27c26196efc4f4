// store_checksum.cpp - the stripe store's checksum64 and its random ids (the
// store: store.cpp; the streaming hasher, which the verified reader uses too:
// store_internal.hpp).
//
// checksum64 is the XXH64 construction (Y. Collet): four independent lanes
// acc = rotl(acc + w * P2, 31) * P1 over the 64-bit words, merged at the end,
// then the tail and an avalanche. Each step is a bijection of the lane for a
// fixed word and of the word for a fixed lane, so two inputs of the same
// length that differ in one 8-byte word (in particular one flipped byte)
// always give different checksums. About 10 GB/s per core (the test reports it).
#include <sys/random.h>
#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

#include "store_internal.hpp"

namespace exala::detail::stripe {

// ---------------------------------------------------------------------------
// checksum64
// ---------------------------------------------------------------------------
std::uint64_t checksum64(const void* data, std::size_t bytes, std::uint64_t seed) noexcept {
  hasher h(seed);
  h.update(data, bytes);
  return h.digest();
}

std::string id128::hex() const {
  char t[40];
  std::snprintf(t, sizeof t, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return t;
}

id128 id128::random() {
  std::uint64_t w[2] = {0, 0};
  std::size_t got = 0;
  auto* p = reinterpret_cast<unsigned char*>(w);
  while (got < sizeof w) {
    const ssize_t r = ::getrandom(p + got, sizeof w - got, 0);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {  // no getrandom (old kernel, seccomp): the C++ library's source
      std::random_device rd;
      for (auto& x : w) x = (std::uint64_t{rd()} << 32) ^ rd();
      break;
    }
  }
  id128 id{w[0], w[1]};
  if (id.empty()) id.lo = 1;  // 0 means "none"
  return id;
}

}  // namespace exala::detail::stripe
