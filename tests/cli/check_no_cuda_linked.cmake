# tests/cli/check_no_cuda_linked.cmake - cmake -DREADELF=... -DFILES="a;b" -P:
# fails when one of FILES needs a CUDA library directly (DT_NEEDED). The
# tool, libexala and libexala_blas load backend::cuda from the plugin
# libexala_cuda.so on demand, so that their start-up never pays CUDA's
# library initialisation (issue 20: exala --help 120 ms -> 6 ms).
foreach(f IN LISTS FILES)
  execute_process(COMMAND ${READELF} -d ${f} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${READELF} -d ${f} failed (${rc})")
  endif()
  string(REGEX MATCHALL "Shared library: \\[lib(cudart|cublas|cublasLt|cusolver|cusparse|cuda)[.][^]]*\\]" hits "${dyn}")
  if(hits)
    message(FATAL_ERROR "${f} links CUDA directly: ${hits}")
  endif()
  if(NOT dyn MATCHES "Shared library")
    message(FATAL_ERROR "${READELF} -d ${f}: no dynamic section read")
  endif()
endforeach()
message(STATUS "no CUDA library among the direct dependencies of ${FILES}")
