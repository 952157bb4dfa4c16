# 42nd session's last call, on the H200 (landed code, fe4c4cf's kernels): the paged_attention decode bar (64 x 2048,
# MHA and GQA, against SDPA) twice, read_patterns (the GQA cache's raw read under request patterns, next to ours and
# SDPA), then the best-peer bar ops in what is left of the call's 600 s.
T0=$(date +%s)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt
for r in 1 2; do timeout 90 python3 -m infinicore_torch.bench --device cuda --shapes prefill --ops paged_attention --budget 0.2 --busy-us 100 \
  --impls infini,torch --dtypes bfloat16 --out /tmp/pa$r > $OUT/bench_pa_$r.txt 2>&1; grep -E "^paged_attention .* (infini|torch) |copy" $OUT/bench_pa_$r.txt; done
timeout 120 python3 benchmarks/probe/read_patterns.py --ops --reps 20 > $OUT/read_patterns.txt 2>&1; cat $OUT/read_patterns.txt
left=$(( 570 - ($(date +%s) - T0) )); echo "tool limit $left s"
bash benchmarks/probe/bar_ops.sh $left
