# Twenty-fourth session, first call (H200): the stream softmax kernel with a temporary knob XSX (bits:
# 1 = bulk loads with an L2 evict-first policy, 2 = streaming (.cs) stores, 16 * d = bulk prefetch into L2
# of the line d rounds past the one requested): correctness on long lines, kernel A/B at the large shapes,
# and the bar's tool/gap numbers for a few values. Usage: bash benchmarks/probe/gpu_pf_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd benchmarks/probe
t=$(date +%s); timeout 100 python3 check_l2_s21.py XSX=0,1,2,16,32,19 2>&1 | grep -v -i warn > $OUT/check.txt; echo "check $(( $(date +%s) - t )) s"; grep -E "BAD|DIFF|bad:" $OUT/check.txt; tail -2 $OUT/check.txt
t=$(date +%s); timeout 240 python3 ab_knobs.py XSX=0,1,2,3,16,32,48,17,19 softmax:large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
for v in 0 16 19; do t=$(date +%s); XSX=$v timeout 60 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | grep -E "^softmax  |^copy  " | sed "s/^/XSX=$v /"; echo "gap $(( $(date +%s) - t )) s"; done
