# Eleventh session, fourth call: paged_caching's row kernel, A/B through the temporary knob INFINI_KNOB_PAGED
# (removed before committing): 0 = predicated stores, 32-bit slot math, grid (tokens, head groups); 1 = the
# same, grid (head groups, tokens); 2 = the kernel measured in the second call (loop, branch on the slot).
# Usage: bash benchmarks/probe/gpu_ab2_s11.sh
source .ci/gpu_setup.sh || exit 1
K="paged or caching"
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "$K" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
cd benchmarks/probe
timeout 150 python3 ab_knobs.py INFINI_KNOB_PAGED=0,1,2 paged_caching:decode,prefill --rounds 3 --reps 40 --impls compile 2>&1 | grep -v -i warn > $OUT/ab_paged.txt; grep -A20 "^medians" $OUT/ab_paged.txt
cd ../..
timeout 150 python3 -m infinicore_torch.bench --device cuda --ops paged_caching --shapes decode,prefill,large --impls infini,torch,compile --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -6
