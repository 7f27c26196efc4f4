# tests/check_hd_bit_ops.cmake - cmake -DROOT=<source dir> -P this file.
# Fails when a header with EXALA_HD code (shared by the host and CUDA kernels)
# calls <bit>'s counting functions: nvcc compiles libstdc++'s versions in
# device code silently into constants (seen on an H200: every exact-gemm
# scan was wrong there while CI passed). Such code calls exala::hd::countl_zero
# / countr_zero (exala/hd.hpp) instead. CI has no GPU, so this is its guard.
file(GLOB_RECURSE headers "${ROOT}/*/include/*.hpp" "${ROOT}/gpu/*.cuh" "${ROOT}/gpu/*.cu")
set(bad "")
foreach(h IN LISTS headers)
  if(h MATCHES "/build[^/]*/" OR h MATCHES "exala/hd\\.hpp$")
    continue()
  endif()
  file(READ "${h}" text)
  if(NOT text MATCHES "EXALA_HD|__device__|__global__")
    continue()
  endif()
  string(REGEX MATCHALL "std::(countl_zero|countr_zero|countl_one|countr_one|popcount|bit_width|bit_floor|bit_ceil|has_single_bit|rotl|rotr)" hits "${text}")
  if(hits)
    list(REMOVE_DUPLICATES hits)
    string(REPLACE "${ROOT}/" "" rel "${h}")
    list(APPEND bad "${rel}: ${hits}")
  endif()
endforeach()
if(bad)
  list(JOIN bad "\n  " msg)
  message(FATAL_ERROR "device-shared code calls <bit> counts (use exala::hd:: from exala/hd.hpp):\n  ${msg}")
endif()
list(LENGTH headers n)
message(STATUS "checked ${n} headers: no <bit> counts in device-shared code")
