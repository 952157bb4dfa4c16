# 53rd session: rope 1x32x128 is level with compile when the tool times it first in its process (call 2: at or under
# in 15 of 16) and above it when it comes after the norms and activations (the bar runs: 52nd session 11 of 11, this
# session's call 6). The tool over decode shapes, one process a round, alternating: A rope first (rope, rms_norm),
# B rope fifth (rms_norm, add_rms_norm, swiglu, silu_and_mul, rope), ours / compile / Triton, to the deadline.
START=$(date +%s); left() { echo $(( START + 585 - $(date +%s) )); }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
i=0
while [ $(left) -gt 35 ] && [ $i -lt 20 ]; do
  if [ $(( i % 2 )) = 0 ]; then ops=rope,rms_norm; o=A; else ops=rms_norm,add_rms_norm,swiglu,silu_and_mul,rope; o=B; fi
  t=$(date +%s)
  timeout $(( $(left) - 3 )) python3 -m infinicore_torch.bench --device cuda --shapes decode --budget 0.2 --busy-us 100 \
    --ops $ops --impls infini,compile,triton --dtypes bfloat16 --no-plots --out /tmp/o$i > /tmp/o_$i.txt 2>&1
  echo "round $i order $o rc $? $(( $(date +%s) - t )) s: $(grep -E '^(rope +1x32x128|rms_norm +16x4096) .* (infini|compile|triton) ' /tmp/o_$i.txt | awk '{printf "%s %s %s  ", $1, $4, $5}')"
  cat /tmp/o_$i.txt >> $OUT/order_all.txt
  i=$(( i + 1 ))
done
rm -f $OUT/build.log $OUT/pip_wheels.log
