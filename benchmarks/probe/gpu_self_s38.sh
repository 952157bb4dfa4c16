# NOT YET RUN (written in the 38th session after its device budget was spent; compiled there, sm_90a, no spills,
# applies to b5f4029;
# 213-219 registers): flash_self_s38.patch lets the tiled prefill's blocks find their own row tile (flashOwnTile: a
# thread a sequence reads cu_seqlens_q and seq_lens, the tile counts are scanned, the block takes tile
# total - 1 - blockIdx.y as it took flashTilesKernel's list from its end) for calls of at most 256 sequences on
# Hopper, so that flashTilesKernel runs as the check kernel alone (it reports bad cu_seqlens_q / seq_lens as before)
# and the paged form (WG 1) no longer waits for it: launched as a programmatic dependent, it reads nothing the check
# kernel writes (the gather, too, skips its wait; the gathered form still waits for the gather).
# If it wins, land it with one device function for a sequence's rows/tile count/validity shared by flashOwnTile and
# flashTilesKernel (the patch writes that part twice, as a probe). INFINI_FLASH_SELF=0 (read at each launch) keeps the landed list. Expected: ~2 us off small prefills (the tile
# list kernel took 2.5-2.9 us, call 8). Applies the patch, builds, tests under each value (attention, error and ISA
# tests), the A/B against SDPA, kernel times, memcheck under the new form.
git apply benchmarks/probe/flash_self_s38.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for v in 1 0; do
  INFINI_FLASH_SELF=$v timeout 150 python3 -m pytest -x -q test/test_ops_attention.py test/test_errors.py test/test_isa.py -p no:cacheprovider > $OUT/tests_self$v.txt 2>&1; echo "SELF=$v tests rc $?: $(tail -1 $OUT/tests_self$v.txt)"; grep -E "^FAILED" $OUT/tests_self$v.txt | head -8
done
(cd benchmarks/probe && timeout 150 python3 ab_events.py INFINI_FLASH_SELF=0,1 paged_attention_prefill:decode,prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1); grep -v "^ *$" $OUT/ab.txt | tail -16
(cd benchmarks/probe && INFINI_FLASH_SELF=1 timeout 100 python3 kernel_times.py paged_attention_prefill:decode,prefill,large --impls infini > $OUT/kt.txt 2>&1; grep -v Warn $OUT/kt.txt | cut -c1-330)
INFINI_FLASH_SELF=1 timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2
rm -f $OUT/build.log $OUT/pip_wheels.log
