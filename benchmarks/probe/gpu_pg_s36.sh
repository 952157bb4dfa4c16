# The paged prefill's copies from an offset table in shared memory (36th session): an A/B of INFINI_FLASH_PWG=1
# (the paged prefill in blocks of two warpgroups) and 2 (one warpgroup, two blocks an SM) against SDPA timed as
# the tool times (attention alongside: its blocks gained the table's 2 KiB of shared memory); then ncu over the
# paged prefill 1 x 4096 under each (speed of light, warp states). TESTS=1: the attention tests under both first.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for v in ${TESTS:+2 1}; do
  INFINI_FLASH_PWG=$v timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests$v.txt 2>&1; echo "PWG=$v: $(tail -1 $OUT/tests$v.txt)"; grep -E "^FAILED|Error" $OUT/tests$v.txt | head -10
done
cd benchmarks/probe
timeout 200 python3 ab_events.py INFINI_FLASH_PWG=${AB:-1,2} paged_attention_prefill:prefill,large attention:large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1; grep -v "^ *$" $OUT/ab.txt | tail -40
NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for v in 1 2; do
  INFINI_FLASH_PWG=$v timeout 100 $NCU --clock-control none --profile-from-start off -k regex:flashKernel -c 1 --section SpeedOfLight --section WarpStateStats --section InstructionStats --section Occupancy python3 ncu_probe.py paged_attention_prefill:large --impls infini > $OUT/ncu_log$v.txt 2>&1; echo "ncu $v rc $?"
  grep -E "Duration|Throughput|Warp Cycles Per Issued|Executed Ipc A|Achieved Occupancy|Executed Instructions  " $OUT/ncu_log$v.txt | head -14
done
rm -f $OUT/build.log $OUT/pip_wheels.log
