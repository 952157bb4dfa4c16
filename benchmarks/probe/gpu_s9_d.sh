# Ninth session, fourth H100 call: 32-bit division where indices fit, collapsed row dims, fast silu
# division: the op tests, then decode shapes against the best peers and the kernels' own durations.
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 200 python3 -m pytest -q test/test_ops.py -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
timeout 200 python3 benchmarks/probe/time_probe.py small 100 100 2>&1 | grep -v Warn | tee $OUT/small.txt
timeout 100 python3 benchmarks/probe/kernel_times.py swiglu:decode silu_and_mul:decode causal_softmax:decode rope:decode paged_caching:decode 2>&1 | grep -v Warn | tee $OUT/kernels.txt
