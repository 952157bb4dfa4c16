# Twenty-third session, third call (H200 host's CPU, 16 threads): float32 gemm with C's columns split
# where M <= N (was rows from 64); float32 linear as dot products up to 512 rows (default) against
# OpenBLAS past 16 rows (XF32MAX=16, a temporary knob). Usage: bash benchmarks/probe/gpu_cpu_s23.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
cd benchmarks/probe
for e in XF32MAX=512 XF32MAX=16; do echo "== $e"; env $e timeout 120 python3 cpu_linear_s23.py --dtypes float32 --ms 1,16,64,256,512,1024 --reps 6 2>&1 | tee $OUT/cpu_linear_${e#*=}.txt; done
