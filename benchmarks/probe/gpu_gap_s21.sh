# Twenty-first session, first call (H200): the softmax refactor (shiftFactor) under the softmax tests and
# memcheck; where the tool's time of softmax 512x128256 goes against torch's copy (tool_gap_s21.py).
# Usage: bash benchmarks/probe/gpu_gap_s21.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
(cd benchmarks/probe && timeout 120 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | tee $OUT/gap.txt)
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -3
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large --impls infini --reps 20 2>&1 | grep -v -i warn | cut -c1-120)
