# Twelfth session: paged_attention decode (GQA, tensor-core kernel) with cache hints on the key/value
# loads, through the temporary knob INFINI_KNOB_PA (0 plain, 1 L2::256B, 2 L2::128B, 3 nc +
# L1::no_allocate + L2::256B; removed before committing), and ncu of ours against SDPA's kernel.
# Usage: bash benchmarks/probe/gpu_pa2_s12.sh
source .ci/gpu_setup.sh || exit 1
for k in 1 2 3; do INFINI_KNOB_PA=$k timeout 100 python3 -m pytest -q test -k "paged_attention" -p no:cacheprovider > $OUT/pa_tests$k.log 2>&1; echo "pa tests knob $k rc $?"; tail -1 $OUT/pa_tests$k.log; done
cd benchmarks/probe
timeout 200 python3 pa_layout.py INFINI_KNOB_PA=0,1,2,3 --shapes 64x2048x8,16x1024x8,8x512x8 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_hint.txt; grep -A40 "^medians" $OUT/pa_hint.txt
cd ../..
t=$(date +%s)
timeout 200 ncu --profile-from-start off --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section LaunchStats --nvtx -f -o $OUT/pa \
  python3 benchmarks/probe/ncu_probe.py paged_attention:prefill --impls infini,torch > $OUT/ncu_run.log 2>&1; echo "ncu rc $? $(( $(date +%s) - t )) s"; tail -3 $OUT/ncu_run.log
ncu --import $OUT/pa.ncu-rep --page details --print-units base --print-nvtx-rename kernel > $OUT/ncu_details.txt 2>&1
grep -E "^  [a-zA-Z_]|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per|L1/TEX Hit|L2 Hit|Stall|Issued Warp|No Eligible|Eligible Warps|Active Warps" $OUT/ncu_details.txt | head -120
