# Twenty-second session, first call (H200): unaryShot without its vectors-a-thread parameter (unary tests);
# stream softmax kernel variants (SM_K: 0 as before; 1/2 each warp's copy split in 2/4 bulk copies; 3 stores
# .cs; 4 stores with an L2 evict_first policy; 5 bulk loads with an L2 evict_first policy; 6 each warp sends
# its own (max, sum) pair to the cluster, no block barrier): correctness, softmax tests under 6, kernel A/B.
# Usage: bash benchmarks/probe/gpu_sk_s22.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "relu or silu or gelu" -p no:cacheprovider > $OUT/unary.log 2>&1; echo "unary rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/unary.log
t=$(date +%s); SM_K=6 timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/sm6.log 2>&1; echo "sm6 tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/sm6.log
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 check_l2_s21.py SM_K=0,1,2,3,4,5,6 2>&1 | grep -v -i warn > $OUT/check.txt; echo "check $(( $(date +%s) - t )) s"; grep -E "BAD|DIFF|bad:" $OUT/check.txt
t=$(date +%s); timeout 220 python3 ab_knobs.py SM_K=0,1,2,3,4,5,6 softmax:large --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
