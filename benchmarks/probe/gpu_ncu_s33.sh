# Where the tiled prefill/attention kernel's time goes (33rd session): ncu sections over flashKernel for
# attention 4096 (dense cache) and paged_attention_prefill 4x1024 and 1x4096 (paged), bf16.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); echo "ncu: $NCU"
cd benchmarks/probe
timeout 300 $NCU --clock-control none --profile-from-start off -k regex:flashKernel --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section SchedulerStats --section InstructionStats --section LaunchStats --page details python3 ncu_probe.py attention:large paged_attention_prefill:prefill --impls infini > $OUT/ncu.txt 2>&1; echo "ncu rc $?"
grep -E "flashKernel|Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Issue Slots Busy|Eligible Warps|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|No Eligible|Executed Ipc|Shared.*Bank|DRAM Throughput" $OUT/ncu.txt | head -80
rm -f $OUT/build.log $OUT/pip_wheels.log
