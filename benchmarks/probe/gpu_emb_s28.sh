# Twenty-eighth session, tenth call (H200): embedding by a row kernel (XEM=1/2/4: a 128-thread block over a
# row's chunk of 128 * XEM 16-byte pieces, the index and every piece loaded before the stores) against the
# block-a-token kernel (XEM=0) and compile: tests and memcheck under each, kernel us and tool-timed.
# Not run: the session had no device time left. Apply benchmarks/probe/embedding_rows_s28.patch first (it adds
# the row kernel behind the XEM knob). Usage: git apply benchmarks/probe/embedding_rows_s28.patch && bash benchmarks/probe/gpu_emb_s28.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
K="embedding or out_of_range"
for v in 1 2 4; do XEM=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "$K" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests XEM=$v rc $?: $(tail -1 /tmp/t.txt)"; done
for v in 1 4; do XEM=$v timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "$K" -p no:cacheprovider > /tmp/m.txt 2>&1; echo "memcheck XEM=$v rc $?: $(grep -E 'passed|failed' /tmp/m.txt | tail -1) $(grep 'ERROR SUMMARY' /tmp/m.txt)"; done
cd benchmarks/probe
timeout 120 python3 ab_knobs.py XEM=0,1,2,4 embedding:decode,prefill,large --impls compile --rounds 3 > $OUT/ab_emb.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_emb.txt
timeout 120 python3 ab_events.py XEM=0,1,2,4 embedding:decode,prefill,large --busy-us 100 --impls compile --rounds 3 --reps 100 > $OUT/ev_emb.txt 2>&1; echo "ev rc $?"; grep " us " $OUT/ev_emb.txt
