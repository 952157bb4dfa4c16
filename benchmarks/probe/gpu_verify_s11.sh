# Eleventh session, second and third calls (the third after commit "no branch or loop before the first
# load"): rope's row kernel as a 2-D block (no division, 8-byte table loads) and paged_caching's k/v loads
# kept before the slot check (relaxed gpu-scope loads): the tests that reach
# rope and paged_caching, memcheck over them, kernel durations with the peers, the tool on both ops.
# Usage: bash benchmarks/probe/gpu_verify_s11.sh
source .ci/gpu_setup.sh || exit 1
K="rope or RoPE or paged or caching"
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "$K" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
timeout 100 python3 benchmarks/probe/kernel_times.py rope:decode,prefill paged_caching:decode,prefill --reps 60 --impls infini,compile,triton 2>&1 | grep -v -i warn | tee $OUT/kernel_durations.txt
timeout 200 python3 -m infinicore_torch.bench --device cuda --ops rope,paged_caching --shapes decode,prefill,large --impls infini,torch,compile,triton --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -14
t=$(date +%s); timeout 170 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -k "$K" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
