# Installs the build tree into a scratch prefix, then builds and runs the
# consumer project against it: with find_package(ExaLA COMPONENTS ...) (C++,
# C, Fortran, Eigen) and with pkg-config alone (C and Fortran, plain compiler
# command lines). Variables: BUILD_DIR, SOURCE_DIR (examples/consumer),
# EXAMPLES_ROOT (bindings/), EXPECT_FORTRAN, EXPECT_EIGEN, C_COMPILER,
# Fortran_COMPILER.
set(prefix "${BUILD_DIR}/_install_test/prefix")
set(cbuild "${BUILD_DIR}/_install_test/consumer")
file(REMOVE_RECURSE "${BUILD_DIR}/_install_test")

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "step failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run_step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${cbuild} -DCMAKE_PREFIX_PATH=${prefix}
         -DCMAKE_BUILD_TYPE=Release -DEXALA_EXAMPLES_ROOT=${EXAMPLES_ROOT}
         -DEXALA_EXPECT_FORTRAN=${EXPECT_FORTRAN} -DEXALA_EXPECT_EIGEN=${EXPECT_EIGEN})
run_step(${CMAKE_COMMAND} --build ${cbuild})

set(programs consumer consumer_c)
if(EXPECT_FORTRAN)
  list(APPEND programs consumer_fortran)
endif()
if(EXPECT_EIGEN)
  list(APPEND programs consumer_eigen)
endif()
foreach(program IN LISTS programs)
  run_step(${cbuild}/${program})
  message(STATUS "${program} printed:\n${step_output}")
endforeach()

# pkg-config only: the C example with `cc`, the Fortran one with the Fortran
# compiler, against the installed .pc files.
find_program(PKG_CONFIG_EXECUTABLE pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
function(pkg_flags module var)
  run_step(${PKG_CONFIG_EXECUTABLE} --cflags --libs ${module})
  string(STRIP "${step_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(${var} ${flags} PARENT_SCOPE)
endfunction()
pkg_flags(exala c_flags)
run_step(${C_COMPILER} -std=c99 -o ${cbuild}/pc_c ${EXAMPLES_ROOT}/c/examples/example.c ${c_flags}
         -Wl,-rpath,${prefix}/lib)
run_step(${cbuild}/pc_c)
message(STATUS "pkg-config C example ran")
if(EXPECT_FORTRAN)
  pkg_flags(exala-fortran f_flags)
  run_step(${Fortran_COMPILER} -J ${cbuild} -o ${cbuild}/pc_fortran
           ${EXAMPLES_ROOT}/fortran/examples/example.f90 ${f_flags} -Wl,-rpath,${prefix}/lib)
  run_step(${cbuild}/pc_fortran)
  message(STATUS "pkg-config Fortran example ran")
endif()
