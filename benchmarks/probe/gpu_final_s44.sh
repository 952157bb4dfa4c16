# 44th session, call 4: main with the few-rows kernels as landed (gemm.cpp's choice): build, the gemm/linear
# tests across the suite, memcheck over the few-rows tests, the tool's gemm/linear rows (bf16, float32; the
# bar), and the sweep at the decode shapes (both "gemv" and "cublasLt" columns are the landed choice now).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
timeout 120 python3 -m pytest -q test -k "gemm or linear" -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "gemm/linear tests: $(tail -1 $OUT/tests.txt)"
grep -E "^FAILED" $OUT/tests.txt | head -5
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 -m pytest -q test/test_ops_gemm.py -k "few_rows and cuda" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'passed|failed' $OUT/memcheck.txt | tail -1) $(grep 'ERROR SUMMARY' $OUT/memcheck.txt | tail -1)"
timeout 130 python3 -m infinicore_torch.bench --device cuda --ops gemm,linear --impls infini,torch --dtypes bfloat16,float32 --busy-us 100 --out /tmp/g > $OUT/bench.txt 2>&1; grep -E "^(gemm|linear) |^#" $OUT/bench.txt; cp /tmp/g/*.png $OUT/ 2>/dev/null
cd benchmarks/probe
timeout 100 python3 gemv_sweep.py --kn 4096x4096,4096x11008,2048x2048 --rows 1,2,4 --rounds 3 --reps 40 2>&1 | tee $OUT/sweep.txt
