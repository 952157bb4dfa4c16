# 41st session: two temporary knobs of the working tree, each A/B'd by the tool in separate processes (2 rounds):
# INFINI_PROBE_EF (decodeBulkKernel's bulk copies: 0 plain, 1 L2 evict_first, 2 evict_unchanged policy) on
# paged_attention's prefill set (64x2048 MHA and GQA); INFINI_PROBE_THR (the tiled kernel persistent only above
# THR tiles an SM: 0 as landed, 2 = flash_persist_thr_s40.patch) on attention and paged_attention_prefill. First
# the new much-work groups test and the much-work decode tests on the landed code path.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt
timeout 120 python3 -m pytest -q test/test_ops_attention.py -k "much_work" -p no:cacheprovider > $OUT/tests.txt 2>&1
tail -1 $OUT/tests.txt; grep -E "^FAILED" $OUT/tests.txt | head
tool() { timeout 90 python3 -m infinicore_torch.bench --device cuda --budget 0.2 --busy-us 100 --impls infini,torch --dtypes bfloat16 "$@"; }
for r in 1 2; do for ef in 0 1 2; do
  INFINI_PROBE_EF=$ef tool --shapes prefill --ops paged_attention > $OUT/pa_ef${ef}_$r.txt 2>&1
  echo "== EF=$ef run $r"; grep -E "^paged_attention .* (infini|torch) " $OUT/pa_ef${ef}_$r.txt
done; done
for r in 1 2; do for thr in 0 2; do
  INFINI_PROBE_THR=$thr tool --shapes decode,prefill,large --ops attention,paged_attention_prefill > $OUT/att_thr${thr}_$r.txt 2>&1
  echo "== THR=$thr run $r"; grep -E "^(attention|paged_attention_prefill) .* (infini|torch) " $OUT/att_thr${thr}_$r.txt
done; done
