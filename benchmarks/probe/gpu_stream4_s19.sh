# Nineteenth session, fourth call (H200): the stream kernel with a bulk copy a warp (each warp waits for
# its own 8 KiB and requests the next line's at once: no block barrier on the data's way), pairs sent
# asynchronously (SM_STREAM 18: (512,16,1), 19: (256,16,2)), its data movement alone (20), against 0
# (bulk), 13, 15 and 10 (third call). Usage: bash benchmarks/probe/gpu_stream4_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in 18 19; do
t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t$e.log 2>&1; echo "SM_STREAM=$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t$e.log)"; grep -E "^FAILED" $OUT/t$e.log | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_STREAM=0,10,13,15,18,19,20 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_stream4.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_stream4.txt | sed -n '/medians/,$p'
t=$(date +%s); SM_STREAM=18 timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q ../../test/test_ops.py -k "vocabulary" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
cd ../..
for e in 0 15 18 19; do t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes large --budget 0.2 --busy-us 100 --ops softmax --impls infini --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench$e.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "^softmax " $OUT/bench$e.txt | head -5; done
