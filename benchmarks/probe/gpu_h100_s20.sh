# Twentieth session (H100): the final form on the H100 (binary kernels at 2 vectors a thread; softmax NaN
# handling; the bulk softmax kernel there): test_ops.py, softmax kernel time, the tool over the changed ops
# with every peer. Usage: bash benchmarks/probe/gpu_h100_s20.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 200 python3 -m pytest -q test/test_ops.py -p no:cacheprovider > $OUT/t.log 2>&1; echo "test_ops rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -5
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large swiglu:prefill,large --impls infini,compile --reps 20 2>&1 | grep -v -i warn | cut -c1-120)
t=$(date +%s); timeout 150 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops swiglu,add,mul,softmax --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "swiglu|add|mul|softmax" $OUT/best_peer.md | head -24
