# (The kernel it measures is not in the tree: apply benchmarks/probe/twice_kernel_s21.patch first.)
# Twenty-first session, second call (H200): the two-pass softmax kernel (second read from the L2) against
# the stream kernel: correctness of each variant, kernel-time A/B (SM_L2=0 stream, 1 plain, 2 evict_first
# second read, 3 no L1 allocate), and the tool-like timing with the gap split (tool_gap_s21.py) for the best.
# Usage: bash benchmarks/probe/gpu_l2_s21.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
timeout 120 python3 check_l2_s21.py 2>&1 | grep -v -i warn | tee $OUT/check.txt | grep -E "BAD|DIFF|bad:"
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_L2=0,1,2,3 softmax:large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
for k in 0 1 2; do echo "SM_L2=$k"; SM_L2=$k timeout 100 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | grep -E "case|^softmax"; done | tee $OUT/gap.txt
