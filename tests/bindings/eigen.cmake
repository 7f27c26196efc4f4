# Eigen adapters (issue 6): the suite test_eigen (bit equality with the raw
# C++ API, the expression rule, the solver classes) and the example run as a
# test. Included by tests/CMakeLists.txt; exala::eigen exists only when Eigen
# was found.
if(TARGET exala::eigen)
  exala_test_executable(test_eigen bindings/eigen/test_eigen.cpp exala::eigen)
  exala_add_suite(test_eigen)
  set_tests_properties(test_eigen test_eigen_long PROPERTIES ENVIRONMENT OMP_WAIT_POLICY=passive)
  add_test(NAME eigen_example COMMAND exala_eigen_example)
  set_tests_properties(eigen_example PROPERTIES LABELS unit ENVIRONMENT OMP_WAIT_POLICY=passive)
endif()

# exala::eigen::exact(expr) (issue 20): every form against MPFR and the
# function adapters, bit for bit; the compile-time rejections as concepts.
if(TARGET exala::eigen)
  exala_test_executable(test_eigen_exact bindings/eigen/test_eigen_exact.cpp exala::eigen)
  # Bounds-checked std::array (the accumulators' digits) in this test only.
  target_compile_definitions(test_eigen_exact PRIVATE _GLIBCXX_ASSERTIONS)
  # No `long` cases (the whole suite takes milliseconds): one unit entry.
  add_test(NAME test_eigen_exact COMMAND test_eigen_exact)
  set_tests_properties(test_eigen_exact PROPERTIES LABELS unit ENVIRONMENT OMP_WAIT_POLICY=passive)
endif()

# Issue 20 item 2: an Eigen program compiled with EIGEN_USE_BLAS and linked
# against libexala_blas.so (no other BLAS) gets correctly rounded products
# from Eigen's own A * B. It links exala::blas3 (not exala::eigen, whose
# solvers bring the system BLAS) for the expected bits.
if(TARGET exala::eigen AND TARGET exala_blas_abi)
  exala_test_executable(test_eigen_use_blas bindings/eigen/test_eigen_use_blas.cpp exala::blas3)
  target_link_libraries(test_eigen_use_blas PRIVATE exala_blas_abi Eigen3::Eigen ${CMAKE_DL_LIBS})
  target_compile_definitions(test_eigen_use_blas PRIVATE EIGEN_USE_BLAS)
  add_test(NAME test_eigen_use_blas COMMAND test_eigen_use_blas)
  set_tests_properties(test_eigen_use_blas PROPERTIES LABELS unit ENVIRONMENT OMP_WAIT_POLICY=passive)
endif()
