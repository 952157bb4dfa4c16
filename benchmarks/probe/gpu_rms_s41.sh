# 41st session: rms_norm over many rows by persistent blocks (rmsRowsKernel) against the one-row blocks
# (INFINI_PROBE_RMS=0, a temporary knob of the working tree): the rms_norm tests, then the tool (rms_norm, the
# prefill and large sets, bf16, every peer but eager) in separate processes, two rounds. 8 files come back at most.
T0=$(date +%s)
source .ci/gpu_setup.sh > /tmp/setup.txt 2>&1 || { tail -30 /tmp/setup.txt; exit 1; }
grep build /tmp/setup.txt
timeout 100 python3 -m pytest -q test/test_ops.py -k "rms_norm" -p no:cacheprovider > $OUT/tests.txt 2>&1
tail -1 $OUT/tests.txt; grep -E "^FAILED" $OUT/tests.txt | head
for r in 1 2; do for k in 1 0; do
  left=$(( 570 - ($(date +%s) - T0) )); [ $left -lt 20 ] && break
  echo "== RMS=$k run $r" >> $OUT/tool.txt
  INFINI_PROBE_RMS=$k timeout $(( left < 90 ? left : 90 )) python3 -m infinicore_torch.bench --device cuda --shapes prefill,large --budget 0.2 \
    --busy-us 100 --ops rms_norm --impls infini,compile,triton,liger --dtypes bfloat16 >> $OUT/tool.txt 2>&1
done; done
grep -E "^== |^rms_norm .* (infini|compile|triton|liger) " $OUT/tool.txt | awk '{print $1,$2,$3,$4,$5}'
