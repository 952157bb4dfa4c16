# 42nd session, call 1: the build; the decode tests that fe4c4cf's decode_ref refactor touched (not yet run on a
# GPU); read_patterns.py (the GQA decode bar's cache read under several request patterns, no math) with
# paged_attention and SDPA in the same interleaving.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py -k "much_work or partitions_on_streams" -p no:cacheprovider > $OUT/tests.txt 2>&1
tail -1 $OUT/tests.txt; grep -E "^FAILED" $OUT/tests.txt | head
timeout 200 python3 benchmarks/probe/read_patterns.py --ops --reps ${REPS:-20} 2>&1 | tee $OUT/read_patterns.txt
