# Nineteenth session, first call (H200): softmax of many vocabulary lines by persistent clusters that
# stream lines through shared memory into registers (temporary knob SM_STREAM: 0 the bulk kernel, 1-5
# the stream kernel's (threads, pieces a thread, blocks an SM): 1 (256,16,2), 2 (256,16,3), 3 (512,8,2),
# 4 (1024,8,1), 5 (512,16,1)). Tests under each, kernel times, the tool's softmax rows, memcheck.
# Usage: bash benchmarks/probe/gpu_stream_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in 1 2 3 4 5; do
t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t$e.log 2>&1; echo "SM_STREAM=$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t$e.log)"; grep -E "^FAILED" $OUT/t$e.log | head -5
done
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py SM_STREAM=0,1,2,3,4,5 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_stream.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_stream.txt | sed -n '/medians/,$p'
cd ../..
t=$(date +%s); timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops softmax --impls infini,torch,compile,triton --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; grep -E "^softmax |copy" $OUT/bench.txt | head -20
t=$(date +%s); timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "vocabulary or wide_rows" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
