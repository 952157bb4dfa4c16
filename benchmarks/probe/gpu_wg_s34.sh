# The tiled attention kernel's wgmma form (34th session): the attention tests (wgmma form, the default on
# Hopper), then an A/B of INFINI_FLASH_WG=0 (mma.sync form) and 1 (wgmma) against SDPA, timed as the tool
# times, and memcheck over the attention tests.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 200 python3 -m pytest -q test/test_ops_attention.py test/test_ops.py -k "attention or opcheck" -p no:cacheprovider > $OUT/tests.txt 2>&1; tail -1 $OUT/tests.txt; grep -E "^FAILED|Error" $OUT/tests.txt | head -20
cd benchmarks/probe
timeout 200 python3 ab_events.py INFINI_FLASH_WG=0,1 attention:prefill,large paged_attention_prefill:decode,prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1; cat $OUT/ab.txt | grep -v "^ *$" | tail -40
cd ../..
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "long or prefill or cache" -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2 | tee $OUT/memcheck_tail.txt

NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ "$1" = ncu ] && [ -n "$NCU" ]; then
  cd benchmarks/probe
  timeout 200 $NCU --clock-control none --profile-from-start off -k regex:flashKernel -c 3 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section Occupancy --page details python3 ncu_probe.py attention:large --impls infini > $OUT/ncu.txt 2>&1; echo "ncu rc $?"
  grep -E "flashKernel|Duration|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Eligible Warps|Registers Per|Warp Cycles Per Issued|No Eligible|Executed Ipc|Stall|Dynamic Shared" $OUT/ncu.txt | head -60
  cd ../..
fi
rm -f $OUT/build.log $OUT/pip_wheels.log
