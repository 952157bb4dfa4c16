# The ninth session's last H100 call: norm kernels on collapsed rows take row strides (32 bytes of
# parameters) instead of four Dims (544): the norm tests, memcheck over them, kernel durations, the tool.
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py test/test_autograd.py test/test_errors.py -k "norm" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
t=$(date +%s); timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
timeout 100 python3 benchmarks/probe/kernel_times.py rms_norm:decode,prefill add_rms_norm:decode,prefill 2>&1 | grep -v Warn | tee $OUT/kernels.txt
timeout 120 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; python3 benchmarks/best_peer.py $OUT/bench.txt | tail -10
