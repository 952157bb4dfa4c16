# The paged_attention knobs below (XPE, XPP, XPB) were probe code in attention.cu, measured and dropped (RESULTS.md,
# twenty-ninth and thirtieth sessions); they are not in backends/, so on main these runs time the final kernels only.
# The embedding knob XEM likewise: its row kernel landed without a knob (PER 1 or 2 by the launch's size).
# Twenty-ninth session, first call (H200): paged_attention decode with little work - the first step's loads
# issued before the length is known (XPE=1) and the partitions a (sequence, kv head) takes (XPP=N: N
# clusters' worth, 2-8); embedding's row kernel (XEM=1/2/4, benchmarks/probe/embedding_rows_s28.patch).
# Tests under each variant, kernel us (ab_knobs) and tool-timed (ab_events) against the peers.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
P="paged_attention or out_of_range"
for v in "XPE=0" "XPE=1 XPP=8"; do env $v timeout 120 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -k "$P" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests $v rc $?: $(tail -1 /tmp/t.txt)"; done 2>&1 | tee $OUT/tests.txt
K="embedding or out_of_range"
for v in 1 2 4; do XEM=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "$K" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests XEM=$v rc $?: $(tail -1 /tmp/t.txt)"; done 2>&1 | tee -a $OUT/tests.txt
XPE=1 XPP=8 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention_decode or ignores or bad_indices" -p no:cacheprovider > /tmp/m.txt 2>&1; echo "memcheck pa XPE=1 XPP=8 rc $?: $(grep -E 'passed|failed' /tmp/m.txt | tail -1) $(grep 'ERROR SUMMARY' /tmp/m.txt)" | tee -a $OUT/tests.txt
cd benchmarks/probe
timeout 100 python3 ab_knobs.py XPE=0,1 paged_attention:decode,prefill --impls compile,torch --rounds 3 > $OUT/ab_pe.txt 2>&1; echo "ab pe rc $?"; sed -n '/medians/,$p' $OUT/ab_pe.txt
XPE=1 timeout 100 python3 ab_knobs.py XPP=0,3,4,6,8 paged_attention:decode --impls compile --rounds 3 > $OUT/ab_pp.txt 2>&1; echo "ab pp rc $?"; sed -n '/medians/,$p' $OUT/ab_pp.txt
XPE=0 timeout 100 python3 ab_knobs.py XPP=0,4,8 paged_attention:decode --impls compile --rounds 3 > $OUT/ab_pp0.txt 2>&1; echo "ab pp0 rc $?"; sed -n '/medians/,$p' $OUT/ab_pp0.txt
XPE=1 timeout 100 python3 ab_events.py XPP=0,4,8 paged_attention:decode --impls compile,torch --rounds 3 --reps 100 > $OUT/ev_pp.txt 2>&1; echo "ev pp rc $?"; grep " us " $OUT/ev_pp.txt
timeout 120 python3 ab_knobs.py XEM=0,1,2,4 embedding:decode,prefill,large --impls compile --rounds 3 > $OUT/ab_emb.txt 2>&1; echo "ab emb rc $?"; sed -n '/medians/,$p' $OUT/ab_emb.txt
timeout 120 python3 ab_events.py XEM=0,1,2,4 embedding:decode,prefill,large --impls compile --rounds 3 --reps 100 > $OUT/ev_emb.txt 2>&1; echo "ev emb rc $?"; grep " us " $OUT/ev_emb.txt
