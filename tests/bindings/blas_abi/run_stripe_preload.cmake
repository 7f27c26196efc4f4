# The stripe LU under LD_PRELOAD=libexala_blas.so keeps the system BLAS:
# its CPU engine asks the drop-in library for the next library's dgemm_ /
# dtrsm_ (exala_blas_abi_next), so the solution has the same bits as without
# the preload. The solve is not refined: refinement against the exact
# residual would bring both runs to the same x even if the engine had taken
# the exact dgemm_ (checked: with the lookup disabled, the unrefined
# solutions differ and this test fails). Variables: EXALA (the tool),
# PRELOAD (libexala_blas.so), WORK (a scratch directory).
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
endfunction()

foreach(run_name plain preloaded)
  # The same system (same seed) in a fresh work directory for each run, so
  # that neither resumes the other's factorization.
  run(${EXALA} generate dense --n 700 --seed 11 --stripe 128 --workdir ${WORK}/${run_name})
  set(env)
  if(run_name STREQUAL "preloaded")
    set(env ${CMAKE_COMMAND} -E env LD_PRELOAD=${PRELOAD})
  endif()
  run(${env} ${EXALA} solve --workdir ${WORK}/${run_name} --cache 2MiB --no-refine --quiet
      -o ${WORK}/${run_name}.mtx)
endforeach()
file(SHA256 ${WORK}/plain.mtx plain)
file(SHA256 ${WORK}/preloaded.mtx preloaded)
if(NOT plain STREQUAL preloaded)
  message(FATAL_ERROR "the stripe LU's solution changed under LD_PRELOAD=${PRELOAD}: "
                      "its engine did not keep the system BLAS")
endif()
message(STATUS "same solution bits with and without the preload")
