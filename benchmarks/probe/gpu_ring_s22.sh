# Twenty-second session, third call (H200): the stream softmax kernel with each warp's part in Q sub-parts through
# a ring of S slots, more than a line ahead (SM_K 7: Q 2, S 3; 8: Q 4, S 5; 9: Q 4, S 6; all with per-warp
# pairs, 6): correctness (check script; softmax tests under 7 and 9), kernel A/B, time against rounds.
# Usage: bash benchmarks/probe/gpu_ring_s22.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
cd benchmarks/probe
t=$(date +%s); timeout 100 python3 check_l2_s21.py SM_K=0,6,7,8,9 2>&1 | grep -v -i warn > $OUT/check.txt; echo "check $(( $(date +%s) - t )) s"; grep -E "BAD|DIFF|bad:|SM_K=" $OUT/check.txt | grep -v " ok$"
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_K=0,6,7,8,9 softmax:large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep "clusters of" $OUT/ab.txt; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
t=$(date +%s); timeout 100 python3 rounds_s22.py --knob SM_K=0,7,9 2>&1 | grep -v -i warn | tee $OUT/rounds.txt; echo "rounds $(( $(date +%s) - t )) s"
cd ../..
for k in 7 9; do t=$(date +%s); SM_K=$k timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/sm$k.log 2>&1; echo "SM_K=$k tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/sm$k.log; done
