# 50th session, calls 2-3 (call 3: tests under 2 4 5, knobs 0,1,2,4,5) (temporary launch-time knob in the working tree, INFINI_PROBE_DEC: the little tensor-core
# decode plan (8x512, 16x1024 GQA) 0 as landed / 1 its first reads issued together (length, block ids, queries) /
# 2 that and 8 warps a block, one block an SM / 3 8 warps alone): the build, the attention tests under each knob,
# kernel us (ab_knobs.py) and tool-timed us (ab_events.py) under the knobs against SDPA (torch, compile).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
export OMP_NUM_THREADS=4
for k in 2 4 5; do
  (INFINI_PROBE_DEC=$k timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider -k "(paged_attention and not prefill) or decode" > /tmp/t$k.txt 2>&1
   echo "tests DEC=$k rc $?: $(tail -1 /tmp/t$k.txt)"; grep -E "^FAILED" /tmp/t$k.txt | head -5) &
done > $OUT/tests.txt; wait; cat $OUT/tests.txt; echo "tests $(( $(date +%s) - t )) s"
unset OMP_NUM_THREADS
cd benchmarks/probe
t=$(date +%s)
timeout 120 python3 ab_knobs.py INFINI_PROBE_DEC=0,1,2,4,5 paged_attention attention --rounds 5 --impls torch,compile > $OUT/kern.txt 2>&1; echo "kern rc $? $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 150 python3 ab_events.py INFINI_PROBE_DEC=0,1,2,4,5 paged_attention attention --rounds 5 --impls torch,compile > $OUT/events.txt 2>&1; echo "events rc $? $(( $(date +%s) - t )) s"
grep -A40 "medians over rounds" $OUT/kern.txt | head -40; cat $OUT/events.txt | tail -30
