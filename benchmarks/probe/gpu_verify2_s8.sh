# The eighth session's H100 check of the softmax packed kernel keeping exp(x - thread max) in place of x
# (one exp an element): timings, the softmax tests (with the many-long-rows test), memcheck over them,
# the comparison tool on softmax and causal_softmax.
source .ci/gpu_setup.sh || exit 1
timeout 100 python3 benchmarks/probe/time_probe.py softmax 100 2>&1 | grep -v Warn | tee $OUT/softmax.txt
timeout 120 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -k softmax -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $?"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops.py -k softmax -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
timeout 120 python3 -m infinicore_torch.bench --device cuda --ops softmax,causal_softmax --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"
