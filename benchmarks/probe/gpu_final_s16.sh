# Sixteenth session, final call (H200): the whole suite with the nvidia backend, compute-sanitizer memcheck
# over the op tests, kernel times of the paged decode (bulk-copy tiles with much work) against SDPA, and
# the comparison tool over paged_attention. Usage: bash benchmarks/probe/gpu_final_s16.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 240 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
(cd benchmarks/probe && timeout 60 python3 kernel_times.py paged_attention:decode,prefill --reps 20 --impls infini,torch 2>&1 | grep -v -i warn | cut -c1-200 | tee $OUT/pa_kernels.txt)
t=$(date +%s); timeout 90 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops paged_attention --impls infini,torch --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench_pa.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; grep -E "paged_attention|copy" $OUT/bench_pa.txt | head -12
