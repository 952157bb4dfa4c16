# Prepared in the 44th session (not run: no device time was left): why the row-major few-rows kernel reads 1646 GB/s
# at gemm bf16 1x4096x4096 while the dot-product kernel reads the same weights stored [N, K] at 1876 (and cuBLASLt's
# nvjet at ~1650). No package build: gemv_rows.py has nvcc build gemv_rows.cu (gemv.cu included) in ~20 s. ncu over
# both kernels at 4096x4096 and 4096x14336, each call after an L2 flush; the sections that tell DRAM throughput,
# L2/DRAM sectors per request, occupancy and stall reasons.
mkdir -p $OUT
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 400 $NCU -k regex:gemv --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
  --section LaunchStats --section WarpStateStats --section SchedulerStats \
  python3 benchmarks/probe/gemv_rows.py --profile --dtypes bfloat16 --kn 4096x4096,4096x14336 --configs "8,256,8" \
  > $OUT/ncu_gemv.txt 2>&1
echo "ncu rc $?"
grep -E "gemv|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|L2 Hit|Registers|Block Limit|Stall|Mem Busy|Max Bandwidth" $OUT/ncu_gemv.txt | head -150
