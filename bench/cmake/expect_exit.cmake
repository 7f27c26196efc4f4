# Runs BENCH with ARGS (a ;-list) and fails unless it exits with EXPECT and,
# when EXPECT is 2, writes exactly one line to stderr.
#   cmake -DBENCH=... -DARGS=... -DEXPECT=2 -P expect_exit.cmake
execute_process(COMMAND ${BENCH} ${ARGS} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT}; stderr: ${err}")
endif()
if(EXPECT STREQUAL "2")
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT lines EQUAL 1)
    message(FATAL_ERROR "expected one line on stderr, got ${lines}: ${err}")
  endif()
endif()
