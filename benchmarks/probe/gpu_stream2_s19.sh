# Nineteenth session, second call (H200): the stream kernel with its part in 2 or 4 sub-copies, each
# requested again for the next line as soon as its pieces are in registers (SM_STREAM 6: (512,16,1) in 4,
# 7: in 2, 8: (256,16,2) in 4), and the data movement alone (9: (512,16,1), 10: in 4; wrong results,
# timing only), against the bulk kernel (0) and 5; torch's copy kernel of the same bytes.
# Usage: bash benchmarks/probe/gpu_stream2_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in 6 7 8; do
t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t$e.log 2>&1; echo "SM_STREAM=$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t$e.log)"; grep -E "^FAILED" $OUT/t$e.log | head -5
done
cd benchmarks/probe
timeout 60 python3 copy_kernel.py 512x128256 256x128256 16x8388608 --reps 30 2>&1 | grep -v -i warn | tee $OUT/copy.txt
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_STREAM=0,5,6,7,8,9,10 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_stream2.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_stream2.txt | sed -n '/medians/,$p'
t=$(date +%s); SM_STREAM=6 timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q ../../test/test_ops.py -k "vocabulary" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
