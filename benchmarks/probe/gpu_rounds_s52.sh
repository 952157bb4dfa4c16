# 52nd session: the best-peer bar's decode rows over several processes - the comparison tool over the memory-bound
# ops' decode shapes (bf16, every peer), one process at a time, INFINI_PDL alternating 1, 0, 1, 0, ... to the
# call's deadline; each process's rows above their best peer, and every process's table (rounds_N_pdlV.txt).
START=$(date +%s); left() { echo $(( START + 585 - $(date +%s) )); }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
i=0
while [ $(left) -gt 75 ] && [ $i -lt 8 ]; do
  v=$(( (i + 1) % 2 )); t=$(date +%s)
  INFINI_PDL=$v timeout $(( $(left) - 5 )) python3 -m infinicore_torch.bench --device cuda --shapes decode --budget 0.2 --busy-us 100 \
    --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,embedding \
    --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/r$i > $OUT/rounds_${i}_pdl$v.txt 2>&1
  echo "round $i INFINI_PDL=$v rc $? $(( $(date +%s) - t )) s"
  python3 benchmarks/best_peer.py --above $OUT/rounds_${i}_pdl$v.txt
  i=$(( i + 1 ))
done
