# Sixteenth session, second call (H200): PA_BULK=NS (the tensor-core paged decode with keys/values through
# a ring of NS bulk-copy slots a warp) -- op tests with it on (and the softmax tests: its bulk helpers
# moved to common.cuh), kernel times of NS = 0 (registers), 2, 3, 4 against SDPA.
# Usage: bash benchmarks/probe/gpu_bulk_s16.sh
# (The knobs named here (PA_PF, PA_BULK, PA_TC1) were removed after the session's experiments:
# RESULTS.md, sixteenth session; the tile copies with 2 slots became decodeBulkKernel.)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in PA_BULK=0 PA_BULK=2 PA_BULK=3 PA_BULK=4; do
  k="paged_attention"; [ $e = PA_BULK=0 ] && k="softmax or paged_attention"
  t=$(date +%s); env $e timeout 100 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -k "$k" -p no:cacheprovider > $OUT/t_${e#*=}.log 2>&1
  echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_${e#*=}.log)"; grep -E "^FAILED|Error" $OUT/t_${e#*=}.log | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py PA_BULK=0,2,3,4 paged_attention:decode,prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_bulk.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_bulk.txt | sed -n '/medians/,$p'
