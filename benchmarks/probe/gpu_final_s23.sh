# Twenty-third session, final call (H200): no GPU kernel changed this session; the CPU backend did
# (16-bit elementwise in registers, bf16/f32 linear as dot products, transposed panel packing). The whole
# suite with the nvidia backend; the gemm tests on the host's CPU with AMX off (the vdpbf16ps and float32
# dot paths); linear/gemm on the host's CPU against torch; the softmax bar's numbers (kernel and tool).
# Usage: bash benchmarks/probe/gpu_final_s23.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" | tee $OUT/cpu.txt
t=$(date +%s); timeout 250 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.txt; grep -E "^FAILED|^ERROR" $OUT/suite.txt | head
t=$(date +%s); INFINI_CPU_AMX=0 timeout 100 python3 -m pytest -q test/test_ops_gemm.py test/test_ops.py -k "gemm or linear or add or mul or silu or gelu or swiglu or embedding" -p no:cacheprovider > $OUT/noamx.txt 2>&1; echo "no-AMX cpu tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/noamx.txt)"
(cd benchmarks/probe && timeout 120 python3 cpu_linear_s23.py --ms 1,16,64,256,512 --reps 6 2>&1 | tee $OUT/cpu_linear.txt)
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large --impls infini,compile --reps 30 2>&1 | grep -v -i warn | cut -c1-120 | tee $OUT/kernel.txt)
(cd benchmarks/probe && timeout 100 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | grep -E "case|^softmax  |^copy  " | tee $OUT/gap.txt)
