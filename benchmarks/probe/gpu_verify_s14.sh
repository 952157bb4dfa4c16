# Fourteenth session, second call (H200, warm): the whole suite with the nvidia backend and
# compute-sanitizer memcheck over the op tests, at the session's final code. Usage: bash benchmarks/probe/gpu_verify_s14.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 290 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 180 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
