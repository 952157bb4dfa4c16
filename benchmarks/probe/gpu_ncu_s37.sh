# 37th session: why the paged prefill (lockstep two-warpgroup blocks, offset table) takes 1.2x dense attention's
# time (decoupled blocks) at the same 1 x 4096 geometry: ncu sections and memory counters over flashKernel for
# attention:large and paged_attention_prefill:large (bf16, 32/8 heads of 128), the landed code, no knob.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); echo "ncu: $NCU"
cd benchmarks/probe
timeout 200 $NCU --clock-control none --profile-from-start off -k regex:flashKernel --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum --page details python3 ncu_probe.py attention:large paged_attention_prefill:large --impls infini > $OUT/ncu.txt 2>&1; echo "ncu rc $?"
grep -E "flashKernel|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Issue Slots Busy|Eligible Warps|Warp Cycles Per Issued|No Eligible|dram__bytes_read|lts__t_sectors|lts__t_requests|smsp__inst_executed|bank_conflicts" $OUT/ncu.txt | grep -v "^==PROF" | head -120
rm -f $OUT/build.log $OUT/pip_wheels.log
