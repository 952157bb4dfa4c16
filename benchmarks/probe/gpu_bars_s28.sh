# Twenty-eighth session, seventh call (H200), the session's final code: the comparison tool over the eight
# memory-bound bar ops (every shape set, every peer, bfloat16), twice, with the rows above 1.00 of each run.
# Usage: bash benchmarks/probe/gpu_bars_s28.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
OPS=rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --no-plots"
for r in 1 2; do
  t=$(date +%s); timeout 250 $B --ops $OPS --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b$r > $OUT/bench_$r.txt 2>&1; echo "bench $r rc $? $(( $(date +%s) - t )) s"
  python3 benchmarks/best_peer.py $OUT/bench_$r.txt > $OUT/best_peer_$r.md 2>&1; grep -E "1\.0[1-9] \||1\.[1-9][0-9]* \|" $OUT/best_peer_$r.md
done
