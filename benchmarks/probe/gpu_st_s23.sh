# Twenty-third session, first call (H200): the stream softmax kernel with 512-thread blocks, one an SM, in
# clusters of 2 (XST=512) against 256-thread blocks, two an SM, clusters of 4 (XST=256, as before):
# softmax tests under 512, the float64 long-line check, kernel A/B at prefill and large shapes.
# Usage: bash benchmarks/probe/gpu_st_s23.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); XST=512 timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/st512_tests.txt 2>&1; echo "tests 512 rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/st512_tests.txt
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 check_l2_s21.py XST=256,512 2>&1 | grep -v -i warn > $OUT/check.txt; echo "check $(( $(date +%s) - t )) s"; grep -E "BAD|DIFF|bad:" $OUT/check.txt; tail -2 $OUT/check.txt
t=$(date +%s); timeout 200 python3 ab_knobs.py XST=256,512 softmax:prefill,large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
