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
timeout $left python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
  --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching \
  --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b > $OUT/bench.txt 2>&1; echo "tool rc $?"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1
grep -E "^\| (op|---)|1\.0[1-9] \||1\.[1-9][0-9]* \|" $OUT/best_peer.md | head -40; grep -i "copy" $OUT/bench.txt | head -2
