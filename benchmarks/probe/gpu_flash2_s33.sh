# The tiled kernel (33rd session), second round: block-table entries checked at their copies (no branch on
# the loads), and 8 warps a block (1 an SM) against 4 (3 an SM, 168 registers) by the temporary knob XW.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for w in 8 4; do XW=$w timeout 100 python3 -m pytest -q test/test_ops_attention.py -k "long or prefill or cache" -p no:cacheprovider 2>&1 | tail -1; done
cd benchmarks/probe
timeout 200 python3 ab_events.py XW=8,4 attention:prefill,large paged_attention_prefill:decode,prefill,large --impls torch --rounds 3 --reps 30 > $OUT/ab_xw.txt 2>&1; grep -v Warn $OUT/ab_xw.txt | tail -24
rm -f $OUT/build.log $OUT/pip_wheels.log
