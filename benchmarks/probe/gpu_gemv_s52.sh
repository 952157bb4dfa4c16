# 52nd session: with the gemv probe knobs applied (probe/gemv_s52.patch), the gemv dot kernel (linear / gemm with
# 1-4 rows, B as columns) and the clustered gemv row kernel (B as rows) under each launch form, back to back, after
# a torch kernel and after our swiglu (probe/pdl_loop.py); the gemm tests under the non-default forms first.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_PROBE_GEMV=1 INFINI_PROBE_ROWS=1 timeout 100 python3 -m pytest -q test/test_ops_gemm.py -p no:cacheprovider -x > /tmp/t1.txt 2>&1
echo "tests GEMV=1 ROWS=1 rc $?: $(tail -1 /tmp/t1.txt)"
INFINI_PROBE_GEMV=2 INFINI_PROBE_ROWS=2 timeout 100 python3 -m pytest -q test/test_ops_gemm.py -p no:cacheprovider -x > /tmp/t2.txt 2>&1
echo "tests GEMV=2 ROWS=2 rc $?: $(tail -1 /tmp/t2.txt)"
cd benchmarks/probe
timeout 100 python3 pdl_loop.py INFINI_PROBE_GEMV=0,1,2 linear:decode --rounds 3 --impls "" > $OUT/loop_gemv.txt 2>&1; echo "loop gemv rc $?"
cat $OUT/loop_gemv.txt
timeout 100 python3 pdl_loop.py INFINI_PROBE_ROWS=0,1,2 gemm:decode --rounds 3 --impls "" > $OUT/loop_rows.txt 2>&1; echo "loop rows rc $?"
cat $OUT/loop_rows.txt
