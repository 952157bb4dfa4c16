# 53rd session: a gathered prefill of several sequences taken from the tile list ordered by key count (most first)
# by persistent blocks, under the temporary knob INFINI_PROBE_RANK (1: on). The prefill tests under the knob,
# memcheck over them, then ours under 0 / 1 beside SDPA timed as the tool times (probe/ab_events.py).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); INFINI_PROBE_RANK=1 timeout 150 python3 -m pytest -q test/test_ops_attention.py -k "prefill or persistent" -p no:cacheprovider > $OUT/tests.txt 2>&1
echo "tests (knob 1) rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED|Error" $OUT/tests.txt | head -8
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_events.py INFINI_PROBE_RANK=0,1 paged_attention_prefill:prefill,large --impls torch --rounds 5 --reps 40 > $OUT/ab.txt 2>&1
echo "ab rc $? $(( $(date +%s) - t )) s"; tail -12 $OUT/ab.txt
cd ../..
t=$(date +%s); INFINI_PROBE_RANK=1 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "many_rows or persistent" -p no:cacheprovider > /tmp/mc.txt 2>&1
echo "memcheck (knob 1) rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2
rm -f $OUT/build.log $OUT/pip_wheels.log
