# 45th session: the best-peer bar's large rows (norm_gate.py: landed kernels, variants, our Triton kernels and
# torch.compile, timed as the tool times), then ncu over the 4096-row shapes (duration at ncu's locked clocks,
# registers, occupancy, DRAM throughput and bytes). No package build (nvcc builds norm_gate.cu, ~30 s).
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
cd benchmarks/probe
timeout 330 python3 norm_gate.py ${NG_ARGS:-} 2>&1 | grep -v Warning | tee $OUT/norm_gate.txt
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 200 $NCU -k regex:"normK|gate|rms_norm_kernel|triton_" --metrics \
gpu__time_duration.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum \
  python3 norm_gate.py --profile --norm-rows 4096 --gate-rows 4096 > $OUT/ncu_norm_gate.txt 2>&1
echo "ncu rc $?"
python3 - $OUT/ncu_norm_gate.txt <<'PY' | tee $OUT/ncu_summary.txt
import re, sys
kern, rows = None, []
for line in open(sys.argv[1]):
    m = re.match(r"\s{2}(\S.*?)\s\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
    if m:
        kern = m.group(1)[:90]; rows.append([kern, {}]); continue
    m = re.match(r"\s+(\S+__\S+)\s+(?:(\S+)\s+)?([\d.,]+)\s*$", line)
    if m and rows:
        rows[-1][1][m.group(1)] = m.group(3)
for k, d in rows:
    print(f"{k:90s} " + " ".join(f"{n.split('__')[1][:18]}={v}" for n, v in d.items()))
PY
