# The distributed stripe LU (exala::mpi::stripe_lu): tests/test_stripe_lu.cpp,
# the one source of the stripe LU suites, built with EXALA_TEST_MPI - one
# source run over {engine} x {rank count}. Under MPI its in-core cases run
# through the distributed LU at -np 1..4 (against LAPACK and MPFR), and its
# suite `distributed` compares the distributed LU with exala::stripe_lu on
# the same engine, bit for bit (in memory, out of core, resume) and checks the
# ranks' agreement on every error (singular pivots, bad or mismatched
# arguments, write faults, a failed sweep). The suite uses the stripe LU
# internals (the fault hooks), hence exala::stripe_internal, and LAPACK's
# dgesv_ as an oracle. Three builds:
# - test_mpi_stripe_lu: the CPU engine, every case. Its entries:
#   test_mpi_stripe_cpu.npP (-np 1..4, labels unit and mpi) the engine cases
#   of `distributed` (label engine); test_mpi_stripe_lu.npP (-np 1..4, labels
#   unit and mpi) the rest; test_mpi_stripe_lu_long.np4 (labels long and mpi)
#   the long ones.
# - test_mpi_stripe_fakedev: a fake device engine in host memory registered
#   as "cuda" by the test itself (the device driver path, every build, CI):
#   -np 1..4, labels unit and mpi; the CPU-only cases are skipped, saying so.
# - test_mpi_stripe_cuda: the real CUDA engine (exala::gpu_cuda), -np 1 and 2
#   (the ranks may share one GPU), labels cuda and mpi, not unit: CI has no
#   GPU and runs -LE 'long|cuda'. On a GPU machine:
#   ctest --test-dir <build> -L cuda -R mpi --output-on-failure
function(exala_stripe_mpi_test name)
  exala_mpi_test_executable(${name} test_stripe_lu.cpp)
  target_link_libraries(${name} PRIVATE exala::stripe_internal ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
  target_compile_definitions(${name} PRIVATE EXALA_TEST_MPI=1 ${ARGN})
endfunction()

exala_stripe_mpi_test(test_mpi_stripe_lu)
foreach(p 1 2 3 4)
  exala_add_mpi_run(test_mpi_stripe_lu.np${p} NP ${p}
                    COMMAND $<TARGET_FILE:test_mpi_stripe_lu> --run_test=!@long:!@engine)
  exala_add_mpi_run(test_mpi_stripe_cpu.np${p} NP ${p}
                    COMMAND $<TARGET_FILE:test_mpi_stripe_lu> --run_test=@engine)
endforeach()
exala_add_mpi_run(test_mpi_stripe_lu_long.np4 NP 4 TIMEOUT 1800 LABELS "long;mpi"
                  COMMAND $<TARGET_FILE:test_mpi_stripe_lu> --run_test=@long)
# Its "engine cuda not available" cases keep the plugin out of reach: a build
# with CUDA would load libexala_cuda.so on demand (backend_hooks.hpp).
set_property(TEST test_mpi_stripe_lu.np1 test_mpi_stripe_lu.np2 test_mpi_stripe_lu.np3 test_mpi_stripe_lu.np4
             test_mpi_stripe_lu_long.np4 APPEND PROPERTY ENVIRONMENT EXALA_CUDA_PLUGIN=/nonexistent/libexala_cuda.so)

exala_stripe_mpi_test(test_mpi_stripe_fakedev EXALA_TEST_FAKE_DEVICE=1)
foreach(p 1 2 3 4)
  exala_add_mpi_run(test_mpi_stripe_fakedev.np${p} NP ${p}
                    COMMAND $<TARGET_FILE:test_mpi_stripe_fakedev>)
endforeach()
if(TARGET exala::gpu_cuda)
  exala_stripe_mpi_test(test_mpi_stripe_cuda EXALA_TEST_ENGINE_CUDA=1)
  target_link_libraries(test_mpi_stripe_cuda PRIVATE exala::gpu_cuda)
  foreach(p 1 2)
    exala_add_mpi_run(test_mpi_stripe_cuda.np${p} NP ${p} TIMEOUT 900 LABELS "cuda;mpi"
                      COMMAND $<TARGET_FILE:test_mpi_stripe_cuda>)
  endforeach()
endif()
