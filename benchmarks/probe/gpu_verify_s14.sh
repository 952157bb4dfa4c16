# Fourteenth session, second call (H200, warm): the whole suite with the nvidia backend and
# compute-sanitizer memcheck over the op tests, at the session's final code; then the kernels of softmax (large) and paged_attention (decode) on the H200. Usage: bash benchmarks/probe/gpu_verify_s14.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 290 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 180 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
cd benchmarks/probe
t=$(date +%s); timeout 100 python3 kernel_times.py softmax:large paged_attention:decode,prefill,large --reps 20 --impls infini,compile,triton > $OUT/ktimes.txt 2>&1; echo "ktimes rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ktimes.txt | tail -25
