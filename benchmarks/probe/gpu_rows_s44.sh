# 44th session, call 3: the row-major few-rows kernel's geometry (INFINI_PROBE_ROWS=CT,NT,max slices,blocks an
# SM): the gemm tests under the default and a 16-block cluster, memcheck under the latter, the sweep over
# geometries against cuBLASLt and torch.mm.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
for c in 8,256,8,3 32,256,16,3 32,512,16,2; do INFINI_PROBE_ROWS=$c timeout 100 python3 -m pytest -q test/test_ops_gemm.py -k "few_rows or gemm_2d" -p no:cacheprovider > $OUT/tests_$c.txt 2>&1; echo "gemm tests under $c: $(tail -1 $OUT/tests_$c.txt)"; done
INFINI_PROBE_ROWS=32,256,16,3 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 python3 -m pytest -q test/test_ops_gemm.py -k "few_rows and cuda" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'passed|failed' $OUT/memcheck.txt | tail -1) $(grep 'ERROR SUMMARY' $OUT/memcheck.txt | tail -1)"
cd benchmarks/probe
timeout 330 python3 gemv_sweep.py --ops gemm --kn 4096x4096,4096x11008,11008x4096,2048x2048,4096x1024 --configs "8,256,8,3;16,256,8,3;32,256,8,3;32,512,8,2;16,256,16,4;32,256,16,3;32,512,16,2" 2>&1 | tee $OUT/sweep.txt
