# Thirty-second session, call 4: combineKernel through lseMerge (XCMB=0) against its form before (XCMB=1, a
# temporary knob read at launch): kernel us over 5 interleaved rounds and the tool's paged_attention prefill-set
# rows (the bar shapes, 64x2048 MHA and GQA) alternating the knob; then `gpu_verify.sh bars`. Logs under $OUT.
# (Ran as call 4 on an H200: XCMB=0, the lseMerge form, GQA 64x2048 kernel 173.44 vs 174.03 us, tool 147.52-147.58 vs 148.22 twice; MHA level. It stays; the knob XCMB and the old form were removed: re-run, both values time the same code.)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
(cd benchmarks/probe && timeout 100 python3 ab_knobs.py XCMB=0,1 paged_attention:prefill --impls torch --rounds 5 > /tmp/ab.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' /tmp/ab.txt) | tee $OUT/ab_cmb.txt
for x in 0 1 0 1; do
  XCMB=$x timeout 60 python3 -m infinicore_torch.bench --device cuda --ops paged_attention --shapes prefill --impls infini,torch \
    --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --no-check --out /tmp/pa > /tmp/pa.txt 2>&1
  echo "XCMB=$x rc $?"; grep -E "^paged_attention" /tmp/pa.txt
done 2>&1 | tee -a $OUT/ab_cmb.txt
rm -f $OUT/build.log $OUT/pip_wheels.log
bash benchmarks/gpu_verify.sh bars
rm -f $OUT/pip_wheels.log
