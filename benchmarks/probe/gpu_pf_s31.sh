# Thirty-first session, after the pushed cluster merge (gpu_pm_s31.sh): the whole suite with the nvidia backend at that
# code, then the little decode plans' partitions at XPF blocks an SM (1: the committed rule; 2, 4; the knob only
# touches the cluster case, so among the tool's shapes only 8x512) - the paged_attention tests under XPF=2 and the
# kernel us against compile. Usage: bash benchmarks/probe/gpu_pf_s31.sh
# (Ran as call 3. XPF=2 gained nothing and the knob was removed: re-run, every XPF value times the same code.)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 300 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/suite.txt)"; grep -E "^FAILED" $OUT/suite.txt | head
XPF=2 timeout 60 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests XPF=2 rc $?: $(tail -1 /tmp/t.txt)"
(cd benchmarks/probe && timeout 100 python3 ab_knobs.py XPF=1,2,4 paged_attention:decode --impls compile --rounds 5 > $OUT/ab.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab.txt)
