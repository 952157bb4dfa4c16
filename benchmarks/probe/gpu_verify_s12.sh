# Twelfth session, verification of the committed GPU code: the whole suite with the nvidia backend,
# compute-sanitizer memcheck over the op tests, and paged_attention decode kernel durations against SDPA.
# Usage: bash benchmarks/probe/gpu_verify_s12.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 280 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 170 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
cd benchmarks/probe
timeout 100 python3 pa_layout.py --shapes 64x2048x8,64x2048x32,16x1024x8,8x512x8 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_final.txt; grep -A40 "^medians" $OUT/pa_final.txt | grep -v in-order
