# Twentieth session (H200): the stream softmax kernel's variants one by one (SM_V: 1 the bf16 write as a
# packed fma with a split scale, 2 the exp pass without branches, 3 both; 0 the kernel as it is): softmax
# tests under SM_V=1 and 3, kernel A/B. Usage: bash benchmarks/probe/gpu_var_s20.sh
source .ci/gpu_setup.sh || exit 1
for v in 1 3; do t=$(date +%s); SM_V=$v timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t$v.log 2>&1; echo "SM_V=$v tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t$v.log)"; grep -E "^FAILED" $OUT/t$v.log | head -3; done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_V=0,1,2,3 softmax:large,prefill --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
