# MPI suites (label `mpi`, also `unit` so that the default CI run has them):
# every executable is run under `mpirun --oversubscribe -np P` for P = 1..4
# on one machine. Each entry has a timeout, so a collective that one rank
# misses fails the test instead of hanging the run.
#
# Open MPI refuses to run as root unless told; CI containers run as root.
# The vader BTL's single-copy (CMA) needs ptrace rights that containers often
# lack: plain shared-memory copies are used instead.
set(EXALA_MPI_TEST_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_hwloc_base_binding_policy=none
  OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1)

# exala_mpi_test_executable(name source): a Boost.Test executable over
# exala::mpi whose main initializes MPI (tests/mpi/mpi_test_main.hpp).
function(exala_mpi_test_executable name source)
  exala_test_executable(${name} ${source} exala::mpi)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
endfunction()

# exala_add_mpi_run(testname NP <P> [TIMEOUT s] [LABELS ...] COMMAND exe args...):
# one ctest entry running `mpirun -np P exe args...`.
function(exala_add_mpi_run testname)
  cmake_parse_arguments(R "" "NP;TIMEOUT" "LABELS;COMMAND" ${ARGN})
  if(NOT R_TIMEOUT)
    set(R_TIMEOUT 180)
  endif()
  if(NOT R_LABELS)
    set(R_LABELS "unit;mpi")
  endif()
  add_test(NAME ${testname}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${R_NP} --oversubscribe
                   ${MPIEXEC_PREFLAGS} ${R_COMMAND} ${MPIEXEC_POSTFLAGS})
  set_tests_properties(${testname} PROPERTIES LABELS "${R_LABELS}" TIMEOUT ${R_TIMEOUT}
                       ENVIRONMENT "${EXALA_MPI_TEST_ENV}" PROCESSORS 2)
endfunction()

# exala_add_mpi_suite(name): the suite's default cases (not labelled long)
# under 1, 2, 3 and 4 ranks (tests name.npP, labels unit and mpi), and its
# long cases under 4 ranks (name_long.np4, labels long and mpi).
function(exala_add_mpi_suite name)
  foreach(p 1 2 3 4)
    exala_add_mpi_run(${name}.np${p} NP ${p} COMMAND $<TARGET_FILE:${name}> --run_test=!@long)
  endforeach()
  exala_add_mpi_run(${name}_long.np4 NP 4 TIMEOUT 1800 LABELS "long;mpi"
                    COMMAND $<TARGET_FILE:${name}> --run_test=@long)
endfunction()

exala_mpi_test_executable(test_mpi_reduce mpi/test_mpi_reduce.cpp)
exala_add_mpi_suite(test_mpi_reduce)

# The other MPI suites register themselves from their own files.
foreach(part blas stripe_lu cli)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${part}.cmake)
    include(${CMAKE_CURRENT_SOURCE_DIR}/mpi/${part}.cmake)
  endif()
endforeach()
