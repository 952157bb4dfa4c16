# The paged_attention knobs below (XPE, XPP, XPB) were probe code in attention.cu, measured and dropped (RESULTS.md,
# twenty-ninth and thirtieth sessions); they are not in backends/, so on main these runs time the final kernels only.
# Twenty-ninth session, second call (H200): paged_attention decode with little work through decodeBulkKernel
# (bulk copies, a ring of two steps a warp) merged in a cluster (XPB=1), by partitions (XPP=N); the first
# step's loads early (XPE=1) again; embedding's row kernel in its final form (no knob). Tests (and memcheck)
# under the variants, kernel us (ab_knobs) and tool-timed (ab_events) against the peers.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
mkdir -p /tmp/r
P="paged_attention or out_of_range"
for v in "XPE=0" "XPE=1" "XPB=1" "XPB=1 XPP=4" "XPB=1 XPP=8"; do env $v timeout 100 python3 -m pytest -q test/test_ops_attention.py -k "$P" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests $v rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED|Error" /tmp/t.txt | head -5; done 2>&1 | tee /tmp/r/tests.txt
timeout 100 python3 -m pytest -q test/test_ops.py -k "embedding or out_of_range" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests embedding rc $?: $(tail -1 /tmp/t.txt)" | tee -a /tmp/r/tests.txt
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "embedding" -p no:cacheprovider > /tmp/m.txt 2>&1; echo "memcheck embedding rc $?: $(grep -E 'passed|failed' /tmp/m.txt | tail -1) $(grep 'ERROR SUMMARY' /tmp/m.txt)" | tee -a /tmp/r/tests.txt
XPB=1 XPP=4 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention_decode or ignores or bad_indices" -p no:cacheprovider > /tmp/m.txt 2>&1; echo "memcheck pa XPB=1 XPP=4 rc $?: $(grep -E 'passed|failed' /tmp/m.txt | tail -1) $(grep 'ERROR SUMMARY' /tmp/m.txt)" | tee -a /tmp/r/tests.txt
cd benchmarks/probe
XPP=4 timeout 100 python3 ab_knobs.py XPB=0,1 paged_attention:decode --impls compile --rounds 3 > /tmp/r/ab_pb.txt 2>&1; echo "ab pb rc $?"; sed -n '/medians/,$p' /tmp/r/ab_pb.txt
XPB=1 timeout 100 python3 ab_knobs.py XPP=0,2,3,4,6,8 paged_attention:decode --impls compile --rounds 3 > /tmp/r/ab_pp.txt 2>&1; echo "ab pp rc $?"; sed -n '/medians/,$p' /tmp/r/ab_pp.txt
timeout 100 python3 ab_events.py XPB=0,1 paged_attention:decode --impls compile,torch --rounds 3 --reps 100 > /tmp/r/ev_pb.txt 2>&1; echo "ev pb rc $?"; grep " us " /tmp/r/ev_pb.txt
cd ../..
timeout 200 python3 -m infinicore_torch.bench --device cuda --ops embedding --shapes decode,prefill,large --busy-us 100 > /tmp/r/bench_emb.txt 2>&1; echo "bench emb rc $?"; grep -v "^\s*$" /tmp/r/bench_emb.txt | tail -30
tar czf $OUT/r.tgz -C /tmp r
