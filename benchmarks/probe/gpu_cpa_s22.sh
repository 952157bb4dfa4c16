# Twenty-second session, fifth call (H200): the stream softmax kernel with each lane's pieces brought into shared
# memory by cp.async (16 bytes a copy, waited by the lane itself: no mbarrier, no warp barrier) instead of a bulk
# copy a warp (SM_K=15; 16 with an L2 256-byte prefetch), against 0 and 6: correctness, A/B, rounds.
# Usage: bash benchmarks/probe/gpu_cpa_s22.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
cd benchmarks/probe
t=$(date +%s); timeout 100 python3 check_l2_s21.py SM_K=15,16 2>&1 | grep -v -i warn > $OUT/check.txt; echo "check $(( $(date +%s) - t )) s"; grep -E "BAD|DIFF|bad:" $OUT/check.txt
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_K=0,6,15,16 softmax:large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
t=$(date +%s); timeout 100 python3 rounds_s22.py --knob SM_K=6,15,16 2>&1 | grep -v -i warn | tee $OUT/rounds.txt; echo "rounds $(( $(date +%s) - t )) s"
cd ../..
t=$(date +%s); SM_K=15 timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/sm15.log 2>&1; echo "SM_K=15 tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/sm15.log
