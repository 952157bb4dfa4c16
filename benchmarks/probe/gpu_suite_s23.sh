# Twenty-third session, last call (H200): the session's final code. The whole suite with the nvidia backend;
# the CPU gemm/elementwise tests on the host's Xeon with AMX off; linear/gemm on the host's CPU against torch.
# Usage: bash benchmarks/probe/gpu_suite_s23.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
t=$(date +%s); timeout 260 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.txt; grep -E "^FAILED|^ERROR" $OUT/suite.txt | head
t=$(date +%s); INFINI_CPU_AMX=0 timeout 100 python3 -m pytest -q test/test_ops_gemm.py test/test_ops.py -k "gemm or linear or add or mul or silu or gelu or swiglu or embedding" -p no:cacheprovider > $OUT/noamx.txt 2>&1; echo "no-AMX cpu tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/noamx.txt)"
(cd benchmarks/probe && timeout 120 python3 cpu_linear_s23.py --ms 1,16,64,256,512 --reps 6 2>&1 | tee $OUT/cpu_linear.txt)
