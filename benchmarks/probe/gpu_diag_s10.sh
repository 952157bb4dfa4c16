# Tenth session, diagnosis of the small-shape gaps: ncu (warp stall reasons, source counters, SASS) of our
# kernels and the peers' at decode shapes; SASS of our kernels; softmax warp-kernel warps-a-block A/B.
# The KNOB_* environment switches existed only in the build these runs used (removed before the commit):
# the script records how the figures in benchmarks/bench_h100_s10/ were taken.
source .ci/gpu_setup.sh || exit 1
which ncu cuobjdump
ITEMS="rope causal_softmax paged_caching silu_and_mul add_rms_norm swiglu"
t=$(date +%s)
timeout 240 ncu --profile-from-start off --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
  --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis --section InstructionStats --nvtx -f -o $OUT/diag \
  python3 benchmarks/probe/ncu_probe.py $ITEMS > $OUT/ncu_run.log 2>&1; echo "ncu rc $? $(( $(date +%s) - t )) s"; tail -3 $OUT/ncu_run.log
ncu --import $OUT/diag.ncu-rep --page details --print-units base --print-nvtx-rename kernel > $OUT/ncu_details.txt 2>&1
ncu --import $OUT/diag.ncu-rep --page source --print-source sass --csv > /tmp/sass.csv 2>&1; gzip -c /tmp/sass.csv > $OUT/ncu_sass.csv.gz
ls -la $OUT
for f in $(find infinicore_torch -name "*.so"); do cuobjdump -sass $f 2>/dev/null; done | awk '/Function :/{p = ($0 ~ /ropeRow|softmaxWarp|cachingRow|siluAndMulRow|binaryFlat|normKernel|Norm/)} p' | gzip > $OUT/ours_sass.txt.gz
for w in 4 1 2; do KNOB_WPB=$w timeout 60 python3 benchmarks/probe/kernel_times.py causal_softmax:decode --reps 40 2>&1 | grep -v Warn | sed "s/^/wpb$w /"; done | tee $OUT/wpb.txt
