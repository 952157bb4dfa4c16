# The eighth session's final H100 run: build, whole suite, memcheck over the op tests, and the comparison
# tool on the changed ops (softmax, causal_softmax, rope) and the norms. Usage: bash benchmarks/probe/gpu_final_s8.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 280 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
timeout 150 python3 -m infinicore_torch.bench --device cuda --ops softmax,causal_softmax,rope,rms_norm,add_rms_norm --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; grep copy $OUT/bench.txt | head -1
