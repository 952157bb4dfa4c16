# 52nd session: the bars with this session's launches (the waiting-only dependents): host overhead, the comparison
# tool over the memory-bound ops (bf16, every peer) and over linear / gemm / random_sample (bf16, torch and compile
# beside ours), each to a share of the call's deadline, then the best-peer check.
START=$(date +%s); left() { echo $(( START + 585 - $(date +%s) )); }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 60 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
bench() {
  local name=$1 limit=$2 t=$(date +%s); shift 2
  timeout $limit python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 "$@" > $OUT/$name.txt 2>&1
  echo "$name rc $? $(( $(date +%s) - t )) s"
}
bench bench_gemv $(( $(left) > 400 ? 110 : 80 )) --ops linear,gemm,random_sample --impls infini,torch,compile --dtypes bfloat16 --out /tmp/g
bench bench $(( $(left) - 10 )) --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,embedding \
  --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b
(cd /tmp/b && tar cf $OUT/plots.tar *.png results.json 2>/dev/null)
python3 benchmarks/best_peer.py --above $OUT/bench.txt; grep -i "copy" $OUT/bench.txt | head -2
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1
grep -hE "^(linear|gemm|random_sample) " $OUT/bench_gemv.txt
exit 0
