# Fifteenth session (H100): the softmax tests and the comparison tool's softmax rows with the bulk-copy
# kernel, to compare with the thirteenth session's H100 figures. Usage: bash benchmarks/probe/gpu_h100_s15.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k softmax -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests.txt)"
t=$(date +%s); timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops softmax --impls infini,torch,compile,triton --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt | tail -6; grep -i "copy" $OUT/bench.txt | head -2
cd benchmarks/probe; timeout 60 python3 kernel_times.py softmax:large --reps 20 --impls infini 2>&1 | grep -v -i warn | cut -c1-200 | tee $OUT/ktimes.txt
