# Fifteenth session, third call (H200): the bulk-copy softmax (SMX_BULK=KiB a block) at every softmax set
# against the peers, and SMX_SUB (its part copied in sub-parts, computed as they land).
# Usage: bash benchmarks/probe/gpu_exp3_s15.sh
# (The knobs named here were removed after the session's experiments: RESULTS.md, fifteenth session.)
source .ci/gpu_setup.sh || exit 1
for e in "SMX_BULK=64 SMX_SUB=4" "SMX_BULK=64 SMX_SUB=2" "SMX_BULK=32 SMX_SUB=8"; do
  t=$(date +%s); env $e timeout 100 python3 -m pytest -q -x test/test_ops.py -k softmax -p no:cacheprovider > $OUT/tests.txt 2>&1
  echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED|Error" $OUT/tests.txt | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py SMX_BULK=0,64 softmax:decode,prefill,large --impls compile,triton --rounds 3 --reps 20 > $OUT/ab_bulk.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_bulk.txt | sed -n '/medians/,$p'
t=$(date +%s); SMX_BULK=64 timeout 100 python3 ab_knobs.py SMX_SUB=0,2,4,8 softmax:prefill,large --impls "" --rounds 3 --reps 20 > $OUT/ab_sub64.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_sub64.txt | sed -n '/medians/,$p'
t=$(date +%s); SMX_BULK=32 timeout 80 python3 ab_knobs.py SMX_SUB=0,4,8 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_sub32.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_sub32.txt | sed -n '/medians/,$p'
