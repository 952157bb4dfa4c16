# Twelfth session: paged_attention decode with the partitions of a (sequence, kv head) merged inside a
# thread-block cluster (distributed shared memory) instead of by a second kernel, and L2::256B hints on
# the tensor-core kernel's key/value loads. Temporary knob INFINI_KNOB_PA (removed before committing):
# 0 = cluster + L2::256B (the change), 1 = combine kernel + L2::256B, 2 = combine kernel, plain loads (before).
# Usage: bash benchmarks/probe/gpu_pa4_s12.sh
source .ci/gpu_setup.sh || exit 1
for k in 0 1 2; do INFINI_KNOB_PA=$k timeout 100 python3 -m pytest -q test -k "paged_attention or attention" -p no:cacheprovider > $OUT/pa_tests$k.log 2>&1; echo "attention tests knob $k rc $?"; tail -1 $OUT/pa_tests$k.log; grep -E "^FAILED" $OUT/pa_tests$k.log | head -3; done
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
cd benchmarks/probe
timeout 200 python3 pa_layout.py INFINI_KNOB_PA=0,1,2 --shapes 64x2048x8,64x2048x32,16x1024x8,8x512x8 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_cluster.txt; grep -A40 "^medians" $OUT/pa_cluster.txt | grep -v in-order
cd ../..
timeout 120 python3 -m infinicore_torch.bench --device cuda --ops paged_attention --shapes decode,prefill --impls infini,torch,compile --dtypes bfloat16 --budget 0.3 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; grep -E "paged_attention" $OUT/bench.txt | head -20
