# 45th session, fourth call: what the stores marked evict_last leave in the L2 costs the kernels after them (the
# output read, an unrelated gemm, an unrelated streaming read), with the back-to-back and consumer timings again.
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
cd benchmarks/probe
timeout 200 python3 norm_gate.py --ops add_rms_norm --norm-rows 4096,16384 --variants 0,15 --pipeline 6 --rounds 5 2>&1 | grep -v Warning | tee $OUT/add.txt
timeout 150 python3 norm_gate.py --ops silu_and_mul --gate-rows 4096 --variants 0,14 --pipeline 6 --rounds 5 2>&1 | grep -v Warning | tee $OUT/gate.txt
timeout 150 python3 norm_gate.py --ops rms_norm --norm-rows 4096 --variants 0,7 --pipeline 6 --rounds 5 2>&1 | grep -v Warning | tee $OUT/rms.txt
