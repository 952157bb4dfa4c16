# Sixteenth session, sixth call (H200): the bulk ring with one copy an 8-row tile (PA_BULK=12/13/14: 2/3/4
# slots; rows unpadded) against row copies (2) and registers (0): op tests, kernel times against SDPA.
# Usage: bash benchmarks/probe/gpu_tile_s16.sh
# (The knobs named here (PA_PF, PA_BULK, PA_TC1) were removed after the session's experiments:
# RESULTS.md, sixteenth session; the tile copies with 2 slots became decodeBulkKernel.)
source .ci/gpu_setup.sh || exit 1
for e in PA_BULK=12 PA_BULK=13; do
  t=$(date +%s); env $e timeout 100 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -k paged_attention -p no:cacheprovider > $OUT/t_${e#*=}.log 2>&1
  echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_${e#*=}.log)"; grep -E "^FAILED|Error" $OUT/t_${e#*=}.log | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py PA_BULK=0,2,12,13,14 paged_attention:decode,prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_tile.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_tile.txt | sed -n '/medians/,$p'
