# 49th session, call 7 (a temporary knob in the working tree, not committed; the patch is ln_moments_s49.patch, on e210a87: INFINI_PROBE_LN=0 takes layer_norm's
# two block sums, the mean's and the deviations', in the plain 2-pieces-a-thread kernels; unset or 1 the one
# reduction round of (count, mean, M2), blockMoments, the candidate; not landed): the build, the norm tests (every layer_norm
# test) under both, memcheck over them, then the A/B as the tool times it and by kernel us, torch.compile and
# torch alongside.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
export OMP_NUM_THREADS=8
for k in 1 0; do INFINI_PROBE_LN=$k timeout 90 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "norm" > $OUT/tests_$k.txt 2>&1; echo "tests LN=$k: $(tail -1 $OUT/tests_$k.txt)"; grep -E "^FAILED" $OUT/tests_$k.txt | head -3; done
t=$(date +%s)
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "layer_norm" > /tmp/mc.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s: $(grep -E "passed|failed" /tmp/mc.txt | tail -1) $(grep "ERROR SUMMARY" /tmp/mc.txt)"
cd benchmarks/probe
t=$(date +%s)
timeout 100 python3 ab_events.py INFINI_PROBE_LN=0,1 layer_norm:decode,prefill,large --rounds 5 --reps 80 --impls compile,torch > $OUT/ln_ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 80 python3 ab_knobs.py INFINI_PROBE_LN=0,1 layer_norm:decode,prefill,large --rounds 3 --impls compile,torch > $OUT/ln_kern.txt 2>&1; echo "kern rc $? $(( $(date +%s) - t )) s"
grep -v "^round\|Warn\|warn" $OUT/ln_ab.txt $OUT/ln_kern.txt | tail -40
