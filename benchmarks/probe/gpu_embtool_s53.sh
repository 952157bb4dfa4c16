# 53rd session: embedding 1x32000 sits 0.06-0.17 us above compile in every one of 16 tool processes (call 2), yet
# level with it timed beside compile alone (52nd session, ab_events.py). With probe/emb_s52.patch applied
# (INFINI_PROBE_EMB: 0 as committed, 1 <<<>>>, 2 no index check, 3 one block of 4 pieces a thread, 4 <<<>>> and no
# check), the tool itself (embedding decode, ours and compile) in one process per knob value, the values cycled to
# the deadline; then compile's generated kernel for the 1-token call.
START=$(date +%s); left() { echo $(( START + 585 - $(date +%s) )); }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
mkdir -p /tmp/code; TORCH_LOGS=output_code python3 - > $OUT/compile_code.txt 2>&1 <<'PY'
import torch, torch.nn.functional as F
w = torch.randn(32000, 4096, device="cuda", dtype=torch.bfloat16); i = torch.randint(0, 32000, (1,), device="cuda")
f = torch.compile(lambda i, w: F.embedding(i, w)); f(i, w); torch.cuda.synchronize()
PY
grep -nE "def triton|XBLOCK|num_warps|grid|tl.load|device_assert|eviction" $OUT/compile_code.txt | head -30
i=0
while [ $(left) -gt 40 ] && [ $i -lt 30 ]; do
  k=$(( i % 5 )); t=$(date +%s)
  INFINI_PROBE_EMB=$k timeout $(( $(left) - 5 )) python3 -m infinicore_torch.bench --device cuda --shapes decode --budget 0.2 --busy-us 100 \
    --ops embedding --impls infini,compile --dtypes bfloat16 --no-plots --out /tmp/e$i > /tmp/emb_$i.txt 2>&1
  echo "round $i knob $k rc $? $(( $(date +%s) - t )) s: $(grep -E '^embedding +1x32000 .* (infini|compile) ' /tmp/emb_$i.txt | awk '{printf "%s %s  ", $4, $5}')"
  cat /tmp/emb_$i.txt >> $OUT/emb_all.txt
  i=$(( i + 1 ))
done
rm -f $OUT/build.log $OUT/pip_wheels.log
