# The paged prefill's copies from an offset table in shared memory (36th session): the attention tests under
# INFINI_FLASH_PWG=2 (the paged prefill in blocks of one warpgroup, two an SM, the default) and 1 (two warpgroups
# a block), then an A/B of the two against SDPA timed as the tool times (attention alongside: its blocks gained
# the table's 2 KiB of shared memory).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for v in 2 1; do
  INFINI_FLASH_PWG=$v timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests$v.txt 2>&1; echo "PWG=$v: $(tail -1 $OUT/tests$v.txt)"; grep -E "^FAILED|Error" $OUT/tests$v.txt | head -10
done
cd benchmarks/probe
timeout 200 python3 ab_events.py INFINI_FLASH_PWG=${AB:-1,2} paged_attention_prefill:prefill,large attention:prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1; grep -v "^ *$" $OUT/ab.txt | tail -40
rm -f $OUT/build.log $OUT/pip_wheels.log
