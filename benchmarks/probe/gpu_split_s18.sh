# Eighteenth session, first call (H200): the review mends of the seventeenth session (not yet run on a GPU)
# and the bulk-copy GQA decode with keys and values in separate 16-row slots (3 a warp, 48 KiB: 4 blocks
# an SM; temporary knob PA_SPLIT=0 for the 2-slot kernel), partitions by PA_PARTS.
# Usage: bash benchmarks/probe/gpu_split_s18.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
#t=$(date +%s); timeout 90 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/t_att.log 2>&1; echo "attention tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_att.log)"; grep -E "^FAILED" $OUT/t_att.log | head -5
#t=$(date +%s); PA_SPLIT=0 timeout 60 python3 -m pytest -q test/test_ops_attention.py -k "much or partitions" -p no:cacheprovider > $OUT/t_old.log 2>&1; echo "split=0 tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_old.log)"
cd benchmarks/probe
t=$(date +%s); timeout 90 python3 ab_knobs.py PA_SPLIT=0,1 paged_attention:prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_split.txt 2>&1; echo "ab split rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_split.txt | sed -n '/medians/,$p'
t=$(date +%s); timeout 90 python3 ab_knobs.py PA_PARTS=2,3,4,5,6 paged_attention:prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_parts.txt 2>&1; echo "ab parts rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_parts.txt | sed -n '/medians/,$p'
cd ../..
for e in "PA_SPLIT=1" "PA_SPLIT=0" "PA_SPLIT=1 PA_PARTS=4" "PA_SPLIT=1"; do
t=$(date +%s); env $e timeout 90 python3 -m infinicore_torch.bench --device cuda --shapes prefill --budget 0.2 --busy-us 100 --ops paged_attention --impls infini,torch --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "paged_attention" $OUT/bench.txt | cut -c1-75 | tee -a $OUT/bench_all.txt
done
