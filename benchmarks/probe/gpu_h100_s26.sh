# Twenty-sixth session, third call (H100): softmaxHoldKernel against the bulk kernel the H100 takes (a temporary
# knob XHW set: the hold kernel on any GPU); softmax tests under it; torch's copy alongside.
# Usage: bash benchmarks/probe/gpu_h100_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
XHW=1 timeout 90 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/tests_hw.txt 2>&1; echo "softmax tests XHW=1 rc $?: $(tail -1 $OUT/tests_hw.txt)"
cd benchmarks/probe
R="timeout 120 python3 softmax_rows.py"
$R XHW=0,1 --rows 66,264,512 --reps 30 --copy > $OUT/rows_a.txt 2>&1; echo "rows_a rc $?"; sed -n '/medians/,$p' $OUT/rows_a.txt
$R XHW=0,1 --rows 528,1056 --cols 40008 --reps 30 --copy > $OUT/rows_b.txt 2>&1; echo "rows_b rc $?"; sed -n '/medians/,/GB/p' $OUT/rows_b.txt
