# The C API (bindings/c, libexala.so): registered from tests/CMakeLists.txt.
#   test_c_api      plain C99 program linking only exala::c: status codes,
#                   exact results known by construction, stripe LU
#   test_c_api_cpp  Boost.Test: every C routine against the C++ function on
#                   the reference backend, bit for bit, on every backend
#   test_c_api_env_bogus  the same executable with EXALA_BACKEND=bogus
#   test_c_api_hostile  plain C99: hostile increments, leading dimensions and
#                   sizes (address arithmetic that would overflow) refused
#                   naming the argument, malformed accumulator states
#                   refused; meant to run under ASan/UBSan as well
#   c_api_example   bindings/c/examples/example.c
if(TARGET exala::c)
  add_executable(test_c_api ${CMAKE_CURRENT_SOURCE_DIR}/bindings/c/test_c_api.c)
  target_link_libraries(test_c_api PRIVATE exala::c m)
  set_target_properties(test_c_api PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                              C_EXTENSIONS OFF)
  target_compile_options(test_c_api PRIVATE -Wall -Wextra -pedantic -Werror)
  add_test(NAME test_c_api COMMAND test_c_api)
  set_tests_properties(test_c_api PROPERTIES LABELS unit ENVIRONMENT OMP_WAIT_POLICY=passive)

  add_executable(test_c_api_hostile ${CMAKE_CURRENT_SOURCE_DIR}/bindings/c/test_c_api_hostile.c)
  target_link_libraries(test_c_api_hostile PRIVATE exala::c m)
  set_target_properties(test_c_api_hostile PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                                      C_EXTENSIONS OFF)
  target_compile_options(test_c_api_hostile PRIVATE -Wall -Wextra -pedantic -Werror)
  add_test(NAME test_c_api_hostile COMMAND test_c_api_hostile)
  set_tests_properties(test_c_api_hostile PROPERTIES LABELS unit
                                                     ENVIRONMENT OMP_WAIT_POLICY=passive)
endif()

if(TARGET exala::c)
  # The C++ layers linked statically here are the oracle (reference backend);
  # libexala.so keeps its own copy hidden.
  exala_test_executable(test_c_api_cpp ${CMAKE_CURRENT_SOURCE_DIR}/bindings/c/test_c_api_cpp.cpp
                        exala::c)
  target_link_libraries(test_c_api_cpp PRIVATE exala::blas3 exala::solvers)
  exala_add_suite(test_c_api_cpp)
  set_tests_properties(test_c_api_cpp test_c_api_cpp_long PROPERTIES
                       ENVIRONMENT OMP_WAIT_POLICY=passive)
  # The process-wide default reads EXALA_BACKEND / EXALA_NUM_THREADS once:
  # fresh processes with bad and good values run the (otherwise disabled)
  # `environment` case.
  foreach(env "bogus:EXALA_BACKEND=bogus"
              "threads:EXALA_NUM_THREADS=3x"
              "valid:EXALA_BACKEND=reference;EXALA_NUM_THREADS=3")
    string(FIND "${env}" ":" colon)
    string(SUBSTRING "${env}" 0 ${colon} name)
    math(EXPR start "${colon} + 1")
    string(SUBSTRING "${env}" ${start} -1 vars)
    add_test(NAME test_c_api_env_${name} COMMAND test_c_api_cpp --run_test=environment)
    set_tests_properties(test_c_api_env_${name} PROPERTIES LABELS unit ENVIRONMENT "${vars}")
  endforeach()
endif()

if(TARGET exala::c)
  # The C example (bindings/c/examples/example.c) checks its own results.
  add_executable(c_api_example ${PROJECT_SOURCE_DIR}/bindings/c/examples/example.c)
  target_link_libraries(c_api_example PRIVATE exala::c)
  set_target_properties(c_api_example PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                                 C_EXTENSIONS OFF)
  target_compile_options(c_api_example PRIVATE -Wall -Wextra -pedantic -Werror)
  add_test(NAME c_api_example COMMAND c_api_example)
  set_tests_properties(c_api_example PROPERTIES LABELS unit)
endif()
