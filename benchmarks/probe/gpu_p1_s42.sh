# 42nd session, call 3: temporary knob INFINI_PROBE_P1 in the paged decode's launcher (working tree only; kept as
# decode_p1_s42.patch), for the bulk-copy GQA kernel: 0 as landed (3 partitions at 64x2048, 3 blocks an SM); 1 one
# partition (no combine kernel), 2 slots (3 blocks an SM: 1.3 waves); 2 one partition, 3 slots a warp (2 an SM:
# 1.94 waves, as SDPA's 512 blocks); 3 one partition, 2 slots, shared memory padded to 2 blocks an SM; 4 two
# partitions, 3 slots (2 an SM: 3.9 waves). The much-work tests under 1, 2, 4; tool-timed A/B at 64x2048 and by batch.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
for v in 1 2 4; do INFINI_PROBE_P1=$v timeout 100 python3 -m pytest -q test/test_ops_attention.py -k "much_work or partitions_on_streams" -p no:cacheprovider > $OUT/tests_$v.txt 2>&1
echo "P1=$v tests: $(tail -1 $OUT/tests_$v.txt)"; grep -E "^FAILED" $OUT/tests_$v.txt | head -3; done
cd benchmarks/probe
timeout 200 python3 ab_events.py INFINI_PROBE_P1=0,1,2,3,4 paged_attention:prefill --impls torch --rounds 3 --reps 30 2>&1 | grep -v "x32/32x128" | tee $OUT/ab.txt
