# Fourteenth session, first call (H200): build with the nvidia backend, then the comparison tool over
# the memory-bound bar ops and paged_attention (decode, prefill and large sets). Usage: bash benchmarks/probe/gpu_bench_s14.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 330 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,paged_attention --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -60
