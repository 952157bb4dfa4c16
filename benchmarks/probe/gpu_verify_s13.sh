# Thirteenth session, verification of the kernel changes in their final form (rms norms' mean by the
# host's 1/n; rope <= 64 tokens in 16-byte pieces above 4 tokens; decode-size binary ops in a short
# kernel; evict_first loads for swiglu/add/mul and silu_and_mul inputs within the L2's size): the
# whole suite with the nvidia backend and compute-sanitizer memcheck over the op tests.
# Usage: bash benchmarks/probe/gpu_verify_s13.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 290 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 180 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
