# The ninth session's H100 verification: build, whole suite, memcheck over the op tests, silu_and_mul's row
# kernel at every size against the old flat one (knob). Usage: bash benchmarks/probe/gpu_final_s9.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 280 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
for k in "" INFINI_SILU_OLD=1; do echo "== silu $k"; env $k timeout 60 python3 -m infinicore_torch.bench --device cuda --ops silu_and_mul --shapes prefill,large --impls infini,compile --dtypes bfloat16 --budget 0.2 --no-plots --out $OUT/s > $OUT/silu.txt 2>&1; grep -E " infini | compile " $OUT/silu.txt | cut -c1-75; done
