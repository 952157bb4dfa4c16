# Twelfth session: the tensor-core decode kernel's value pieces remapped (lane g loads d = 64 i + 8 g, so a
# warp's load reads whole 128-byte lines; before: 32 contiguous bytes a lane, half-sectors per load).
# Attention tests, memcheck, kernel durations against SDPA (compare with final/pa_final.txt).
# Usage: bash benchmarks/probe/gpu_pa5_s12.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "attention" -p no:cacheprovider > $OUT/pa_tests.log 2>&1; echo "attention tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/pa_tests.log; grep -E "^FAILED" $OUT/pa_tests.log | head -3
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
cd benchmarks/probe
timeout 100 python3 pa_layout.py --shapes 64x2048x8,16x1024x8,8x512x8 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_vmap.txt; grep -A40 "^medians" $OUT/pa_vmap.txt
