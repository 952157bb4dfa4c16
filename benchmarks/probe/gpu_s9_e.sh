# Ninth session, fifth H100 call: lean decode kernels (softmax warp a line with row strides, silu_and_mul
# and paged_caching rows without division, k/v read before the slot): tests, per-kernel durations with
# A/B knobs, the tool on the changed ops (large shapes included).
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py -k "softmax or silu or paged or rope or caching" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
for k in "" "INFINI_SM_NOWARP=1 INFINI_OLDCACHE=1 INFINI_ROPE_P2=1"; do echo "== $k"; env $k timeout 100 python3 benchmarks/probe/kernel_times.py silu_and_mul:decode causal_softmax:decode rope:decode paged_caching:decode 2>&1 | grep -v Warn | sed 's/| .*//' | tee -a $OUT/kernels.txt; done
timeout 200 python3 -m infinicore_torch.bench --device cuda --ops silu_and_mul,swiglu,causal_softmax,paged_caching,rope --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -25
