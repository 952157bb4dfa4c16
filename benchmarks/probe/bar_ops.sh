# bash benchmarks/probe/bar_ops.sh LIMIT: the comparison tool over the best-peer bar ops (every shape set, every peer,
# bf16) under LIMIT seconds into $OUT/bench.txt, the best-peer table into $OUT/best_peer.md, and the rows a peer is
# faster at (best_peer.py --above); for call scripts that run it after other work (gpu_verify.sh bars: the same with
# embedding, plots and the host loop).
timeout $1 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
  --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching \
  --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b > $OUT/bench.txt 2>&1; echo "tool rc $?"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1
python3 benchmarks/best_peer.py --above $OUT/bench.txt; grep -i "copy" $OUT/bench.txt | head -2
