# Nineteenth session, tenth call (H100): the stream kernel against the bulk kernel on the H100 (temporary
# knob SM_NO_STREAM=1: the bulk kernel), kernel times by row count. Usage: bash benchmarks/probe/gpu_h100ab_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
(cd benchmarks/probe && timeout 90 python3 softmax_rows.py SM_NO_STREAM=0,1 --rows 100,264,512 > $OUT/rows_ab.txt 2>&1; sed -n '/medians/,$p' $OUT/rows_ab.txt)
for e in 0 1; do t=$(date +%s); SM_NO_STREAM=$e timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes large --budget 0.2 --busy-us 100 --ops softmax --impls infini --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench$e.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "^softmax |copy" $OUT/bench$e.txt | head -5; done
