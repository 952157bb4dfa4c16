# 43rd session, call 4 (main's kernels + a7804a8's timer check): the bench tests on CUDA (the late-host test among
# them); torch.compile's generated rms_norm code (Inductor output_code) for the large rows; ncu of ours / compile /
# Triton on rms_norm:large (flushed as the tool flushes); then the best-peer bar ops at --busy-us 100 with the check.
T0=$(date +%s)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
timeout 90 python3 -m pytest -q test/test_bench.py -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "bench tests: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED" $OUT/tests.txt
TORCH_LOGS=output_code timeout 90 python3 - > $OUT/inductor_rms.txt 2>&1 <<'PY'
import torch, infinicore_torch
from infinicore_torch.bench import specs, impls
spec = specs.specs()["rms_norm"]; dev = torch.device("cuda"); g = torch.Generator().manual_seed(0)
fn = impls.resolve("compile", spec, dev)
for p in spec.shapes["large"]:
    x = spec.make(p, torch.bfloat16, dev, g); fn(*x); torch.cuda.synchronize(); print("done", p)
PY
grep -c "triton" $OUT/inductor_rms.txt
NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
(cd benchmarks/probe && timeout 150 $NCU --clock-control none --cache-control none --profile-from-start off --section SpeedOfLight --section LaunchStats --section Occupancy --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum python3 ncu_probe.py rms_norm:large --impls infini,compile,triton --flush > $OUT/ncu.txt 2>&1; echo "ncu rc $?")
grep -E "^  [a-zA-Z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|Registers Per|Block Size|Grid Size|Achieved Occupancy|Waves Per SM|dram__bytes|Shared Memory Config" $OUT/ncu.txt | head -80
left=$(( 580 - ($(date +%s) - T0) )); echo "tool limit $left s"
bash benchmarks/probe/bar_ops.sh $left; grep "busy" $OUT/bench.txt
