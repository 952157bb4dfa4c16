# Twenty-first session (H200): the bound on work for the warp-a-line softmax kernel (SM_WB: log2 of rows x
# pieces; 16 as before) on the decode/prefill causal_softmax rows, against torch.compile; tests at 18.
# Usage: bash benchmarks/probe/gpu_wb_s21.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py SM_WB=16,17,18 causal_softmax:decode softmax:decode --reps 40 --rounds 3 --impls compile > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
cd ../..; t=$(date +%s); SM_WB=18 timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests(18) rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"
