# Eleventh session: the comparison tool over the eight memory-bound ops at the session's code (rope,
# paged_caching and rms_norm kernels changed), peers interleaved, --busy-us 100; then the best-peer table.
# Usage: bash benchmarks/probe/gpu_bench_s11.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 330 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -42
timeout 60 python3 benchmarks/probe/kernel_times.py silu_and_mul:decode swiglu:decode --reps 60 --impls infini,compile,triton 2>&1 | grep -v -i warn | tee $OUT/kernel_durations.txt
