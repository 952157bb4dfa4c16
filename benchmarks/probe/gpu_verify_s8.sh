# The eighth session's H100 verification of the rope row kernel in its final form (32-bit offsets,
# index type fixed at compile time): rope timings, whole suite, memcheck over the rope tests, the
# comparison tool on rope. (The first loop times a diagnostic softmax knob of that build, since removed.)
source .ci/gpu_setup.sh || exit 1
P=benchmarks/probe/time_probe.py
for d in 0 1 2; do echo "== INFINI_SMD=$d"; INFINI_SMD=$d timeout 100 python3 $P softmax 100 2>&1 | grep -v Warn; done | tee $OUT/softmax_diag.txt
timeout 60 python3 $P rope 300 2>&1 | tee $OUT/rope.txt
t=$(date +%s); timeout 230 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q -x test/test_ops.py -k rope -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
timeout 60 python3 -m infinicore_torch.bench --device cuda --ops rope --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"
