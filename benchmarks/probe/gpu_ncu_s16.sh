# Sixteenth session, fifth call (H200): DRAM bytes read/written, L2 hit rate and DRAM throughput of the
# paged decode's kernels (registers; PA_BULK=2 ring) against SDPA's cuDNN kernel, 64x2048 GQA and MHA.
# Usage: bash benchmarks/probe/gpu_ncu_s16.sh
# (The knobs named here (PA_PF, PA_BULK, PA_TC1) were removed after the session's experiments:
# RESULTS.md, sixteenth session; the tile copies with 2 slots became decodeBulkKernel.)
source .ci/gpu_setup.sh || exit 1
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
cd benchmarks/probe
for e in PA_BULK=0 PA_BULK=2; do
  t=$(date +%s)
  env $e timeout 120 ncu --profile-from-start off --metrics $M -k 'regex:decode|combine|sdpa|flash' python3 ncu_probe.py paged_attention:prefill --impls infini,torch > $OUT/ncu_${e#*=}.txt 2>&1
  echo "ncu $e rc $? $(( $(date +%s) - t )) s"
  grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|lts__|sm__|launch__" $OUT/ncu_${e#*=}.txt | sed -E 's/^  void infini::nvidia::ops::\(anonymous namespace\)::/  /' | cut -c1-120
done
