# 37th session, call 3: flash_pf3_s37.patch (INFINI_FLASH_PF3=1, read at each launch: dense attention's decoupled
# two-warpgroup blocks (WG 2) with the copies three tiles ahead, five stages, as WG 3) applied and built; the
# attention tests under it (-x, time-limited), the A/B against the landed form (0) and SDPA, then the comparison
# tool over attention and paged_attention_prefill in the landed form (the knob unset; WG 2's SASS is the landed one).
git apply benchmarks/probe/flash_pf3_s37.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_FLASH_PF3=1 timeout 80 python3 -m pytest -x -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests_pf3.txt 2>&1; echo "PF3 tests rc $?: $(tail -1 $OUT/tests_pf3.txt)"; grep -E "^FAILED" $OUT/tests_pf3.txt | head -5
(cd benchmarks/probe && timeout 150 python3 ab_events.py INFINI_FLASH_PF3=0,1 attention:prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1); grep -v "^ *$" $OUT/ab.txt | tail -12
t=$(date +%s); timeout 150 python3 -m infinicore_torch.bench --device cuda --ops attention,paged_attention_prefill --impls infini,torch --dtypes bfloat16 --shapes decode,prefill,large --budget 0.2 --busy-us 100 --out /tmp/e > $OUT/bench_attention.txt 2>&1
echo "bench rc $? $(( $(date +%s) - t )) s"; grep -E "^(attention|paged_attention_prefill) .* (infini|torch) " $OUT/bench_attention.txt
rm -f $OUT/build.log $OUT/pip_wheels.log
