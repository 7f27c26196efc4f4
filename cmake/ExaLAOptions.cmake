# Optional parts: each option defaults to ON and means "use it if found";
# set it OFF to leave the part out even when it is installed.
option(EXALA_WITH_OPENMP "OpenMP backend (if found)" ON)
option(EXALA_WITH_OPENCL "OpenCL backend (if found)" ON)
option(EXALA_WITH_CUDA "CUDA engine (if nvcc is found)" ON)
option(EXALA_WITH_MPI "MPI backend (if found)" ON)
option(EXALA_WITH_MPFR "MPFR oracle in the tests (if found)" ON)
option(EXALA_WITH_EIGEN "Eigen adapters (if found)" ON)
option(EXALA_WITH_FORTRAN "Fortran module (if a compiler is found)" ON)
option(EXALA_BUILD_TESTS "Build the Boost.Test suites" ON)
option(EXALA_BUILD_BENCH "Build exala-bench" ON)
# Sanitizer builds (.ci/sanitize): "address,undefined" or "thread" instruments
# every C, C++ and Fortran target and executable; empty (the default) for none.
set(EXALA_SANITIZE "" CACHE STRING "Sanitizers for every target: '', 'address,undefined' or 'thread'")
if(EXALA_SANITIZE)
  if(NOT EXALA_SANITIZE MATCHES "^(address,undefined|address|undefined|thread)$")
    message(FATAL_ERROR "EXALA_SANITIZE='${EXALA_SANITIZE}': use 'address,undefined', 'address', 'undefined' or 'thread'")
  endif()
  set(_exala_san -fsanitize=${EXALA_SANITIZE} -fno-omit-frame-pointer -g)
  if(EXALA_SANITIZE MATCHES "undefined")
    # A report is a failure (the test exits non-zero), not a message to scroll past.
    list(APPEND _exala_san -fno-sanitize-recover=undefined)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX,Fortran>:${_exala_san}>")
  add_link_options("$<$<LINK_LANGUAGE:C,CXX,Fortran>:${_exala_san}>")
endif()
# Shared libraries are linked with --no-undefined, except where the
# sanitizer runtime is linked into executables only (clang): there a shared
# library leaves the runtime's symbols to the program.
set(EXALA_LINK_NO_UNDEFINED "LINKER:--no-undefined")
if(EXALA_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(EXALA_LINK_NO_UNDEFINED "")
endif()

set(EXALA_HAVE_OPENMP OFF)
if(EXALA_WITH_OPENMP)
  find_package(OpenMP COMPONENTS CXX)
  if(OpenMP_CXX_FOUND)
    set(EXALA_HAVE_OPENMP ON)
  endif()
endif()

set(EXALA_HAVE_MPFR OFF)
if(EXALA_WITH_MPFR)
  find_path(MPFR_INCLUDE_DIR mpfr.h)
  find_library(MPFR_LIBRARY mpfr)
  find_library(GMP_LIBRARY gmp)
  if(MPFR_INCLUDE_DIR AND MPFR_LIBRARY AND GMP_LIBRARY)
    set(EXALA_HAVE_MPFR ON)
  endif()
endif()

set(EXALA_HAVE_EIGEN OFF)
if(EXALA_WITH_EIGEN)
  find_package(Eigen3 3.3 NO_MODULE QUIET)
  if(Eigen3_FOUND)
    set(EXALA_HAVE_EIGEN ON)
  endif()
endif()

set(EXALA_HAVE_OPENCL OFF)
if(EXALA_WITH_OPENCL)
  find_package(OpenCL QUIET)
  if(OpenCL_FOUND)
    set(EXALA_HAVE_OPENCL ON)
  endif()
endif()

set(EXALA_HAVE_CUDA OFF)
if(EXALA_WITH_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(EXALA_HAVE_CUDA ON)
  endif()
endif()

set(EXALA_HAVE_MPI OFF)
if(EXALA_WITH_MPI)
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(EXALA_HAVE_MPI ON)
  endif()
endif()

set(EXALA_HAVE_FORTRAN OFF)
if(EXALA_WITH_FORTRAN)
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    set(EXALA_HAVE_FORTRAN ON)
  endif()
endif()

# The stripe LU's CPU engine computes with the system BLAS/LAPACK (Debian:
# OpenBLAS through the libblas/liblapack alternatives); exact routines never do.
find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
find_package(Threads REQUIRED)

# Baseline for the benchmarks only (never linked into the library).
set(EXALA_HAVE_OPENBLAS OFF)
find_library(OPENBLAS_LIBRARY NAMES openblas)
find_path(OPENBLAS_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas-pthread openblas
          HINTS /usr/include/x86_64-linux-gnu)
if(OPENBLAS_LIBRARY AND OPENBLAS_CBLAS_INCLUDE)
  set(EXALA_HAVE_OPENBLAS ON)
endif()

# Rules that keep results exact: every numeric target gets these flags
# (no contraction into FMA; never -ffast-math; IEEE semantics kept).
add_library(exala_numeric_flags INTERFACE)
target_compile_options(exala_numeric_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX,C>:-ffp-contract=off -fno-fast-math -fno-unsafe-math-optimizations -Wall -Wextra>)
if(EXALA_SANITIZE)
  # A consumer of an instrumented ExaLA links the sanitizer runtime too.
  target_link_options(exala_numeric_flags INTERFACE "$<$<LINK_LANGUAGE:C,CXX,Fortran>:${_exala_san}>")
endif()
install(TARGETS exala_numeric_flags EXPORT ExaLATargets)

# Installs a library target into the export set ExaLATargets (imported by
# consumers as ExaLA::<EXPORT_NAME>): the layers and the bindings' libraries.
function(exala_install_library target)
  install(TARGETS ${target} EXPORT ExaLATargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# Adds a layer library exala_<name> with alias exala::<name>, its public
# include directory, installs it and exports it as ExaLA::<name>.
function(exala_add_layer name)
  cmake_parse_arguments(L "HEADER_ONLY" "" "SOURCES;DEPENDS" ${ARGN})
  if(L_HEADER_ONLY)
    add_library(exala_${name} INTERFACE)
    target_include_directories(exala_${name} INTERFACE
      $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(exala_${name} INTERFACE exala_numeric_flags ${L_DEPENDS})
    target_compile_features(exala_${name} INTERFACE cxx_std_20)
  else()
    add_library(exala_${name} ${L_SOURCES})
    target_include_directories(exala_${name} PUBLIC
      $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    target_link_libraries(exala_${name} PUBLIC exala_numeric_flags ${L_DEPENDS})
    target_compile_features(exala_${name} PUBLIC cxx_std_20)
  endif()
  set_target_properties(exala_${name} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME exala_${name})
  add_library(exala::${name} ALIAS exala_${name})
  exala_install_library(exala_${name})
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
