// Internal: the OpenCL C sources embedded in the library at build time
// (cmake/embed_kernels.cmake writes the table; one entry per .cl file, named
// by its stem: "common", "blas1", ...).
#pragma once

#include <cstddef>

namespace exala::opencl::detail {

struct embedded_source {
  const char* name;
  const char* text;
};

// The table and its length.
const embedded_source* embedded_sources(std::size_t& count) noexcept;

}  // namespace exala::opencl::detail
