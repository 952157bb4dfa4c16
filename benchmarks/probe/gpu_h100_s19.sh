# Nineteenth session, ninth call (H100): the final form on the H100: softmax tests, softmax kernel times
# by row count, the tool over softmax with every peer (the fifteenth session's H100 run: 512x128256 95.9
# us = 92% of copy with the bulk kernel). Usage: bash benchmarks/probe/gpu_h100_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -3
(cd benchmarks/probe && timeout 60 python3 softmax_rows.py NONE=0 --rows 66,100,264,512 > $OUT/rows.txt 2>&1; sed -n '/medians/,$p' $OUT/rows.txt)
t=$(date +%s); timeout 120 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops softmax --impls infini,torch,compile,triton --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "softmax|copy" $OUT/best_peer.md | head -8; grep copy $OUT/bench.txt | head -2
