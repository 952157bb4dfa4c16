# Twelfth session: the tensor-core decode kernel's key/value loads not kept in L1 with little work (as
# committed). Attention tests, memcheck over test_ops_attention.py, kernel durations against SDPA, the
# tool's paged_attention rows. Usage: bash benchmarks/probe/gpu_verify2_s12.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "attention" -p no:cacheprovider > $OUT/pa_tests.log 2>&1; echo "attention tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/pa_tests.log; grep -E "^FAILED" $OUT/pa_tests.log | head -3
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
cd benchmarks/probe
timeout 100 python3 pa_layout.py --shapes 64x2048x8,64x2048x32,16x1024x8,8x512x8 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_final2.txt; grep -A40 "^medians" $OUT/pa_final2.txt | grep -v in-order
cd ../..
timeout 120 python3 -m infinicore_torch.bench --device cuda --ops paged_attention --shapes decode,prefill,large --impls infini,torch,compile --dtypes bfloat16 --budget 0.3 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench_pa.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench_pa.txt 2>&1 | tail -5
