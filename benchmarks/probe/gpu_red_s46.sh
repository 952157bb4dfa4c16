# 46th session, call 2 (temporary launch-time knobs in the working tree, not committed: INFINI_PROBE_RED=1 the
# few-row rms / add_rms kernels' block sum by common.cuh's blockSumOnce; INFINI_PROBE_XCS=1 the warp softmax
# kernel's loads not waiting on the causal limit; INFINI_PROBE_KEEP=0 rope's many-token row kernel without
# evict_last stores): the build, the op tests with the knobs on, then the A/Bs as the tool times them and by
# kernel us, and the norms' decode rows over buffer placements.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
INFINI_PROBE_RED=1 INFINI_PROBE_XCS=1 timeout 80 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "norm or softmax" > $OUT/tests.txt 2>&1
echo "tests RED=1 XCS=1 rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED" $OUT/tests.txt | head -5
cd benchmarks/probe
t=$(date +%s)
timeout 70 python3 ab_events.py INFINI_PROBE_RED=0,1 rms_norm add_rms_norm --rounds 5 --impls compile,triton,liger > $OUT/red_ab.txt 2>&1; echo "red ab rc $? $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 70 python3 placement.py rms_norm add_rms_norm --knob INFINI_PROBE_RED=0,1 --placements 8 > $OUT/place_red.txt 2>&1; echo "place red rc $? $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 50 python3 ab_knobs.py INFINI_PROBE_RED=0,1 rms_norm add_rms_norm --rounds 5 --impls compile,liger > $OUT/red_kern.txt 2>&1; echo "red kern rc $? $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 80 python3 ab_events.py INFINI_PROBE_KEEP=1,0 rope:prefill,large --rounds 5 --reps 60 --impls compile,triton > $OUT/rope_keep.txt 2>&1; echo "rope rc $? $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 40 python3 ab_knobs.py INFINI_PROBE_XCS=0,1 causal_softmax --rounds 5 --impls compile > $OUT/xcs_kern.txt 2>&1; echo "xcs kern rc $? $(( $(date +%s) - t )) s"
grep -v "^round\|Warn\|warn" $OUT/red_ab.txt $OUT/red_kern.txt $OUT/rope_keep.txt $OUT/xcs_kern.txt | tail -60
grep -A12 "over 8" $OUT/place_red.txt | grep -v "placement [0-9]"
