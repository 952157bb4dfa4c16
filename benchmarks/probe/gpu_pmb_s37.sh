# 37th session, call 5: flash_pmb_s37.patch (INFINI_FLASH_PMB=1, read at each launch: paged_attention_prefill in
# dense attention's decoupled two-warpgroup blocks (WG 2), without the offset table: lane k < 8 of each warp makes
# the key/value offsets of the warp's k-th row a tile ahead and the copies take them by shuffles - no barrier)
# applied and built; the attention tests under it (-x, time-limited: a wrong phase would hang), the A/B against the
# landed lockstep form (0) and SDPA, memcheck over the attention tests under it.
git apply benchmarks/probe/flash_pmb_s37.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_FLASH_PMB=1 timeout 80 python3 -m pytest -x -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests_pmb.txt 2>&1; echo "PMB tests rc $?: $(tail -1 $OUT/tests_pmb.txt)"; grep -E "^FAILED" $OUT/tests_pmb.txt | head -5
(cd benchmarks/probe && timeout 150 python3 ab_events.py INFINI_FLASH_PMB=0,1 paged_attention_prefill:prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1); grep -v "^ *$" $OUT/ab.txt | tail -16
INFINI_FLASH_PMB=1 timeout 80 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck PMB=1 rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2
rm -f $OUT/build.log $OUT/pip_wheels.log
