# Runs test_fortran (EXE, scratch directory SCRATCH) and checks, besides its
# exit status, that the calls made without `status` wrote their messages to
# stderr (error_unit): the program cannot read its own stderr.
execute_process(COMMAND ${EXE} ${SCRATCH} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message(STATUS "stdout:\n${out}")
message(STATUS "stderr:\n${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "test_fortran failed (${rc})")
endif()
foreach(expected
    "exala: EXALA_ERROR_INVALID_ARGUMENT: exala_dot: size(y) = 3 differs from size(x) = 2"
    "exala: EXALA_ERROR_INVALID_ARGUMENT: exala_gemv: size(x) = 3"
    "exala: EXALA_ERROR_SINGULAR: exala_trsv: "
    "[row 2 counting from 1]"
    "exala: EXALA_ERROR_INVALID_ARGUMENT: exala_axpy: size(y) = 2 differs from size(x) = 3")
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "stderr lacks the message: ${expected}")
  endif()
endforeach()
