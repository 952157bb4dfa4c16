# Eleventh session, fifth call: rms_norm's few-row kernels with the weights' loads kept before the
# reduction (loadNow + loadsEndHere): norm tests, memcheck over them, kernel durations with the peers,
# the tool on rms_norm and add_rms_norm. Usage: bash benchmarks/probe/gpu_norm_s11.sh
source .ci/gpu_setup.sh || exit 1
K="norm or Norm"
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "$K" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
timeout 100 python3 benchmarks/probe/kernel_times.py rms_norm:decode add_rms_norm:decode --reps 60 --impls infini,compile,triton,liger 2>&1 | grep -v -i warn | tee $OUT/kernel_durations.txt
timeout 200 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -12
t=$(date +%s); timeout 170 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "$K" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
