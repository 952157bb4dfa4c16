# Thirteenth session, the final GPU code: the comparison tool over every bar op (decode, prefill and
# large sets), with the L2 flush that resets persisting lines first. Usage: bash benchmarks/probe/gpu_bench_s13.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 330 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,paged_attention --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -48
