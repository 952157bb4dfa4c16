# 42nd session, calls 6-7 (7: partitions slowest in the grid; WH=2: two an SM, never whole): the bulk-copy GQA decode takes each (sequence, kv head) whole where the lengths are even
# (decodeEven on the GPU; plans whose pairs fill two-an-SM waves), with a temporary off switch INFINI_PROBE_WH=0
# (the landed plan at three blocks an SM). The attention tests; memcheck over the much-work, whole-pair and
# stream/graph tests; pa_rule.py over full, near-even, random and skewed lengths.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
timeout 200 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests.txt 2>&1
echo "attention tests: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED" $OUT/tests.txt | head -5
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider -k "much_work or whole_pairs or partitions_on_streams" > $OUT/memcheck.txt 2>&1
echo "memcheck rc $?: $(grep -E 'passed|failed' $OUT/memcheck.txt | tail -1) $(grep -E 'ERROR SUMMARY' $OUT/memcheck.txt | tail -1)"
cd benchmarks/probe
timeout 240 python3 pa_rule.py INFINI_PROBE_WH=0,1,2 --reps 30 2>&1 | tee $OUT/pa_rule.txt
