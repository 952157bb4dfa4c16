# 42nd session, call 4: the whole-pair plan of the bulk-copy GQA decode (one partition a (sequence, kv head) at two
# blocks an SM where those pairs fill the waves) with a temporary off switch INFINI_PROBE_WH=0 (the landed plan):
# the attention tests (the much-work ones take it on 132 SMs), pa_rule.py over full, random and skewed lengths.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
timeout 200 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider -x > $OUT/tests.txt 2>&1
echo "attention tests: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED" $OUT/tests.txt | head -3
cd benchmarks/probe
timeout 240 python3 pa_rule.py INFINI_PROBE_WH=0,1 --reps 30 2>&1 | tee $OUT/pa_rule.txt
