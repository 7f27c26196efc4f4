# Installs the build tree into a scratch prefix, then configures, builds and
# runs the consumer project against it. Variables: BUILD_DIR, SOURCE_DIR.
set(prefix "${BUILD_DIR}/_install_test/prefix")
set(cbuild "${BUILD_DIR}/_install_test/consumer")
file(REMOVE_RECURSE "${BUILD_DIR}/_install_test")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${prefix}"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR};-B;${cbuild};-DCMAKE_PREFIX_PATH=${prefix};-DCMAKE_BUILD_TYPE=Release"
    "${CMAKE_COMMAND};--build;${cbuild}"
    "${cbuild}/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${step}\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "consumer printed: ${out}")
