# Twenty-sixth session, fifth call (H200): the comparison tool three times over the bar ops (every shape set,
# every peer, bfloat16) at the final code, each run's best-peer ratios and their median per row.
# Usage: bash benchmarks/probe/gpu_repeat_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --no-plots"
O=rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching
for r in 1 2 3; do
  lim=$([ $r = 1 ] && echo 190 || echo 130)
  t=$(date +%s); timeout $lim $B --ops $O --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/r$r > $OUT/bench_$r.txt 2>&1; echo "run $r rc $? $(( $(date +%s) - t )) s"
done
grep -i "copy" $OUT/bench_1.txt | head -2
python3 benchmarks/probe/repeat_runs_s25.py $OUT/bench_*.txt > $OUT/repeat.md; cut -c1-170 $OUT/repeat.md
awk '$4=="infini" {print $1, $2, $5, $10}' $OUT/bench_1.txt  # op, shape, median us, %copy
