# 44th session: the few-rows gemm kernels (gemv.cu): build, the gemm tests (CUDA tensors and the infini device),
# compute-sanitizer memcheck over the few-rows test, kernels each side launches, the sweep against cuBLASLt and
# torch, and the tool's gemm/linear rows.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
timeout 120 python3 -m pytest -q test/test_ops_gemm.py -p no:cacheprovider -x > $OUT/tests.txt 2>&1; echo "gemm tests: $(tail -1 $OUT/tests.txt)"
grep -E "FAILED|Error" $OUT/tests.txt | head -5
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 python3 -m pytest -q test/test_ops_gemm.py -k "few_rows and cuda" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?: $(grep -E 'passed|failed' $OUT/memcheck.txt | tail -1) $(grep -c 'Invalid\|ERROR SUMMARY: [1-9]' $OUT/memcheck.txt)"
cd benchmarks/probe
timeout 60 python3 kernel_times.py gemm linear --impls infini,torch 2>&1 | grep -v Warn | tee $OUT/kernels.txt
timeout 200 python3 gemv_sweep.py 2>&1 | tee $OUT/sweep.txt
cd ../..
timeout 120 python3 -m infinicore_torch.bench --device cuda --ops gemm,linear --impls infini,torch --dtypes bfloat16,float32 --busy-us 100 --no-plots --out /tmp/g 2>&1 | tee $OUT/bench.txt | head -20
