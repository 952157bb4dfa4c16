# Prepared in the 52nd session, not yet run: what in the comparison tool's full run puts rope 1x32x128 (and embedding
# 1x32000, rms_norm 16x4096) 0.16 us above compile, when timed beside compile alone they are level (call 9). The tool
# over those ops' decode shapes, one process at a time, with the implementation sets cycled: every peer; ours and
# compile; ours, compile and torch eager; ours, compile, Triton and Liger - to the call's deadline; each process's
# rows above their best peer (read together: benchmarks/repeat_runs.py).
START=$(date +%s); left() { echo $(( START + 585 - $(date +%s) )); }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
sets=("infini,torch,compile,triton,liger" "infini,compile" "infini,compile,torch" "infini,compile,triton,liger")
i=0
while [ $(left) -gt 50 ] && [ $i -lt 16 ]; do
  k=$(( i % 4 )); t=$(date +%s)
  timeout $(( $(left) - 5 )) python3 -m infinicore_torch.bench --device cuda --shapes decode --budget 0.2 --busy-us 100 \
    --ops rope,embedding,rms_norm --impls ${sets[$k]} --dtypes bfloat16 --out /tmp/c$i > $OUT/ctx_${i}_set$k.txt 2>&1
  echo "round $i set $k (${sets[$k]}) rc $? $(( $(date +%s) - t )) s"
  grep -E "^(rope +1x32x128|embedding +1x32000|rms_norm +16x4096) .* (infini|compile|liger) " $OUT/ctx_${i}_set$k.txt | awk '{print "  " $1, $2, $4, $5}'
  i=$(( i + 1 ))
done
