# The ninth session's H100 figures: the tool with --busy-us 100 on every op of the copy-bandwidth bars and
# the softmax probe, after the tests of the changed ops on the final (knob-free) code. Usage: bash benchmarks/probe/gpu_bench_s9.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py -k "softmax or silu or paged or caching or rope or swiglu" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
timeout 280 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -42
timeout 60 python3 benchmarks/probe/time_probe.py softmax 100 2>&1 | grep -v Warn | tee $OUT/softmax.txt
