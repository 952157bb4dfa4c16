# 42nd session, call 2: temporary knob INFINI_PROBE_NM in decodeBulkKernel (working tree only; kept as
# decode_nm_s42.patch): 0 as landed, 1 the kernel without its math (the copies, waits, block starts, merge and
# combine kept), 2 the slot's keys and values read into registers and the slot re-issued before the math.
# The much-work tests under 2; tool-timed and kernel-us A/Bs at 64x2048 MHA and GQA; read_patterns (contiguous
# rows fixed: a block a (sequence, head)).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
INFINI_PROBE_NM=2 timeout 120 python3 -m pytest -q test/test_ops_attention.py -k "much_work or partitions_on_streams" -p no:cacheprovider > $OUT/tests.txt 2>&1
echo "NM=2 tests: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED" $OUT/tests.txt | head
cd benchmarks/probe
timeout 150 python3 ab_events.py INFINI_PROBE_NM=0,1,2 paged_attention:prefill --impls torch --rounds 3 --reps 30 2>&1 | tee $OUT/ab.txt
timeout 150 python3 ab_knobs.py INFINI_PROBE_NM=0,1,2 paged_attention:prefill --impls torch --rounds 3 --reps 20 2>&1 | tail -12 | tee -a $OUT/ab.txt
timeout 120 python3 read_patterns.py --reps 20 2>&1 | tee $OUT/read_patterns.txt
