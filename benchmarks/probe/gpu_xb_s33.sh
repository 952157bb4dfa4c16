# paged_attention decode GQA 64x2048 with the bulk kernel's partitions merged in a cluster (XB >= 10) or by
# combineKernel (XB < 10), XB % 10 partitions forced (0: the plan's); temporary launch-time knob XB (33rd session).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for v in 10 14; do XB=$v timeout 120 python3 -m pytest -q -x test/test_ops_attention.py -k paged -p no:cacheprovider 2>&1 | tail -1; done
cd benchmarks/probe
timeout 200 python3 ab_events.py XB=0,2,10,12,14,16 paged_attention:prefill --impls torch --rounds 5 > $OUT/ab_xb.txt 2>&1; grep -v Warn $OUT/ab_xb.txt
timeout 120 python3 ab_knobs.py XB=0,10,12,14 paged_attention:prefill --impls torch --rounds 3 > $OUT/abk_xb.txt 2>&1; grep -A12 medians $OUT/abk_xb.txt
rm -f $OUT/build.log $OUT/pip_wheels.log
