# Twenty-sixth session, eighth call (H200): the final code (the hold softmax kernel; paged_caching with 4 tokens
# a thread between one and four waves): the whole suite with the nvidia backend, compute-sanitizer memcheck
# over the paged_caching and softmax tests, the comparison tool's paged_caching and softmax rows twice.
# Usage: bash benchmarks/probe/gpu_final2_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
t=$(date +%s); timeout 260 python3 -m pytest -q test -x -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/suite.txt)"; grep -E "^FAILED" $OUT/suite.txt | head
t=$(date +%s); timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_sampling.py test/test_ops.py -k "paged_caching or softmax_many or softmax_wide or minus_inf or nan_among" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --no-plots"
for r in 1 2; do t=$(date +%s); timeout 70 $B --ops paged_caching,softmax --impls infini,torch,compile,triton --dtypes bfloat16 --out /tmp/t$r > $OUT/tool_$r.txt 2>&1; echo "tool $r rc $? $(( $(date +%s) - t )) s"; done
grep -i "copy" $OUT/tool_1.txt | head -1
python3 benchmarks/probe/repeat_runs_s25.py $OUT/tool_*.txt | tee $OUT/repeat.md
awk '$4=="infini" {print $1, $2, $5, $10}' $OUT/tool_1.txt
