# Twenty-first session, fourth call (H200): stream softmax kernel exp-pass variants (SM_V: 0 as before;
# 1 no check a piece, the warp's full parts unguarded; 2 the same with the piece's exps summed pairwise;
# 3 guarded, no -inf check a piece; 4 guarded, pairwise sums): correctness, kernel-time A/B, tool-like time.
# Usage: bash benchmarks/probe/gpu_sv_s21.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
timeout 150 python3 check_l2_s21.py SM_V=0,1,2,3,4 2>&1 | grep -v -i warn > $OUT/check.txt; grep -E "BAD|DIFF|bad:" $OUT/check.txt
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_V=0,1,2,3,4 softmax:large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
for k in 0 3 4; do echo "SM_V=$k"; SM_V=$k timeout 100 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | grep -E "^softmax  "; done | tee $OUT/gap.txt
