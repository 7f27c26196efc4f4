# The C API (bindings/c, libexala.so): registered from tests/CMakeLists.txt.
#   test_c_api      plain C99 program linking only exala::c: status codes,
#                   exact results known by construction, stripe LU
#   test_c_api_cpp  Boost.Test: every C routine against the C++ function on
#                   the reference backend, bit for bit, on every backend
#   test_c_api_env_bogus  the same executable with EXALA_BACKEND=bogus
#   c_api_example   bindings/c/examples/example.c
if(TARGET exala::c)
  add_executable(test_c_api ${CMAKE_CURRENT_SOURCE_DIR}/bindings/c/test_c_api.c)
  target_link_libraries(test_c_api PRIVATE exala::c m)
  set_target_properties(test_c_api PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                              C_EXTENSIONS OFF)
  target_compile_options(test_c_api PRIVATE -Wall -Wextra -pedantic -Werror)
  add_test(NAME test_c_api COMMAND test_c_api)
  set_tests_properties(test_c_api PROPERTIES LABELS unit ENVIRONMENT OMP_WAIT_POLICY=passive)
endif()
