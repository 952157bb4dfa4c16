# Eighteenth session, seventh call (H200): the final form (binary flat kernels over contiguous chunks in
# 128-thread blocks, knobs removed): test_ops.py, memcheck over the elementwise tests, the tool over
# add, mul, swiglu with every peer. Usage: bash benchmarks/probe/gpu_final_s18.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 150 python3 -m pytest -q test/test_ops.py -p no:cacheprovider > $OUT/t_ops.log 2>&1; echo "test_ops rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_ops.log)"; grep -E "^FAILED" $OUT/t_ops.log | head -5
t=$(date +%s); timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "binary or relu or streamed or many" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
t=$(date +%s); timeout 150 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops add,mul,swiglu --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; cat $OUT/best_peer.md | head -30
