# 46th session, call 1 (with temporary launch-time knobs in the working tree, not committed: INFINI_PROBE_XSM
# silu_and_mul's decode tile geometry 0 landed / 1 column tiles along x / 2 16-byte pieces x 64 threads / 3 both;
# INFINI_PROBE_XCS=1 the warp softmax kernel's loads not waiting on the causal limit; INFINI_PROBE_KEEP=0 rope's
# many-token row kernel without evict_last stores): the build, the knob values' op tests, the decode rows over
# buffer placements (placement.py), kernel us under the knobs (ab_knobs.py), rope's A/B as the tool times.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
for kv in INFINI_PROBE_XSM=1 INFINI_PROBE_XSM=2 INFINI_PROBE_XSM=3 INFINI_PROBE_XCS=1 INFINI_PROBE_KEEP=0 INFINI_PROBE_KEEP=1; do
  env $kv timeout 60 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "silu or softmax or rope" > /tmp/t.txt 2>&1
  echo "tests $kv rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED" /tmp/t.txt | head -5
done >> $OUT/tests.txt; cat $OUT/tests.txt; echo "tests $(( $(date +%s) - t )) s"
cd benchmarks/probe
t=$(date +%s)
timeout 120 python3 placement.py silu_and_mul --knob INFINI_PROBE_XSM=0,1,2,3 --placements 12 > $OUT/place_silu.txt 2>&1; echo "place silu rc $?"
timeout 90 python3 placement.py causal_softmax --knob INFINI_PROBE_XCS=0,1 --placements 12 --impls compile,triton > $OUT/place_cs.txt 2>&1; echo "place cs rc $?"
timeout 90 python3 placement.py rms_norm paged_caching --placements 12 > $OUT/place_other.txt 2>&1; echo "place other rc $?"
echo "placement $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 60 python3 ab_knobs.py INFINI_PROBE_XSM=0,1,2,3 silu_and_mul --rounds 5 > $OUT/kern.txt 2>&1; echo "kern silu rc $?"
timeout 60 python3 ab_knobs.py INFINI_PROBE_XCS=0,1 causal_softmax --rounds 5 >> $OUT/kern.txt 2>&1; echo "kern cs rc $?"
timeout 100 python3 ab_events.py INFINI_PROBE_KEEP=1,0 rope:prefill,large --rounds 5 --impls compile,triton > $OUT/rope_keep.txt 2>&1; echo "rope rc $?"
echo "knobs $(( $(date +%s) - t )) s"
grep -A30 "medians over rounds" $OUT/kern.txt | head -40; cat $OUT/rope_keep.txt | tail -15
grep -A12 "over 12" $OUT/place_*.txt
