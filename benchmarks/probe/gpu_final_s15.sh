# Fifteenth session, final call (H200): the whole suite with the nvidia backend, compute-sanitizer memcheck
# over the op tests, host overhead, and the comparison tool over softmax (new bulk-copy kernel for many
# wide lines), causal_softmax and the ops never measured on the H200 (gemm, linear, random_sample).
# Usage: bash benchmarks/probe/gpu_final_s15.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 290 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 180 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
timeout 60 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100"
t=$(date +%s); timeout 200 $B --ops softmax,causal_softmax,gemm,linear,random_sample --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
t=$(date +%s); timeout 60 $B --ops random_sample --impls infini,torch --dtypes float32 --no-plots --out $OUT/b32 > $OUT/bench_rs32.txt 2>&1; echo "bench32 rc $? $(( $(date +%s) - t )) s"; grep -E "random_sample" $OUT/bench_rs32.txt | head
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; cat $OUT/best_peer.md | tail -40; grep -i "copy" $OUT/bench.txt | head -3
