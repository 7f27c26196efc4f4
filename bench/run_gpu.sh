#!/bin/bash
# bench/run_gpu.sh BIN OUT [tests|lu|blas|gemm|ooc|all|table] - the GPU checks and
# benchmarks of issue 5 on a machine with an NVIDIA GPU (the H100 of the
# device tool), from the binaries in BIN (a build with CUDA and OpenCL:
# test_*, exala, exala-bench-gpu, exala-bench-stripe); CSVs and logs to OUT.
#   tests: the CUDA engine suite, then the bit-equality suites of every
#          backend against reference with the opencl backend on the GPU
#          (NVIDIA OpenCL; EXALA_OPENCL_DEVICE=NVIDIA)
#   lu:    stripe LU on the CUDA engine vs cusolverDnDgetrf, in core n = 32768;
#          n = 100000 (80 GB, larger than the GPU) from host memory
#   blas:  the exact OpenCL kernels vs cuBLAS (dot 2^27, gemv/trsv 32768, gemm 8192)
#   gemm:  backend::cuda's exact gemm (INT8 Ozaki II) vs cublasDgemm, n = 8192
#          (phase profile in gpu_gemm_8192.log)
#   table: issue 18's table in one exala-bench-gpu run (not part of all)
#   ooc:   the disk tier: n = 30000 out of core, 4 GiB host cache, cuda engine
set -u
BIN=$(cd "$1" && pwd); OUT=$2; WHAT=${3:-all}
mkdir -p "$OUT"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
# NVIDIA's OpenCL driver is installed but not registered with the ICD loader there.
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export EXALA_OPENCL_DEVICE=${EXALA_OPENCL_DEVICE:-NVIDIA}
want() { [ "$WHAT" = all ] || [ "$WHAT" = "$1" ]; }
if want tests; then
  "$BIN/exala" devices | tee "$OUT/devices.txt"
  for t in test_stripe_cuda test_gemm_cuda test_blas12_cuda test_blas3_cuda test_opencl test_opencl_level23 test_blas1 test_blas2 test_blas3 test_solvers; do
    s=$SECONDS
    timeout 150 "$BIN/$t" --run_test='!@long' > "$OUT/$t.log" 2>&1; rc=$?
    echo "$t rc=$rc $((SECONDS - s)) s: $(tail -2 "$OUT/$t.log" | tr -d '\033' | tr '\n' ' ')" | tee -a "$OUT/tests.txt"
  done
fi
if want lu; then
  timeout 150 "$BIN/exala-bench-gpu" lu --n 32768 --reps 3 | tee "$OUT/gpu_lu_32768.csv"
  timeout 240 "$BIN/exala-bench-gpu" lu-host --n 100000 --stripe 1024 | tee "$OUT/gpu_lu_host_100000.csv"
fi
if want blas; then
  timeout 300 "$BIN/exala-bench-gpu" blas --n-dot 134217728 --n-gemv 32768 --n-trsv 32768 --n-gemm 8192 \
    --reps 3 | tee "$OUT/gpu_blas.csv"
fi
if [ "$WHAT" = table ]; then  # issue 18's table in one exala-bench-gpu run, then the profiles
  timeout 420 "$BIN/exala-bench-gpu" table --reps 3 > "$OUT/gpu_table.csv" 2> "$OUT/gpu_table.log"
  cat "$OUT/gpu_table.csv" "$OUT/gpu_table.log"
  # per-phase times (each phase synchronised, so slower than the table's run)
  EXALA_CUDA_GEMM_PROFILE=1 timeout 120 "$BIN/exala-bench-gpu" gemm --n-gemm 8192 --reps 1 \
    > /dev/null 2> "$OUT/gpu_gemm_profile.log"
  EXALA_CUDA_STRIPE_PROFILE=1 timeout 150 "$BIN/exala-bench-gpu" lu --n 32768 --reps 1 \
    > /dev/null 2> "$OUT/gpu_lu_profile.log"
  cat "$OUT/gpu_gemm_profile.log" "$OUT/gpu_lu_profile.log"
fi
if want gemm; then  # issue 18: backend::cuda's exact gemm vs cublasDgemm, n = 8192, uniform and wide data
  EXALA_CUDA_GEMM_PROFILE=1 timeout 300 "$BIN/exala-bench-gpu" gemm --n-gemm 8192 --reps 3 \
    > "$OUT/gpu_gemm_8192.csv" 2> "$OUT/gpu_gemm_8192.log"; cat "$OUT/gpu_gemm_8192.csv" "$OUT/gpu_gemm_8192.log"
fi
if want ooc; then
  rm -rf /tmp/exala_ooc && mkdir -p /tmp/exala_ooc
  timeout 240 "$BIN/exala-bench-stripe" ooc --engine cuda --n 30000 --workdir /tmp/exala_ooc --cache 4GiB \
    --order meta-zigzag --threads 16 --io-threads 4 --drop-page-cache --baseline-n 0 | tee "$OUT/gpu_ooc_30000.csv"
  rm -rf /tmp/exala_ooc
fi
