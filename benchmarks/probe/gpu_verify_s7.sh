# Verification on the H100 after the review mends (decode placement helper, rope rotation helper):
# build, attention and rope tests, memcheck over them, decode and rope rows. bash benchmarks/probe/gpu_verify_s7.sh
source .ci/gpu_setup.sh || exit 1
timeout 200 python3 -m pytest -q test/test_ops_attention.py test/test_ops.py -k "attention or paged or rope" -p no:cacheprovider > $OUT/test_attn.log 2>&1; tail -1 $OUT/test_attn.log
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops_attention.py test/test_ops.py -k "(paged and not prefill) or rope" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
python3 -m infinicore_torch.bench --device cuda --ops paged_attention,rope --shapes decode,prefill,large --dtypes bfloat16 --budget 0.2 --no-plots --impls infini,torch --out $OUT/b 2>&1 | grep -E "paged|rope " | grep infini
