# Seventeenth session, fourth call (H200): the CUDA-core paged decode with one query head a block held to 4
# blocks an SM (128 registers) and the partitions' combineKernel by programmatic dependent launch, as
# defaults: the whole suite with the nvidia backend, compute-sanitizer memcheck over the op tests; then
# temporary knobs PA_MB=5 (5 blocks an SM), PA_TCMB=4 (GQA with much work on the register tensor-core
# kernel at 4 blocks an SM), PA_PARTS=N (much work forced to N partitions): kernel times and the tool.
# Usage: bash benchmarks/probe/gpu_final_s17.sh
# (The knobs were removed after the session's experiments: RESULTS.md, seventeenth session.)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 240 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
t=$(date +%s); PA_TCMB=4 timeout 60 python3 -m pytest -q test/test_ops_attention.py -k "much or partitions" -p no:cacheprovider > $OUT/t_tcmb.log 2>&1; echo "tcmb tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_tcmb.log)"
cd benchmarks/probe
t=$(date +%s); timeout 60 python3 ab_knobs.py PA_MB=0,5 paged_attention:large --impls torch --rounds 3 --reps 20 > $OUT/ab_mb.txt 2>&1; echo "ab mb rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_mb.txt | sed -n '/medians/,$p'
cd ../..
for e in "PA_X=0" "PA_TCMB=4" "PA_PARTS=3" "PA_TCMB=4 PA_PARTS=3" "PA_X=0"; do
t=$(date +%s); env $e timeout 90 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill --budget 0.2 --busy-us 100 --ops paged_attention --impls infini,torch --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "paged_attention" $OUT/bench.txt | cut -c1-75 | tee -a $OUT/bench_all.txt
done
cp $OUT/bench.txt $OUT/bench_pa_default.txt
