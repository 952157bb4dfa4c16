# Nineteenth session, sixth call (H200): the stream kernel with two buffers a warp (the copy of the line
# two on is requested as soon as a line is in registers), temporary knob SM_STREAM: 1 the committed form
# (256 threads, 16 pieces a thread, 2 blocks an SM, one buffer), 2 (512,8,1, two), 3 (256,8,2, two: clusters
# of 8), 4 (256,8,3, two), 5 (256,16,1, two), 6 (512,8,1, one); 0 the bulk kernel.
# Usage: bash benchmarks/probe/gpu_dbuf_s19.sh (no gain: the knob and the two-buffer form were removed after
# this call; RESULTS.md, nineteenth session)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in 2 3 4 5 6; do
t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t$e.log 2>&1; echo "SM_STREAM=$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t$e.log)"; grep -E "^FAILED" $OUT/t$e.log | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_STREAM=0,1,2,3,4,5,6 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_dbuf.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_dbuf.txt | sed -n '/medians/,$p'
cd ../..
for e in 1 2 3 4; do t=$(date +%s); SM_STREAM=$e timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes large --budget 0.2 --busy-us 100 --ops softmax --impls infini --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench$e.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "^softmax " $OUT/bench$e.txt | head -5; done
