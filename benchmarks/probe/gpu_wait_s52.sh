# 52nd session: with probe/wait_s52.patch applied (on top of the landed wait-only gemv dot and clustered softmax
# kernels), INFINI_PROBE_WAIT=1 launches random_sample's kernel and the bulk / hold softmax kernels as dependents
# that wait only. The sampling / softmax / chain tests under the knob, then back-to-back loops with the knob's values
# interleaved (probe/pdl_loop.py: solo, after a torch kernel, after our swiglu).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_PROBE_WAIT=1 timeout 120 python3 -m pytest -q test/test_ops.py test/test_ops_gemm.py -p no:cacheprovider \
  -k "softmax or sample or dependent or linear or gemm" > /tmp/t.txt 2>&1
echo "tests WAIT=1 rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED" /tmp/t.txt | head -5
cd benchmarks/probe
timeout 150 python3 pdl_loop.py INFINI_PROBE_WAIT=0,1 random_sample:decode,prefill softmax:decode,prefill,large linear:decode --rounds 3 --impls "" > $OUT/loop.txt 2>&1; echo "loop rc $?"
cat $OUT/loop.txt
