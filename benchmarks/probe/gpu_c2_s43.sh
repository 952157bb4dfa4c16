# 43rd session, call 2: where rms_norm 16x4096's 0.16 us to Liger goes (launch_gap.py: the tool's time split
# into the gap from the spin kernel to the call's first kernel, the kernels' span, and the rest), and the
# few-rows kernel's shared-memory carveout as a knob (INFINI_PROBE_RF 0: default, 3: max L1, 4: max shared).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt
for v in 3 4; do INFINI_PROBE_RF=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "rms_norm" -p no:cacheprovider > $OUT/tests_rf.txt 2>&1
echo "RF=$v tests: $(tail -1 $OUT/tests_rf.txt)"; done
cd benchmarks/probe
for k in 1 2; do timeout 100 python3 launch_gap.py rms_norm add_rms_norm --impls infini,liger,triton,compile --reps 60 2>&1 | tee -a $OUT/gap.txt; done
timeout 150 python3 ab_events.py INFINI_PROBE_RF=0,3,4 rms_norm --impls liger,triton --rounds 3 --reps 150 --busy-us 300 2>&1 | tee $OUT/ab.txt
