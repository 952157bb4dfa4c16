# 41st session's last call (cold build): the much-work decode tests (the new groups test among them) on the final
# code, then the best-peer bar measurement (host overhead loop; the tool over the bar ops, every set and peer, bf16;
# best_peer.py), the tool cut at what is left of the call's 600 s. 8 files come back at most.
T0=$(date +%s)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
timeout 90 python3 -m pytest -q test/test_ops_attention.py -k "much_work" -p no:cacheprovider > $OUT/tests.txt 2>&1
tail -1 $OUT/tests.txt; grep -E "^FAILED" $OUT/tests.txt | head
timeout 40 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
left=$(( 575 - ($(date +%s) - T0) )); echo "tool limit $left s"
bash benchmarks/probe/bar_ops.sh $left
