# Twenty-fifth session, twelfth call (H200): rms_norm's MANY kernel as committed (XRN=0: 256 threads x 2 pieces,
# 6 blocks an SM) against 512 threads x 1 piece, 4 blocks an SM (XRN=1), weights with the row in both; the norm
# tests under 1; Liger's and our Triton kernels alongside. Usage: bash benchmarks/probe/gpu_rn2_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
XRN=1 timeout 100 python3 -m pytest -q test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/tests_1.txt 2>&1; echo "tests XRN=1 rc $?: $(tail -1 $OUT/tests_1.txt)"
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py XRN=0,1 rms_norm:prefill,large --reps 30 --rounds 3 --impls liger,triton > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
