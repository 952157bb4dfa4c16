# 49th session, call 8 (a temporary knob in the working tree, not committed; landed as GT=1 in the next commit: INFINI_PROBE_GT=1 runs gelu's tanh form
# in one pass, as the erf form now is - unaryShot, 8-byte pieces in 128-thread blocks under 2^18 elements; 0 the
# grid-stride kernel it had): the build, the unary/gelu tests under both, then gelu_tanh.py (the tool's timer,
# torch and torch.compile alongside).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
export OMP_NUM_THREADS=8
for k in 0 1; do INFINI_PROBE_GT=$k timeout 60 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "unary or gelu" > $OUT/tests_$k.txt 2>&1; echo "tests GT=$k: $(tail -1 $OUT/tests_$k.txt)"; grep -E "^FAILED" $OUT/tests_$k.txt | head -3; done
cd benchmarks/probe
t=$(date +%s)
timeout 150 python3 gelu_tanh.py INFINI_PROBE_GT=0,1 --rounds 5 > $OUT/gt_ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"
grep -v "Warn\|warn" $OUT/gt_ab.txt | tail -25
