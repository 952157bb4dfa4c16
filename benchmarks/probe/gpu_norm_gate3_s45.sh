# 45th session, third call: the stores marked L2 evict_last (the second call's gain: the outputs stay in the L2 at
# the kernel's end, their write-back deferred) under use - 6 calls back to back on distinct buffers, and one call
# followed by a consumer of its output (y * 2) - against the landed kernels and the peers; then the tool-timed rows
# again (rounds 7) for the kept variants.
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
cd benchmarks/probe
rm -f /tmp/norm_gate.so
timeout 250 python3 norm_gate.py --ops add_rms_norm --variants 0,2,8,15,17 --pipeline 6 --rounds 5 2>&1 | grep -v Warning | tee $OUT/add.txt
timeout 200 python3 norm_gate.py --ops silu_and_mul --variants 0,4,14,16 --pipeline 6 --rounds 5 2>&1 | grep -v Warning | tee $OUT/gate.txt
timeout 100 python3 norm_gate.py --ops rms_norm --norm-rows 1024,4096,16384 --variants 0,1,7,8 --pipeline 6 --rounds 5 2>&1 | grep -v Warning | tee $OUT/rms.txt
