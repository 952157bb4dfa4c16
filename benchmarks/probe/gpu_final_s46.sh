# 46th session, call 3 (main's final kernels: causal/softmax's warp kernel loads every piece without waiting on the
# causal limit; rope's row kernel at 512+ tokens stores its outputs evict_last): the build, test_ops.py on CUDA and
# infini tensors, compute-sanitizer memcheck over the softmax and rope op tests, then the comparison tool over rope,
# softmax and causal_softmax (every shape set, every peer) and the best-peer table.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -n 1 $OUT/tests.txt)"
grep -E "^FAILED" $OUT/tests.txt | head
t=$(date +%s); timeout 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "softmax or rope" > /tmp/mc.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"
grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2 | tee $OUT/memcheck_tail.txt
t=$(date +%s); timeout 130 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
  --ops rope,softmax,causal_softmax --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b > $OUT/bench.txt 2>&1
echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; cat $OUT/best_peer.md
