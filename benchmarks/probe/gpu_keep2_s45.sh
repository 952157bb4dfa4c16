# 45th session: the evict_last output stores of swiglu/add (binary kernel) and paged_caching (many-token row kernel)
# A/B with keep_knob_s45.patch applied (INFINI_PROBE_KEEP=0: plain stores), then the bar run at the default (kept).
git apply benchmarks/probe/keep_knob_s45.patch || exit 1
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 170 python3 benchmarks/probe/keep_ab.py 2>&1 | grep -v Warning | tee $OUT/keep_ab.txt; echo "keep_ab $(( $(date +%s) - t )) s"
timeout 40 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -1 $OUT/host.txt
t=$(date +%s); timeout 200 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
  --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,embedding \
  --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; python3 benchmarks/best_peer.py --above $OUT/bench.txt
