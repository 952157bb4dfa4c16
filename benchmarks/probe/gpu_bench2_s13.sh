# Thirteenth session, a second sample at the final code: the comparison tool over the memory-bound bar
# ops' decode and prefill sets (the rows that sit within 0.1-0.2 us of a peer). Usage: bash benchmarks/probe/gpu_bench2_s13.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 200 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,causal_softmax,paged_caching --shapes decode,prefill --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench2.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; python3 benchmarks/best_peer.py $OUT/bench2.txt 2>&1 | tail -30
