# Nineteenth session, eleventh/twelfth calls (H100, H200): the final form (the stream kernel only where an
# SM's share of the memory bandwidth is >= 30 GB/s): softmax tests, which kernel runs softmax:large, and
# its time. Usage: bash benchmarks/probe/gpu_verify_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.memory --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -3
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large --impls infini --reps 20 2>&1 | grep -v -i warn > $OUT/ktimes.txt; cut -c1-140 $OUT/ktimes.txt)
