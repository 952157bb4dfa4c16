# 50th session, call 5 (temporary launch-time knob, INFINI_PROBE_W8=1: little tensor-core decode plans that keep 4
# warps under the landed rule - attention's 1 + 2047 keys: 16 partitions and the combine kernel - take 8 warps in at
# most 8 partitions, one cluster, where that gives 64+ blocks): the build, the decode tests under the knob, kernel
# and tool-timed us against SDPA.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_PROBE_W8=1 timeout 100 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider -k "(paged_attention and not prefill) or decode or attention_with_cache" > /tmp/t.txt 2>&1
echo "tests W8=1 rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED" /tmp/t.txt | head -5
cd benchmarks/probe
timeout 60 python3 ab_knobs.py INFINI_PROBE_W8=0,1 attention --rounds 5 --impls torch,compile > $OUT/kern.txt 2>&1; echo "kern rc $?"
timeout 60 python3 ab_events.py INFINI_PROBE_W8=0,1 attention --rounds 5 --impls torch,compile > $OUT/events.txt 2>&1; echo "events rc $?"
grep -A12 "medians over rounds" $OUT/kern.txt | head -12; tail -8 $OUT/events.txt
