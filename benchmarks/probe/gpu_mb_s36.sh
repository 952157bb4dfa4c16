# NOT YET RUN (written in the 36th session after its device budget was spent; compiled there, sm_90a, no ptxas
# C75xx warnings, no spills): flash_mb_s36.patch adds WG 3 to the tiled attention kernel - blocks of two warpgroups
# as the paged prefill's WG 1, but decoupled: each stage's copies tracked by a "full" mbarrier (every thread's
# cp.async.mbarrier.arrive.noinc), its reuse by an "empty" one (every thread once its warpgroup's wgmma reading it
# landed), each warpgroup its own half of the paged offset table behind its named barrier - so that the two
# warpgroups drift apart (one's softmax under the other's products) instead of meeting at a __syncthreads a tile;
# and WG 4, WG 3 with FA3's ping-pong (the warpgroups take turns issuing their products, named barriers 3/4).
# INFINI_FLASH_MB=1 / 2 (read at each launch) runs both modes in WG 3 / WG 4. This applies the patch, builds, runs
# the attention tests under each (-x, time-limited: a wrong phase would hang), the A/B against today's forms (0)
# and SDPA, and memcheck over the attention tests under each.
git apply benchmarks/probe/flash_mb_s36.patch 2>/dev/null || patch -p1 < benchmarks/probe/flash_mb_s36.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for v in 1 2; do
  INFINI_FLASH_MB=$v timeout 90 python3 -m pytest -x -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests_mb$v.txt 2>&1; echo "MB=$v tests rc $?: $(tail -1 $OUT/tests_mb$v.txt)"; grep -E "^FAILED" $OUT/tests_mb$v.txt | head -5
done
cd benchmarks/probe
timeout 200 python3 ab_events.py INFINI_FLASH_MB=0,1,2 paged_attention_prefill:prefill,large attention:prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1; grep -v "^ *$" $OUT/ab.txt | tail -40
cd ../..
for v in 1 2; do
  INFINI_FLASH_MB=$v timeout 80 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc$v.txt 2>&1; echo "memcheck MB=$v rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc$v.txt | tail -2
done
rm -f $OUT/build.log $OUT/pip_wheels.log
