# Twenty-second session, last call: the whole suite with the nvidia backend on the session's final code (the
# CPU backend's bfloat16 gemm/linear on AVX512-BF16 changed after the final GPU-kernel call), and which CPU
# path the host's gemm takes. Usage: bash benchmarks/probe/gpu_suite_s22.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
grep -m1 "model name" /proc/cpuinfo | tee $OUT/cpu.txt; grep -o "avx512_bf16\|amx_tile" /proc/cpuinfo | sort -u | tr '\n' ' ' | tee -a $OUT/cpu.txt; echo
t=$(date +%s); timeout 300 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); INFINI_CPU_AMX=0 timeout 100 python3 -m pytest -q test/test_ops_gemm.py -p no:cacheprovider > $OUT/gemm_noamx.log 2>&1; echo "gemm tests without AMX rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/gemm_noamx.log)"
