# The tiled attention kernel's wgmma form with the keys/values in shared memory under the 128-byte swizzle and
# the copies a token row at a time (35th session): the attention tests (swizzled form, the default), an A/B of
# INFINI_FLASH_SW=0 (the 16-byte column layout) and 1 against SDPA timed as the tool times, then ncu of attention
# 4096 under each (source-level stall samples, the L2 throughput's breakdown).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests.txt 2>&1; tail -1 $OUT/tests.txt; grep -E "^FAILED|Error" $OUT/tests.txt | head -20
cd benchmarks/probe
timeout 150 python3 ab_events.py INFINI_FLASH_SW=${AB:-0,1} attention:prefill,large paged_attention_prefill:prefill,large --impls torch --rounds 3 --reps 40 > $OUT/ab.txt 2>&1; grep -v "^ *$" $OUT/ab.txt | tail -40
NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for sw in ${NCU_SW:-1 0}; do
  INFINI_FLASH_SW=$sw timeout 120 $NCU --clock-control none --profile-from-start off -k regex:flashKernel -c 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed --import-source no -o /tmp/r$sw python3 ncu_probe.py attention:large --impls infini > $OUT/ncu_log$sw.txt 2>&1; echo "ncu $sw rc $?"
  $NCU -i /tmp/r$sw.ncu-rep --page details > $OUT/ncu$sw.txt 2>&1
  $NCU -i /tmp/r$sw.ncu-rep --page source --csv --print-source sass > $OUT/sass$sw.csv 2>&1; echo "sass csv $sw: $(wc -l < $OUT/sass$sw.csv) lines"
  grep -E "Duration|L2 Cache Throughput|lts__|Warp Cycles Per Issued" $OUT/ncu$sw.txt | head -30
done
rm -f $OUT/build.log $OUT/pip_wheels.log
