# Twenty-fourth session, fourth call (H200): layer_norm's registers path with the weights and bias loaded a
# piece at a time when rows are many, and with the row at 4 pieces a thread (float32, float16): tests,
# memcheck, kernel times, the tool's rows, then the whole suite with the nvidia backend.
# Usage: bash benchmarks/probe/gpu_ln3_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/ln_tests.txt 2>&1; echo "norm tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/ln_tests.txt)"; grep -E "^FAILED" $OUT/ln_tests.txt | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
# (kernel times: bfloat16 only, measured in the third call)
t=$(date +%s); timeout 200 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops layer_norm --impls infini,torch,compile --dtypes bfloat16,float16,float32 --no-plots --out $OUT/tool > $OUT/tool.txt 2>&1; echo "tool rc $? $(( $(date +%s) - t )) s"
grep -E "^layer_norm" $OUT/tool.txt | awk '{printf "%s %s %s %s %s | ", $2, $3, $4, $5, $6} $4=="compile" {print ""}'
grep copy $OUT/tool.txt
t=$(date +%s); timeout 280 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.txt; grep -E "^FAILED|^ERROR" $OUT/suite.txt | head
