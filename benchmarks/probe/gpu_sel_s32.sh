# Thirty-second session, call 2: the cluster merge's log-sum-exp in two forms (temporary knob XSEL, read at
# launch: 0 skips an empty part by a branch, as lseMerge does for the workspace; 1 weights it by 0, the select
# of the thirty-first session's mergeCluster): attention tests under XSEL=1, kernel us XSEL=0,1 against compile
# over 7 interleaved rounds, and the tool's paged_attention decode rows under each. Logs under $OUT.
# (Ran as call 2: XSEL=1, the select, won - 14.54 vs 15.07 us at 8x512, 32.47 vs 33.02 at 16x1024 - and landed as lseMerge<N, true> in the cluster merge; the knob XSEL was removed: re-run, both values time the same code.)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
XSEL=1 timeout 100 python3 -m pytest -q test -k "paged_attention" -p no:cacheprovider > $OUT/tests_sel.txt 2>&1; echo "tests XSEL=1 rc $?: $(tail -1 $OUT/tests_sel.txt)"
(cd benchmarks/probe && timeout 200 python3 ab_knobs.py XSEL=0,1 paged_attention:decode --impls compile --rounds 7 > $OUT/ab_sel.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_sel.txt)
for x in 0 1 0 1; do
  XSEL=$x timeout 60 python3 -m infinicore_torch.bench --device cuda --ops paged_attention --shapes decode --impls infini,compile \
    --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --no-check --out /tmp/pa > /tmp/pa.txt 2>&1
  echo "XSEL=$x rc $?"; grep -E "^paged_attention" /tmp/pa.txt | tee -a $OUT/tool_sel.txt
done
