# Level-2/3 OpenCL code (gemv, trsv, gemm, trsm), included by CMakeLists.txt:
# the host routines and hooks, and their kernels (program "level23" =
# common.cl + level23.cl).
list(APPEND EXALA_OCL_EXTRA_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/src/level23.cpp)
list(APPEND EXALA_OCL_EXTRA_KERNELS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/level23.cl)
