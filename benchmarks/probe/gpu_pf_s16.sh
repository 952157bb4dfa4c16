# Sixteenth session, first call (H200): PA_PF=N (paged decode: a bulk L2 prefetch of the keys/values N
# warp steps ahead) -- op tests with it on, the softmax tests (the fifteenth session's clusterMaxSum
# mend never ran on a GPU), and kernel times of N = 0..4 against SDPA.
# Usage: bash benchmarks/probe/gpu_pf_s16.sh
# (The knobs named here (PA_PF, PA_BULK, PA_TC1) were removed after the session's experiments:
# RESULTS.md, sixteenth session; the tile copies with 2 slots became decodeBulkKernel.)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in PA_PF=0 PA_PF=2; do
  t=$(date +%s); env $e timeout 150 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -k "softmax or paged_attention" -p no:cacheprovider > $OUT/t_${e#*=}.log 2>&1
  echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_${e#*=}.log)"; grep -E "^FAILED|Error" $OUT/t_${e#*=}.log | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py PA_PF=0,1,2,3,5 paged_attention:decode,prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_pf.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_pf.txt | sed -n '/medians/,$p'
