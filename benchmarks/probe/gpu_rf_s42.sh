# 42nd session, call 9: temporary knob INFINI_PROBE_RF in rms_norm's launcher for few rows (at most one block an SM;
# working tree only, kept as rms_few_s42.patch): 0 as landed (256 threads, 2 pieces a thread), 1 512 threads of 1
# piece, 2 128 threads of 4 pieces (the weights loaded with the row in all three). The rms_norm tests under 1 and 2;
# a tool-timed A/B at the decode rows against Liger, compile and Triton.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
for v in 1 2; do INFINI_PROBE_RF=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "rms_norm or norm" -p no:cacheprovider > $OUT/tests_$v.txt 2>&1
echo "RF=$v tests: $(tail -1 $OUT/tests_$v.txt)"; grep -E "^FAILED" $OUT/tests_$v.txt | head -3; done
cd benchmarks/probe
timeout 100 python3 ab_events.py INFINI_PROBE_RF=0,1,2 rms_norm --impls liger,compile,triton --rounds 3 --reps 150 2>&1 | tee $OUT/ab.txt
