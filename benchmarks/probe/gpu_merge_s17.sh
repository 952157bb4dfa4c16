# Seventeenth session, second call (H200): paged decode partitions merged by the last to finish (per-stream
# arrival counters) -- attention tests (new: two streams at once, calls in a row, a CUDA graph), then
# temporary knobs PA_COMB=1 (combineKernel instead) and PA_PARTS=N (much work forced to N partitions),
# and the comparison tool over paged_attention. Usage: bash benchmarks/probe/gpu_merge_s17.sh
# (The knobs were removed after the session's experiments: RESULTS.md, seventeenth session.)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 200 python3 -m pytest -q test/test_ops_attention.py test/test_ops.py test/test_streams.py -k "attention or softmax or stream" -p no:cacheprovider > $OUT/t_base.log 2>&1
echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_base.log)"; grep -E "^FAILED|Error" $OUT/t_base.log | head -5
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py PA_PDL=0,1 paged_attention:decode,prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_comb.txt 2>&1; echo "ab comb rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_comb.txt | sed -n '/medians/,$p'
t=$(date +%s); timeout 150 python3 ab_knobs.py PA_PARTS=0,2,3,4 paged_attention:prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_parts.txt 2>&1; echo "ab parts rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_parts.txt | sed -n '/medians/,$p'
cd ../..
for c in 1 0; do
t=$(date +%s); PA_COMB=$c timeout 90 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill --budget 0.2 --busy-us 100 --ops paged_attention --impls infini,torch --dtypes bfloat16 --no-plots --out $OUT/b$c > $OUT/bench_pa$c.txt 2>&1; echo "bench PA_COMB=$c rc $? $(( $(date +%s) - t )) s"; grep -E "paged_attention|copy" $OUT/bench_pa$c.txt | head -12
done
