# Tests of libexala_blas.so (bindings/blas_abi), included from tests/CMakeLists.txt.
#
#   test_blas_abi          Boost.Test: reference semantics (every XERBLA /
#                          cblas_xerbla parameter number, quick returns,
#                          alpha/beta = 0, increments, idamax NaNs, zero
#                          pivots, row- vs column-major) and bit equality with
#                          the exala C++ routines; run on the default backend
#                          and again under EXALA_BACKEND=reference and omp.
#   blas_abi_plain_program an unmodified BLAS program run plain, preloaded
#                          and linked (run_plain_blas.cmake).
if(NOT TARGET exala_blas_abi)
  return()
endif()
set(EXALA_BLAS_ABI_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/bindings/blas_abi)

# --- Boost.Test suite. Its own xerbla_ / cblas_xerbla (defined in the
# executable) take precedence over the library's weak defaults. It links the
# system BLAS after libexala_blas.so so that exala_blas_abi_next has a next
# library to find.
exala_test_executable(test_blas_abi ${EXALA_BLAS_ABI_TEST_DIR}/test_blas_abi.cpp exala::blas3)
# (--no-as-needed: the system BLAS stays a dependency although every BLAS
# symbol the test uses is already found in libexala_blas.so.)
target_link_options(test_blas_abi PRIVATE "LINKER:--no-as-needed")
target_link_libraries(test_blas_abi PRIVATE exala_blas_abi ${BLAS_LIBRARIES} ${CMAKE_DL_LIBS})
exala_add_suite(test_blas_abi)
set_tests_properties(test_blas_abi test_blas_abi_long PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=passive)
foreach(cfg reference:0 omp:2)
  string(REPLACE ":" ";" parts "${cfg}")
  list(GET parts 0 backend)
  list(GET parts 1 threads)
  add_test(NAME test_blas_abi_${backend} COMMAND test_blas_abi --run_test=!@long)
  set_tests_properties(test_blas_abi_${backend} PROPERTIES LABELS unit ENVIRONMENT
    "OMP_WAIT_POLICY=passive;EXALA_BACKEND=${backend};EXALA_NUM_THREADS=${threads}")
endforeach()

# --- The unmodified program: C, the system BLAS (Fortran symbols declared by
# the program itself, CBLAS from the system's cblas.h), nothing of ExaLA.
if(OPENBLAS_CBLAS_INCLUDE)
  set(plain_src ${EXALA_BLAS_ABI_TEST_DIR}/plain_blas_program.c)
  add_executable(plain_blas_program ${plain_src})
  target_include_directories(plain_blas_program PRIVATE ${OPENBLAS_CBLAS_INCLUDE})
  target_link_libraries(plain_blas_program PRIVATE ${BLAS_LIBRARIES} m)

  # The same source linked with -lexala_blas ahead of the system BLAS (found
  # through the build RPATH), and with libexala_blas.so as its only BLAS.
  # (--no-as-needed keeps the system BLAS a dependency of the first one.)
  add_executable(plain_blas_program_linked ${plain_src})
  target_link_options(plain_blas_program_linked PRIVATE "LINKER:--no-as-needed")
  target_include_directories(plain_blas_program_linked PRIVATE ${OPENBLAS_CBLAS_INCLUDE})
  target_link_libraries(plain_blas_program_linked PRIVATE exala_blas_abi ${BLAS_LIBRARIES} m)
  add_executable(plain_blas_program_exala_only ${plain_src})
  target_include_directories(plain_blas_program_exala_only PRIVATE ${OPENBLAS_CBLAS_INCLUDE})
  target_link_libraries(plain_blas_program_exala_only PRIVATE exala_blas_abi m)

  # A program's XERBLA in a shared library of its own (preloaded after ours).
  add_library(blas_abi_test_xerbla_handler SHARED ${EXALA_BLAS_ABI_TEST_DIR}/xerbla_handler.c)

  # The expected bits, from the exala C++ API.
  add_executable(plain_blas_expected ${EXALA_BLAS_ABI_TEST_DIR}/plain_blas_expected.cpp)
  target_link_libraries(plain_blas_expected PRIVATE exala::blas3)

  add_test(NAME blas_abi_plain_program COMMAND ${CMAKE_COMMAND}
    -DPLAIN=$<TARGET_FILE:plain_blas_program>
    -DLINKED=$<TARGET_FILE:plain_blas_program_linked>
    -DEXALA_ONLY=$<TARGET_FILE:plain_blas_program_exala_only>
    -DEXPECTED=$<TARGET_FILE:plain_blas_expected>
    -DLIB=$<TARGET_FILE:exala_blas_abi>
    -DHANDLER=$<TARGET_FILE:blas_abi_test_xerbla_handler>
    -DNM=${CMAKE_NM} -DREADELF=${CMAKE_READELF}
    -P ${EXALA_BLAS_ABI_TEST_DIR}/run_plain_blas.cmake)
  set_tests_properties(blas_abi_plain_program PROPERTIES LABELS unit)
else()
  message(STATUS "blas_abi: no cblas.h of the system BLAS (OPENBLAS_CBLAS_INCLUDE); "
                 "the unmodified-program test is not built")
endif()

# --- The stripe LU's engine under the preload keeps the system BLAS.
add_test(NAME blas_abi_stripe_engine_preload
         COMMAND ${CMAKE_COMMAND} -DEXALA=$<TARGET_FILE:exala> -DPRELOAD=$<TARGET_FILE:exala_blas_abi>
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/blas_abi_stripe_preload
                 -P ${EXALA_BLAS_ABI_TEST_DIR}/run_stripe_preload.cmake)
set_tests_properties(blas_abi_stripe_engine_preload PROPERTIES LABELS unit
                     ENVIRONMENT OMP_WAIT_POLICY=passive)
