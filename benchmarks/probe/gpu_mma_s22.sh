# Twenty-second session, fourth call (H200): the stream softmax kernel with the warp's max first and the exps
# summed by mma (SM_K=10), and without the ex2 (14: wrong results, timing only: what the special-function unit
# costs), against 0 and 6; correctness of 10; the pipes' use of 6 (ncu).
# Usage: bash benchmarks/probe/gpu_mma_s22.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
cd benchmarks/probe
t=$(date +%s); timeout 100 python3 check_l2_s21.py SM_K=10 2>&1 | grep -v -i warn > $OUT/check.txt; echo "check $(( $(date +%s) - t )) s"; cat $OUT/check.txt | cut -c1-150
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_K=0,6,10,14 softmax:large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
t=$(date +%s); timeout 100 python3 rounds_s22.py --knob SM_K=6,10,14 2>&1 | grep -v -i warn | tee $OUT/rounds.txt; echo "rounds $(( $(date +%s) - t )) s"
M="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_issued.avg.pct_of_peak_sustained_active,regex:sm__pipe_.*_cycles_active.avg.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*.avg.pct_of_peak_sustained_active"
t=$(date +%s); SM_K=6 timeout 120 ncu --profile-from-start off --metrics "$M" -k regex:softmaxStream python3 ncu_probe.py softmax:large --impls infini > $OUT/ncu6.txt 2>&1; echo "ncu rc $? $(( $(date +%s) - t )) s"
grep -E "gpu__time|dram__|sm__inst_issued|pipe" $OUT/ncu6.txt | awk '{ if ($NF+0 > 1.0) print }' | cut -c1-130 | head -40
cd ../..
t=$(date +%s); SM_K=10 timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/sm10.log 2>&1; echo "SM_K=10 tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/sm10.log
