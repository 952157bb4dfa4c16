# Twentieth session, first A/B call (H200): the chunked binary kernel's unroll (EW_U) and block size
# (EW_T) on the prefill/large rows; ncu pipe use and stall reasons of the softmax stream kernel at
# 512x128256. Usage: bash benchmarks/probe/gpu_ab_s20.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py EW_U=4,2,1 swiglu:prefill,large add:prefill --reps 30 --rounds 3 --impls compile > $OUT/ab_u.txt 2>&1; echo "ab_u rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_u.txt | cut -c1-150
t=$(date +%s); EW_U=2 timeout 100 python3 ab_knobs.py EW_T=128,256 swiglu:prefill,large --reps 30 --rounds 3 --impls "" > $OUT/ab_t.txt 2>&1; echo "ab_t rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_t.txt | cut -c1-150
M="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_issued.avg.pct_of_peak_sustained_active,regex:sm__pipe_.*_cycles_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__warps_active.avg.per_cycle_active"
t=$(date +%s); timeout 150 ncu --profile-from-start off --metrics "$M" -k regex:softmax python3 ncu_probe.py softmax:large --impls infini > $OUT/ncu_sm.txt 2>&1; echo "ncu rc $? $(( $(date +%s) - t )) s"
grep -E "softmax.*\(|gpu__time|dram__|sm__inst|sm__pipe|stalled|warps_active" $OUT/ncu_sm.txt | awk '{ if ($0 ~ /stalled|pipe/) { if ($NF+0 > 0.05) print } else print }' | cut -c1-130 | head -90
