# 41st session: paged decode by an even split (decodeBulkKernel<EV>) against its partitions of a fixed length
# (INFINI_PROBE_EV=0, a temporary knob of the working tree): the paged_attention tests, pa_scale.py and the tool
# (paged_attention, bf16, against SDPA) in separate processes for each, memcheck over the much-work decode tests.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention" -p no:cacheprovider > $OUT/tests.txt 2>&1
tail -1 $OUT/tests.txt; grep -E "^FAILED" $OUT/tests.txt | head
for ev in 1 0; do INFINI_PROBE_EV=$ev timeout 100 python3 benchmarks/probe/pa_scale.py --kv 8 > $OUT/pa_scale_ev$ev.txt 2>&1; echo "== EV=$ev"; cat $OUT/pa_scale_ev$ev.txt; done
for r in 1 2; do for ev in 1 0; do
  INFINI_PROBE_EV=$ev timeout 60 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
    --ops paged_attention --impls infini,torch --dtypes bfloat16 > $OUT/tool_ev${ev}_$r.txt 2>&1
  echo "== tool EV=$ev run $r"; grep -E "^paged_attention .* (infini|torch) " $OUT/tool_ev${ev}_$r.txt
done; done
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py \
  -k "even_split or (much_work and bfloat16) or partitions_on_streams" -p no:cacheprovider > $OUT/memcheck.txt 2>&1
echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
