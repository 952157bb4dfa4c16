# Prepared in the 44th session (not run: no device time was left). No package build (both probes build their .cu
# with nvcc alone, ~20-60 s): the dot-product kernel's variants for 2-4 rows (gemv_dot.py: R columns a warp, A in
# shared memory; where 16-bit 2-4 rows still go to cuBLASLt), then ncu over the two landed few-rows kernels
# (gpu_ncu_gemv_s44.sh).
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
timeout 300 python3 benchmarks/probe/gemv_dot.py 2>&1 | tee $OUT/dot.txt
bash benchmarks/probe/gpu_ncu_gemv_s44.sh
