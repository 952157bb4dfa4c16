# Nineteenth session, third call (H200): what the stream kernel's line exchange costs and an asynchronous
# one. SM_STREAM 11: (512,16,1) in 2 sub-copies without the cluster exchange, 12: without the block's
# either (both wrong results, timing only); 13-17: the cluster's pairs sent by asynchronous stores into
# each block's shared memory, counted by an mbarrier a line parity, after one warp-level reduction (13:
# (512,16,1) in 2, 14: in 1, 15: (256,16,2) in 1, 16: in 2, 17: (512,16,1) in 4); 0 bulk, 7 the
# exchange by cluster barrier, 9/10 data movement alone. Usage: bash benchmarks/probe/gpu_stream3_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in 13 14 15 16 17; do
t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t$e.log 2>&1; echo "SM_STREAM=$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t$e.log)"; grep -E "^FAILED" $OUT/t$e.log | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_STREAM=0,7,9,10,11,12,13,14,15,16,17 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_stream3.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_stream3.txt | sed -n '/medians/,$p'
t=$(date +%s); SM_STREAM=13 timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q ../../test/test_ops.py -k "vocabulary" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
cd ../..
for e in 0 13; do t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes large --budget 0.2 --busy-us 100 --ops softmax --impls infini --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench$e.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "^softmax |copy" $OUT/bench$e.txt | head -5; done
