# Thirty-second session, call 1: the shared log-sum-exp merge (attention.cu lseMerge) checked by the attention
# tests and the paged_attention rows; then the bar ops' decode rows (and paged_caching's large ones) over four
# separate runs of the comparison tool, with benchmarks/repeat_runs.py's table. Logs under $OUT.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 120 python3 -m pytest -q test -k "attention" -p no:cacheprovider > $OUT/pa_tests.txt 2>&1
echo "attention tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/pa_tests.txt)"; grep -E "^FAILED" $OUT/pa_tests.txt | head
t=$(date +%s); timeout 100 python3 -m infinicore_torch.bench --device cuda --ops paged_attention --shapes decode,large --impls infini,torch,compile \
  --dtypes bfloat16 --budget 0.15 --busy-us 100 --no-plots --out /tmp/pa > $OUT/pa_bench.txt 2>&1
echo "pa bench rc $? $(( $(date +%s) - t )) s"; grep -E "^paged_attention .* (infini|torch|compile) " $OUT/pa_bench.txt
mkdir -p /tmp/runs
for i in 1 2 3 4; do
  t=$(date +%s)
  timeout 90 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching \
    --shapes decode --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots $([ $i -gt 1 ] && echo --no-check) \
    --out /tmp/r$i > /tmp/runs/decode_$i.txt 2>&1
  echo "decode run $i rc $? $(( $(date +%s) - t )) s"
  t=$(date +%s)
  timeout 40 python3 -m infinicore_torch.bench --device cuda --ops paged_caching --shapes large --impls infini,torch,compile \
    --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --no-check --out /tmp/q$i > /tmp/runs/pc_large_$i.txt 2>&1
  echo "paged_caching large run $i rc $? $(( $(date +%s) - t )) s"
  cat /tmp/runs/decode_$i.txt /tmp/runs/pc_large_$i.txt > /tmp/runs/run_$i.txt
done
python3 benchmarks/repeat_runs.py /tmp/runs/run_*.txt > $OUT/repeat.md 2>&1; cat $OUT/repeat.md
(cd /tmp/runs && tar cf $OUT/runs.tar *.txt)
