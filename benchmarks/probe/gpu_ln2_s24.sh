# Twenty-fourth session, third call (H200): layer_norm's registers path with the weights and bias loaded a
# piece at a time when rows are many (no spills at the 32-register cap; the second call's form spilled in
# bfloat16 and lost to the generic kernel at 1024+ rows): tests, memcheck, kernel times, the tool's rows.
# Usage: bash benchmarks/probe/gpu_ln2_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/ln_tests.txt 2>&1; echo "norm tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/ln_tests.txt)"; grep -E "^FAILED" $OUT/ln_tests.txt | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
(cd benchmarks/probe && timeout 90 python3 kernel_times.py layer_norm:decode,prefill,large --impls infini,compile --reps 30 2>&1 | grep -v -i warn | cut -c1-100 | tee $OUT/kernel.txt)
t=$(date +%s); timeout 200 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops layer_norm --impls infini,torch,compile --dtypes bfloat16,float16,float32 --no-plots --out $OUT/tool > $OUT/tool.txt 2>&1; echo "tool rc $? $(( $(date +%s) - t )) s"
grep -E "^layer_norm" $OUT/tool.txt | awk '{printf "%s %s %s %s %s | ", $2, $3, $4, $5, $6} $4=="compile" {print ""}'
grep copy $OUT/tool.txt
