# 47th session, call 1 (temporary knob INFINI_PROBE_PF in the working tree: the few-row rms kernels and
# silu_and_mul's decode tile kernel issue an L2 prefetch of their output lines before the reduction / after the
# loads: 1 a line a warp after the loads, 2 every output line after the loads, 3 a line a warp before the loads;
# the question: does the first store's address translation (TLB) after the tool's 256 MB flush sit on the
# decode rows' path): the build, the knob values' op tests, kernel us (ab_knobs.py), the decode rows over buffer
# placements with each output's page against its input's (placement.py).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
for kv in INFINI_PROBE_PF=1 INFINI_PROBE_PF=2 INFINI_PROBE_PF=3; do
  env $kv timeout 60 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "rms_norm or silu" > /tmp/t.txt 2>&1
  echo "tests $kv rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED" /tmp/t.txt | head -5
done > $OUT/tests.txt; cat $OUT/tests.txt; echo "tests $(( $(date +%s) - t )) s"
cd benchmarks/probe
t=$(date +%s)
timeout 90 python3 ab_knobs.py INFINI_PROBE_PF=0,1,2,3 rms_norm add_rms_norm --rounds 5 --impls compile,liger > $OUT/kern.txt 2>&1; echo "kern norm rc $?"
timeout 60 python3 ab_knobs.py INFINI_PROBE_PF=0,1,2,3 silu_and_mul --rounds 5 >> $OUT/kern.txt 2>&1; echo "kern silu rc $?"
echo "knobs $(( $(date +%s) - t )) s"; t=$(date +%s)
timeout 150 python3 placement.py rms_norm --knob INFINI_PROBE_PF=0,1,2,3 --placements 12 --impls compile,liger > $OUT/place_rms.txt 2>&1; echo "place rms rc $?"
timeout 120 python3 placement.py silu_and_mul --knob INFINI_PROBE_PF=0,1,2,3 --placements 12 --impls compile,triton > $OUT/place_silu.txt 2>&1; echo "place silu rc $?"
echo "placement $(( $(date +%s) - t )) s"
grep -A40 "medians over rounds" $OUT/kern.txt | head -50
grep -A14 "over 12" $OUT/place_*.txt; grep -h "placement 0\|placement 1:" $OUT/place_*.txt
