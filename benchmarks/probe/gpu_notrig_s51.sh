# Prepared in the 51st session, not yet run: with probe/notrig_s51.patch applied to the working tree (git apply;
# applies to 62de559), the temporary knob INFINI_PROBE_NOTRIG=1 launches the gemv dot kernel and the clustered softmax
# kernel as programmatic dependents that do not trigger their own dependents early (wait only). The 51st session
# measured the triggering form slower back to back (linear 1x4096x4096 9.41 -> 10.36 us, softmax 16x128256 6.85 ->
# 8.83) but faster after a torch kernel (11.15 -> 9.18, 10.17 -> 9.16). The build, the linear / gemm / softmax /
# chain tests under the knob, then the back-to-back loops with the knob's values interleaved.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_PROBE_NOTRIG=1 timeout 150 python3 -m pytest -q test/test_ops_gemm.py test/test_ops.py test/test_ops_attention.py -p no:cacheprovider \
  -k "linear or gemm or softmax or dependent or back_to_back" > /tmp/t.txt 2>&1
echo "tests NOTRIG=1 rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED" /tmp/t.txt | head -5
cd benchmarks/probe
timeout 90 python3 pdl_loop.py INFINI_PROBE_NOTRIG=0,1 linear gemm softmax:decode,prefill --rounds 3 --impls "" > $OUT/loop.txt 2>&1; echo "loop rc $?"
cat $OUT/loop.txt
