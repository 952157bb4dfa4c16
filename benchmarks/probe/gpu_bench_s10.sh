# The tenth session's H100 figures for the changed ops: kernel durations at decode shapes (peers in the
# same run), then the comparison tool with --busy-us 100. Usage: bash benchmarks/probe/gpu_bench_s10.sh
source .ci/gpu_setup.sh || exit 1
timeout 150 python3 benchmarks/probe/kernel_times.py rope:decode causal_softmax:decode silu_and_mul:decode paged_caching:decode --reps 60 2>&1 | grep -v -i warn | tee $OUT/kernel_durations.txt
timeout 300 python3 -m infinicore_torch.bench --device cuda --ops rope,causal_softmax,silu_and_mul,paged_caching,softmax --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -30
