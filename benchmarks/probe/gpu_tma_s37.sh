# NOT YET RUN (written in the 37th session after its device budget was spent; compiled there, sm_90a, no ptxas
# C75xx warnings, no spills, 203 registers): flash_tma_s37.patch adds WG 3 to the tiled attention kernel - the paged
# prefill's lockstep blocks (WG 1) with their tiles brought by TMA instead of every thread's cp.async: thread 0
# issues a tile's boxes (4-d tensor maps over [blocks, kv heads, block, d], a box = a 64-element half of min(block,
# 64) tokens of one head and block, 128-byte swizzle: the layout the wgmma descriptors read) counted by the stage's
# full mbarrier (expect_tx a box, then one arrival), the next tile's block-table entries by its cp.async into shared
# memory; no box for pages past the keys (the last tile's rows past the keys are zeroed by the block) or for bad
# ones (reported: the call fails). The tensor
# maps are encoded at each call (cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion). Power-of-two
# blocks of 8+ tokens only (else WG 1). INFINI_FLASH_TMA=1 (read at each launch) turns it on; =2 runs WG 4, the
# same decoupled as dense attention (no __syncthreads a tile: thread 0 waits for a stage's "empty" mbarrier, which
# every thread arrives on once its warpgroup's products reading the stage have landed; 208 registers, no spills).
# This applies the patch, builds, runs the attention tests under each (-x, time-limited: a wrong byte count would
# hang), the A/B against the landed form (0) and SDPA, and memcheck over the attention tests under each.
git apply benchmarks/probe/flash_tma_s37.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for v in 1 2; do
  INFINI_FLASH_TMA=$v timeout 90 python3 -m pytest -x -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests_tma$v.txt 2>&1; echo "TMA=$v tests rc $?: $(tail -1 $OUT/tests_tma$v.txt)"; grep -E "^FAILED|Error" $OUT/tests_tma$v.txt | head -8
done
(cd benchmarks/probe && timeout 150 python3 ab_events.py INFINI_FLASH_TMA=0,1,2 paged_attention_prefill:prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1); grep -v "^ *$" $OUT/ab.txt | tail -20
for v in 1 2; do
  INFINI_FLASH_TMA=$v timeout 80 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc$v.txt 2>&1; echo "memcheck TMA=$v rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc$v.txt | tail -2
done
rm -f $OUT/build.log $OUT/pip_wheels.log
