# The `exala` tool under `--backend mpi` (included by tests/mpi/mpi.cmake):
# tests/mpi/cli/mpi_cli_test.sh runs each command once as a single process
# and once under mpirun -np P, and requires the same bytes (stdout or -o
# file), and for errors the same line printed once with exit status 2. Each
# entry runs mpirun itself (the single-process reference runs outside it), so
# it is registered with add_test in the environment of exala_add_mpi_run.
#
# Default run (labels unit, mpi): one entry per rank count 1..4 with a few
# commands each (every exala process here starts in about a second, so the
# commands are spread over the rank counts rather than repeated at each),
# the distributed solve and its resume after a full disk, and ranks that
# disagree (mode agree). Long (labels long,
# mpi): every command and option at every rank count, and a SIGKILLed
# distributed solve resumed.
if(NOT TARGET exala)
  return()
endif()

set(EXALA_MPI_CLI_DRIVER ${CMAKE_CURRENT_SOURCE_DIR}/mpi/cli/mpi_cli_test.sh)
set(EXALA_MPI_CLI_DATA ${CMAKE_CURRENT_SOURCE_DIR}/cli/data)

# exala_mpi_cli_test(name MODE mode NP p [TIMEOUT s] [LABELS ...]): the
# ctest entry mpi_cli.<name> running the driver's mode under p ranks in a
# scratch folder of its own.
function(exala_mpi_cli_test name)
  cmake_parse_arguments(T "" "MODE;NP;TIMEOUT" "LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  if(NOT T_LABELS)
    set(T_LABELS "unit;mpi")
  endif()
  add_test(NAME mpi_cli.${name}
           COMMAND bash ${EXALA_MPI_CLI_DRIVER} ${T_MODE} $<TARGET_FILE:exala>
                   ${MPIEXEC_EXECUTABLE} ${T_NP} ${CMAKE_CURRENT_BINARY_DIR}/mpi_cli/${name}
                   ${EXALA_MPI_CLI_DATA})
  set_tests_properties(mpi_cli.${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                       ENVIRONMENT "${EXALA_MPI_TEST_ENV}" PROCESSORS 2)
endfunction()

foreach(p 1 2 3 4)
  exala_mpi_cli_test(np${p} MODE np${p} NP ${p})
endforeach()
# Ranks that run different commands or options, or see different bytes in
# a file (issue 15, row 6): refused with one line, never a hang. (About 20
# mpiruns: under 3 ranks by default, 2 and 4 in the long run.)
exala_mpi_cli_test(agree.np3 MODE agree NP 3)
exala_mpi_cli_test(solve.np3 MODE solve NP 3)
exala_mpi_cli_test(resume.np2 MODE resume NP 2)

foreach(p 1 2 3 4)
  exala_mpi_cli_test(sweep_long.np${p} MODE sweep NP ${p} TIMEOUT 1800 LABELS "long;mpi")
endforeach()
exala_mpi_cli_test(solve_long.np4 MODE solve NP 4 TIMEOUT 1800 LABELS "long;mpi")
exala_mpi_cli_test(agree_long.np2 MODE agree NP 2 TIMEOUT 1800 LABELS "long;mpi")
exala_mpi_cli_test(agree_long.np4 MODE agree NP 4 TIMEOUT 1800 LABELS "long;mpi")
exala_mpi_cli_test(kill_resume_long.np3 MODE kill_resume NP 3 TIMEOUT 1800 LABELS "long;mpi")
