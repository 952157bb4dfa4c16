# Seventeenth session, third call (H200): temporary knobs PA_PDL=1 (the paged decode's combineKernel by
# programmatic dependent launch) and PA_MB=4 (the CUDA-core decode, one query head a block, held to 4 blocks
# an SM): attention tests with each, kernel times (PA_MB), and the comparison tool (end to end, as PDL
# must be measured). Usage: bash benchmarks/probe/gpu_pdl_s17.sh
# (The knobs were removed after the session's experiments: RESULTS.md, seventeenth session.)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for e in PA_PDL=0 PA_PDL=1 PA_MB=4; do
t=$(date +%s); env $e timeout 100 python3 -m pytest -q test/test_ops_attention.py -k "paged" -p no:cacheprovider > $OUT/t_$e.log 2>&1
echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_$e.log)"; grep -E "^FAILED|Error" $OUT/t_$e.log | head -5
done
cd benchmarks/probe
t=$(date +%s); timeout 100 python3 ab_knobs.py PA_MB=0,4 paged_attention:prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_mb.txt 2>&1; echo "ab mb rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_mb.txt | sed -n '/medians/,$p'
cd ../..
for e in "PA_PDL=0" "PA_PDL=1" "PA_PDL=1 PA_MB=4" "PA_PDL=0"; do
t=$(date +%s); env $e timeout 90 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill --budget 0.2 --busy-us 100 --ops paged_attention --impls infini,torch --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench $e rc $? $(( $(date +%s) - t )) s"; grep -E "paged_attention" $OUT/bench.txt | cut -c1-75 | tee -a $OUT/bench_all.txt
done
