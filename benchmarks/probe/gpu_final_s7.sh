# The seventh session's final H100 run: build, whole suite, memcheck over the op tests, and the
# softmax/causal_softmax/paged_attention rows with every peer. Usage: bash benchmarks/probe/gpu_final_s7.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 260 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -2 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -3
python3 -m infinicore_torch.bench --device cuda --ops softmax,causal_softmax,paged_attention --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; grep -E "copy|infini |torch |compile |triton |liger " $OUT/bench.txt | grep -v Online | head -80
