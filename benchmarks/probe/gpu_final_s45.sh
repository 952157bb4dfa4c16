# 45th session, final call: the build at main's final code, the whole suite but the attention tests (unchanged
# kernels; 851 passed in call 1) as two pytest processes at once, then compute-sanitizer memcheck over the op tests
# of the kernels this session changed (norms, silu_and_mul, swiglu/add/mul, paged_caching).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
timeout 250 python3 -m pytest -q test/test_ops.py test/test_ops_gemm.py test/test_ops_sampling.py -p no:cacheprovider > $OUT/suite_ops.txt 2>&1 & a=$!
timeout 250 python3 -m pytest -q test --ignore=test/test_ops_attention.py --ignore=test/test_ops.py --ignore=test/test_ops_gemm.py --ignore=test/test_ops_sampling.py -p no:cacheprovider > $OUT/suite_rest.txt 2>&1 & b=$!
wait $a; ra=$?; wait $b; rb=$?
echo "suite rc $ra/$rb $(( $(date +%s) - t )) s: ops $(tail -1 $OUT/suite_ops.txt); rest $(tail -1 $OUT/suite_rest.txt)"
grep -hE "^FAILED" $OUT/suite_ops.txt $OUT/suite_rest.txt | head
t=$(date +%s); timeout 80 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -p no:cacheprovider \
  -k "norm or silu or swiglu or add or mul or caching" > /tmp/mc.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"
grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2 | tee $OUT/memcheck_tail.txt
