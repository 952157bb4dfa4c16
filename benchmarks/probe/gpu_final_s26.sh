# Twenty-sixth session, fourth call (H200): the final softmax code (softmaxHoldKernel for vocabulary rows on
# every GPU): the whole suite with the nvidia backend, compute-sanitizer memcheck over the softmax tests, the
# comparison tool's softmax rows three times, kernel us against torch's copy.
# Usage: bash benchmarks/probe/gpu_final_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 260 python3 -m pytest -q test -x -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/suite.txt)"; grep -E "^FAILED" $OUT/suite.txt | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --no-plots"
for r in 1 2 3; do t=$(date +%s); timeout 60 $B --ops softmax --impls infini,torch,compile,triton --dtypes bfloat16 --out $OUT/t$r > $OUT/tool_$r.txt 2>&1; echo "tool $r rc $? $(( $(date +%s) - t )) s"; done
grep -i -E "copy|softmax" $OUT/tool_1.txt | head -12
python3 benchmarks/probe/repeat_runs_s25.py $OUT/tool_*.txt | tee $OUT/repeat.md
