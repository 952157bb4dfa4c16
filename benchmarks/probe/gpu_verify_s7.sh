# Verification on the H100 after the review mend (mergeWarps shared by the two decode kernels):
# build, attention tests, memcheck over the paged decode tests, decode rows. bash benchmarks/probe/gpu_verify_s7.sh
source .ci/gpu_setup.sh || exit 1
timeout 240 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/test_attn.log 2>&1; tail -1 $OUT/test_attn.log
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops_attention.py -k "paged and not prefill" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
python3 -m infinicore_torch.bench --device cuda --ops paged_attention --shapes decode,prefill --dtypes bfloat16 --budget 0.3 --no-plots --impls infini,torch --out $OUT/b 2>&1 | grep -E "paged"
