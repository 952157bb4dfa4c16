# Twenty-fifth session, tenth call (H200): rms_norm's many-row kernel (2 pieces a thread, 256 threads) by a
# temporary knob XRN: 0 (as is: weights after the reduction, 8 blocks an SM), 1 (weights with the row, 8 an
# SM), 2 (weights with the row, 6 an SM), 3 (weights after, 6 an SM); Liger's and our Triton kernels alongside.
# Usage: bash benchmarks/probe/gpu_rn_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 1 2 3; do XRN=$v timeout 100 python3 -m pytest -q test/test_ops.py -k "rms_norm" -p no:cacheprovider > $OUT/tests_$v.txt 2>&1; echo "tests XRN=$v rc $?: $(tail -1 $OUT/tests_$v.txt)"; done
cd benchmarks/probe
t=$(date +%s); timeout 240 python3 ab_knobs.py XRN=0,1,2,3 rms_norm:prefill,large add_rms_norm:large --reps 30 --rounds 3 --impls liger,triton > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
