# NOT YET RUN (written in the 36th session after its device budget was spent; compiled there, sm_90a, no ptxas
# C75xx warnings, no spills): flash_mb_s36.patch adds WG 3 to the tiled attention kernel - blocks of two warpgroups
# as the paged prefill's WG 1, but decoupled: each stage's copies tracked by a "full" mbarrier (every thread's
# cp.async.mbarrier.arrive.noinc), its reuse by an "empty" one (every thread once its warpgroup's wgmma reading it
# landed), each warpgroup its own half of the paged offset table behind its named barrier - so that the two
# warpgroups drift apart (one's softmax under the other's products) instead of meeting at a __syncthreads a tile.
# INFINI_FLASH_MB=1 (read at each launch) runs both modes in it. This applies the patch, builds, runs the attention
# tests under it (-x, time-limited: a wrong phase would hang), the A/B against today's forms and SDPA, and memcheck.
git apply benchmarks/probe/flash_mb_s36.patch 2>/dev/null || patch -p1 < benchmarks/probe/flash_mb_s36.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_FLASH_MB=1 timeout 120 python3 -m pytest -x -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests_mb.txt 2>&1; echo "MB=1 tests rc $?: $(tail -1 $OUT/tests_mb.txt)"; grep -E "^FAILED" $OUT/tests_mb.txt | head
cd benchmarks/probe
timeout 200 python3 ab_events.py INFINI_FLASH_MB=0,1 paged_attention_prefill:prefill,large attention:prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1; grep -v "^ *$" $OUT/ab.txt | tail -40
cd ../..
INFINI_FLASH_MB=1 timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck MB=1 rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2
rm -f $OUT/build.log $OUT/pip_wheels.log
