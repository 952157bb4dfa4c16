# 49th session, call 2 (temporary launch-time knob INFINI_PROBE_GELU in the working tree, not committed: tens
# digit 1 = gelu's erf by erfNoBranch, 0 = erff; units digit the unary launch: 0 main's (unaryFlat), 1 unaryShot
# 256 threads x 16 bytes, 2 decode sizes (< 2^18) unaryShot 128 threads x 8 bytes else main's, 3 that and
# unaryShot above it; erfNoBranch's coefficients written out, as backends/common/erf_fit.h now holds them): the
# build, the gelu tests under three knob values (`-k gelu` selected none: the gelu tests are test_unary_and_strided,
# and the call's suite-wide check came after), accuracy (gelu_acc.py: its float32 ulps of the result are
# meaningless at negative x, where x (1 + erf) / 2 cancels for torch alike; the bf16 counts stand), then the A/B
# as the tool times it and by kernel us. Landed as 13 (erfNoBranch, unaryShot, 8-byte pieces at decode sizes).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
for k in 0 12; do INFINI_PROBE_GELU=$k timeout 60 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k gelu > $OUT/tests_$k.txt 2>&1; echo "tests $k: $(tail -1 $OUT/tests_$k.txt)"; done
INFINI_PROBE_GELU=13 timeout 60 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k gelu > $OUT/tests_13.txt 2>&1; echo "tests 13: $(tail -1 $OUT/tests_13.txt)"
cd benchmarks/probe
timeout 60 python3 gelu_acc.py 0,10 > $OUT/acc.txt 2>&1; echo "acc rc $?"; cat $OUT/acc.txt
t=$(date +%s)
timeout 150 python3 ab_events.py INFINI_PROBE_GELU=0,1,2,3,10,11,12,13 gelu:decode,prefill,large --rounds 5 --reps 60 --impls compile,torch > $OUT/gelu_ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 100 python3 ab_knobs.py INFINI_PROBE_GELU=0,1,2,3,10,11,12,13 gelu:decode,prefill,large --rounds 3 --impls compile,torch > $OUT/gelu_kern.txt 2>&1; echo "kern rc $? $(( $(date +%s) - t )) s"
grep -v "^round\|Warn\|warn" $OUT/gelu_ab.txt $OUT/gelu_kern.txt | tail -90
