# Twenty-fourth session, final call (H200): the session's final code. The whole suite with the nvidia backend
# (its CPU-tensor tests run the CPU backend's AVX-512 build on the host's Xeon: the 16-bit norms and the
# embedding changed this session); the CPU embedding and norms against torch on that host.
# Usage: bash benchmarks/probe/gpu_final_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" | tee $OUT/cpu.txt
t=$(date +%s); timeout 300 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.txt; grep -E "^FAILED|^ERROR" $OUT/suite.txt | head
for d in float32 bfloat16; do timeout 60 python3 benchmarks/probe/cpu_embedding_s24.py --dtype $d 2>&1 | tail -1; done
for d in float16 bfloat16; do timeout 90 python3 benchmarks/bench_cpu_ops.py --dtype $d --repeat 20 --ops rms_norm,add_rms_norm,layer_norm,embedding 2>&1 | grep -E "x4096|->" | sed "s/^/$d /"; done
