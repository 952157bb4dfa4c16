# The ninth session's review mend on the H100: the shared exp-in-place and cache-row helpers (softmax,
# paged_caching): their tests, memcheck over them, the softmax probe and the tool on paged_caching.
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax or paged or caching" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
t=$(date +%s); timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops.py -k "softmax or paged or caching" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
timeout 60 python3 benchmarks/probe/time_probe.py softmax 100 2>&1 | grep -v Warn | tee $OUT/softmax.txt
timeout 60 python3 -m infinicore_torch.bench --device cuda --ops paged_caching,causal_softmax --shapes decode,large --impls infini,compile --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; python3 benchmarks/best_peer.py $OUT/bench.txt | tail -6
