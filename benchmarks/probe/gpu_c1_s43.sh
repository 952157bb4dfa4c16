# 43rd session, call 1: the build with rms_few_s42.patch in the tree (knob INFINI_PROBE_RF, 0 = as landed);
# the whole attention test file (716a970's flashKernel mend, never run on a GPU); the rms_norm tests under
# RF=1 and 2; the tool-timed A/B at rms_norm's rows; read_patterns.py (d3909b5's common.cuh include) briefly.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt
timeout 120 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests_attn.txt 2>&1
echo "attention: $(tail -1 $OUT/tests_attn.txt)"; grep -E "^FAILED" $OUT/tests_attn.txt | head
for v in 1 2; do INFINI_PROBE_RF=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "rms_norm or norm" -p no:cacheprovider > $OUT/tests_rf.txt 2>&1
echo "RF=$v tests: $(tail -1 $OUT/tests_rf.txt)"; grep -E "^FAILED" $OUT/tests_rf.txt | head -3; done
(cd benchmarks/probe && timeout 110 python3 ab_events.py INFINI_PROBE_RF=0,1,2 rms_norm --impls liger,compile,triton --rounds 3 --reps 150 2>&1 | tee $OUT/ab.txt)
timeout 90 python3 benchmarks/probe/read_patterns.py --reps 3 2>&1 | tee $OUT/read_patterns.txt | tail -15
