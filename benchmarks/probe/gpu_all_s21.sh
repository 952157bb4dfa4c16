# Twenty-first session, last call (H200): the comparison tool over every op, bfloat16, every shape set,
# every peer, at this session's final GPU kernels; best peer per row; host overhead.
# Usage: bash benchmarks/probe/gpu_all_s21.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
timeout 60 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100"
t=$(date +%s); timeout 420 $B --ops all --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "^\| (op|---)|1\.0[1-9] \||1\.[1-9][0-9]* \|" $OUT/best_peer.md | head -40; grep -i "copy" $OUT/bench.txt | head -2
