# Ninth session, second H100 call: which kernels small shapes launch and how long they run (profiler);
# softmax with exp as one FFMA + ex2 against __expf (env knob); the tool with --busy-us 100 on the
# memory-bound ops of the bars.
source .ci/gpu_setup.sh || exit 1
timeout 150 python3 benchmarks/probe/kernel_times.py causal_softmax:decode rope:decode rms_norm:decode silu_and_mul:decode 2>&1 | grep -v Warn | tee $OUT/kernels.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
for k in "" INFINI_SM_NOEX2=1; do echo "== softmax $k"; env $k timeout 60 python3 benchmarks/probe/time_probe.py softmax 100 2>&1 | grep -v Warn | tee $OUT/softmax_$(echo $k | tr -d =).txt; done
timeout 250 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,paged_caching --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -22
