# Eighteenth session, fifth call (H200): the flat elementwise kernels' blocks over contiguous chunks
# (temporary knob EW_LOCAL=1) and grids capped at EW_CAP blocks an SM, against the grid-stride layout;
# relu keeping -0 (as torch). Tests under each layout, then kernel times (ab_knobs) and the tool.
# Usage: bash benchmarks/probe/gpu_ew_s18.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
K="relu or add or mul or swiglu or silu or gelu or streamed"
for e in "EW_LOCAL=0" "EW_LOCAL=1" "EW_LOCAL=1 EW_CAP=8"; do
t=$(date +%s); env $e timeout 120 python3 -m pytest -q test/test_ops.py -k "$K" -p no:cacheprovider > $OUT/t.log 2>&1; echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -5
done
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py EW_LOCAL=0,1 add:prefill,large swiglu:prefill,large relu:prefill,large --impls torch --rounds 3 --reps 20 > $OUT/ab_local.txt 2>&1; echo "ab local rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_local.txt | sed -n '/medians/,$p'
t=$(date +%s); EW_LOCAL=1 timeout 150 python3 ab_knobs.py EW_CAP=0,4,8,16 add:prefill,large relu:prefill,large --impls "" --rounds 3 --reps 20 > $OUT/ab_cap.txt 2>&1; echo "ab cap rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_cap.txt | sed -n '/medians/,$p'
cd ../..
for e in "EW_LOCAL=0" "EW_LOCAL=1"; do
t=$(date +%s); env $e timeout 150 python3 -m infinicore_torch.bench --device cuda --shapes prefill,large --budget 0.2 --busy-us 100 --ops add,swiglu,relu --impls infini,torch,compile,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "^(add|swiglu|relu) " $OUT/bench.txt | awk '{print $1,$2,$4,$5}' | tee -a $OUT/bench_all.txt | paste - - - - | head -20
done
