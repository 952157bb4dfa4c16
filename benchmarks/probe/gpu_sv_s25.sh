# Twenty-fifth session, first call (H200): stream softmax variants by a temporary knob XSV: 16 (as is),
# 9 (8 pieces a thread, 3 blocks an SM, clusters of 8), 8 (the same at 4 blocks an SM), 17 (as is with the
# warp max by redux.sync): softmax tests under each, the float64 long-line check, kernel A/B; the SASS.
# Usage: bash benchmarks/probe/gpu_sv_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee $OUT/gpu.txt
so=infinicore_torch/lib/libinfini_backend_nvidia.so
cuobjdump -sass $so 2>/dev/null | awk '/Function : .*softmaxStreamKernelI13__nv_bfloat16Li16ELi2ELb0/{p=1} p&&/Function : /&&!/softmaxStreamKernelI13__nv_bfloat16Li16ELi2ELb0/{p=0} p' > $OUT/sass_stream_bf16.txt; wc -l $OUT/sass_stream_bf16.txt
for v in 9 8 17; do
  t=$(date +%s); XSV=$v timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/tests_$v.txt 2>&1; echo "tests XSV=$v rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests_$v.txt)"
done
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 check_l2_s21.py XSV=16,9,8,17 2>&1 | grep -v -i warn > $OUT/check.txt; echo "check $(( $(date +%s) - t )) s"; grep -E "BAD|DIFF|bad:" $OUT/check.txt; tail -2 $OUT/check.txt
t=$(date +%s); timeout 240 python3 ab_knobs.py XSV=16,9,8,17 softmax:large softmax:prefill --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
