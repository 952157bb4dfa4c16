# Twentieth session, third call (H200): the stream softmax kernel without branches per piece, the bf16
# write as packed fma with a split scale, NaN kept through the pair combination (SM_NEW=1) against the
# kernel before (SM_NEW=0): softmax tests, kernel A/B, spills in SASS. Usage: bash benchmarks/probe/gpu_stream_s20.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 150 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -8
SO=infinicore_torch/lib/libinfini_backend_nvidia.so
F=$(cuobjdump -symbols $SO 2>/dev/null | grep -o "_ZN[A-Za-z0-9_]*softmaxStreamKernelI13__nv_bfloat16[A-Za-z0-9_]*" | head -1)
cuobjdump -sass -fun "$F" $SO > $OUT/stream_bf16.sass 2>&1; echo "sass lines $(wc -l < $OUT/stream_bf16.sass) STL $(grep -c STL $OUT/stream_bf16.sass) LDL $(grep -c LDL $OUT/stream_bf16.sass) HFMA2.BF16 $(grep -c 'HFMA2.BF16\|HMUL2.BF16' $OUT/stream_bf16.sass) BSSY $(grep -c BSSY $OUT/stream_bf16.sass)"
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_NEW=0,1 softmax:large,prefill --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
t=$(date +%s); timeout 100 python3 softmax_rows.py --help > /dev/null 2>&1; SM_NEW=0 timeout 60 python3 kernel_times.py softmax:large --impls infini --reps 20 2>&1 | grep -v -i warn | cut -c1-130; timeout 60 python3 kernel_times.py softmax:large --impls infini --reps 20 2>&1 | grep -v -i warn | cut -c1-130
