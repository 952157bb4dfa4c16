# Twenty-fourth session, review call (H200): layer_norm's two reductions over the held row written once
# (heldSum); the norm tests, memcheck over them, the tool's layer_norm rows, the softmax tests (the whole
# suite ran on the code before this in the final call). Usage: bash benchmarks/probe/gpu_review_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py test/test_autograd.py test/test_models.py -k "norm or Norm" -p no:cacheprovider > $OUT/ln_tests.txt 2>&1; echo "norm tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/ln_tests.txt)"; grep -E "^FAILED" $OUT/ln_tests.txt | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
t=$(date +%s); timeout 200 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops layer_norm --impls infini,compile --dtypes bfloat16,float16,float32 --no-plots --out $OUT/tool > $OUT/tool.txt 2>&1; echo "tool rc $? $(( $(date +%s) - t )) s"
grep -E "^layer_norm" $OUT/tool.txt | awk '{printf "%s %s %s %s | ", $2, $3, $4, $5} $4=="compile" {print ""}'
