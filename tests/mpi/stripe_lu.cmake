# The distributed stripe LU (exala::mpi::stripe_lu): bit equality with the
# single-process exala::stripe_lu in memory and out of core, error agreement
# (singular pivots, bad or mismatched arguments, write faults) and resume,
# under mpirun -np 1..4 (tests/mpi/mpi.cmake). The suite uses the stripe LU
# internals (stripe/store.hpp: the write-fault hook), hence exala::stripe_internal.
exala_mpi_test_executable(test_mpi_stripe_lu mpi/test_mpi_stripe_lu.cpp)
target_link_libraries(test_mpi_stripe_lu PRIVATE exala::stripe_internal)
exala_add_mpi_suite(test_mpi_stripe_lu)
# Its "engine cuda not available" cases keep the plugin out of reach: a build
# with CUDA would load libexala_cuda.so on demand (backend_hooks.hpp).
set_property(TEST test_mpi_stripe_lu.np1 test_mpi_stripe_lu.np2 test_mpi_stripe_lu.np3 test_mpi_stripe_lu.np4
             test_mpi_stripe_lu_long.np4 APPEND PROPERTY ENVIRONMENT EXALA_CUDA_PLUGIN=/nonexistent/libexala_cuda.so)

# The distributed stripe LU against the single-process run on the same
# engine, bit for bit, from one source over {engine} x {rank count}
# (test_mpi_stripe_engines.cpp):
# - test_mpi_stripe_cpu: the CPU engine, -np 1..4, labels unit and mpi;
# - test_mpi_stripe_fakedev: a fake device engine in host memory registered
#   as "cuda" by the test itself (the device driver path, every build, CI):
#   -np 1..4, labels unit and mpi;
# - test_mpi_stripe_cuda: the real CUDA engine (exala::gpu_cuda), -np 1 and 2
#   (the ranks may share one GPU), labels cuda and mpi, not unit: CI has no
#   GPU and runs -LE 'long|cuda'. On a GPU machine:
#   ctest --test-dir <build> -L cuda -R mpi --output-on-failure
foreach(e cpu fakedev)
  exala_mpi_test_executable(test_mpi_stripe_${e} mpi/test_mpi_stripe_engines.cpp)
  target_link_libraries(test_mpi_stripe_${e} PRIVATE exala::stripe_internal)
  foreach(p 1 2 3 4)
    exala_add_mpi_run(test_mpi_stripe_${e}.np${p} NP ${p}
                      COMMAND $<TARGET_FILE:test_mpi_stripe_${e}>)
  endforeach()
endforeach()
target_compile_definitions(test_mpi_stripe_cpu PRIVATE EXALA_TEST_ENGINE_CPU=1)
target_compile_definitions(test_mpi_stripe_fakedev PRIVATE EXALA_TEST_FAKE_DEVICE=1)
if(TARGET exala::gpu_cuda)
  exala_mpi_test_executable(test_mpi_stripe_cuda mpi/test_mpi_stripe_engines.cpp)
  target_link_libraries(test_mpi_stripe_cuda PRIVATE exala::gpu_cuda)
  target_link_libraries(test_mpi_stripe_cuda PRIVATE exala::stripe_internal)
  foreach(p 1 2)
    exala_add_mpi_run(test_mpi_stripe_cuda.np${p} NP ${p} TIMEOUT 900 LABELS "cuda;mpi"
                      COMMAND $<TARGET_FILE:test_mpi_stripe_cuda>)
  endforeach()
endif()
