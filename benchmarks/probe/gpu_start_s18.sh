# Eighteenth session, third call (H200): the bulk-copy GQA decode (decodeBulk2Kernel, temporary) whose
# blocks start sooner (the query's and the length's loads in flight together, the first copies issued
# before the block's barrier) and, by PA_EARLY=1, issue the next copy before the step's update; PA_SPLIT=0
# is the kernel as it was. The tool end to end, interleaved.
# Usage: bash benchmarks/probe/gpu_start_s18.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 90 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/t_att.log 2>&1; echo "attention tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_att.log)"; grep -E "^FAILED" $OUT/t_att.log | head -5
t=$(date +%s); PA_EARLY=0 timeout 60 python3 -m pytest -q test/test_ops_attention.py -k "much or partitions" -p no:cacheprovider > $OUT/t_e0.log 2>&1; echo "early=0 tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_e0.log)"
for r in 1 2; do
for e in "PA_SPLIT=0" "PA_SPLIT=1 PA_EARLY=0" "PA_SPLIT=1 PA_EARLY=1"; do
t=$(date +%s); env $e timeout 90 python3 -m infinicore_torch.bench --device cuda --shapes prefill --budget 0.2 --busy-us 100 --ops paged_attention --impls infini,torch --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "paged_attention" $OUT/bench.txt | cut -c1-75 | tee -a $OUT/bench_all.txt
done; done
