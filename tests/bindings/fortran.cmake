# The Fortran module (bindings/fortran, libexala_fortran.so): registered from
# tests/CMakeLists.txt when Fortran is enabled.
#   test_fortran      a Fortran program using only `use exala` (plus bind(c)
#                     interfaces on the C API for the cross-check): exact
#                     values, strided sections vs copies, every error path,
#                     superaccumulator and stripe LU types; error stop 1 on
#                     any failed check. Run by run_test_fortran.cmake, which
#                     also checks the messages written to stderr.
#   fortran_example   bindings/fortran/examples/example.f90 (self-checking)
if(TARGET exala::fortran)
  add_executable(test_fortran ${CMAKE_CURRENT_SOURCE_DIR}/bindings/fortran/test_fortran.f90)
  target_link_libraries(test_fortran PRIVATE exala::fortran)
  # Own module directory: the test's module must not land next to exala.mod.
  set_target_properties(test_fortran PROPERTIES
    Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fortran_test_mod)
  # The test's own arithmetic (naive loops shown to fail) must not be
  # contracted into FMAs either.
  target_compile_options(test_fortran PRIVATE
    $<$<COMPILE_LANG_AND_ID:Fortran,GNU>:-ffp-contract=off -std=f2018>)
  # OpenMP (when found): test_threads runs two threads that fail at once,
  # checking that the module's error record is per thread.
  if(EXALA_HAVE_OPENMP)
    find_package(OpenMP COMPONENTS Fortran QUIET)
    if(OpenMP_Fortran_FOUND)
      target_link_libraries(test_fortran PRIVATE OpenMP::OpenMP_Fortran)
    endif()
  endif()
  # Through a script that also checks what the calls without `status` wrote
  # to stderr.
  add_test(NAME test_fortran
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:test_fortran>
                   -DSCRATCH=${CMAKE_CURRENT_BINARY_DIR}/fortran_stripe_scratch
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/bindings/fortran/run_test_fortran.cmake)
  set_tests_properties(test_fortran PROPERTIES LABELS unit ENVIRONMENT OMP_WAIT_POLICY=passive)

  add_test(NAME fortran_example COMMAND exala_fortran_example)
  set_tests_properties(fortran_example PROPERTIES LABELS unit)
endif()
