# Twenty-second session, final call: the final form (stream softmax with a (max, sum) pair a warp, no block
# barrier; unaryShot without its vectors-a-thread parameter): softmax and unary tests, memcheck over them, the
# long-line check against float64, kernel time, the tool over softmax, causal_softmax, relu, silu with every
# peer, the tool-time split against the copy, the whole suite with the nvidia backend.
# Usage: bash benchmarks/probe/gpu_final_s22.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax or relu or silu or gelu" -p no:cacheprovider > $OUT/t_ops.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_ops.log)"; grep -E "^FAILED" $OUT/t_ops.log | head -5
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "softmax or relu or silu or gelu" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
(cd benchmarks/probe && timeout 100 python3 check_l2_s21.py NONE=0 2>&1 | grep -v -i warn > $OUT/check.txt; grep -E "BAD|DIFF|bad:" $OUT/check.txt)
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large --impls infini,compile --reps 30 2>&1 | grep -v -i warn | cut -c1-120 | tee $OUT/kernel.txt)
t=$(date +%s); timeout 150 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops softmax,causal_softmax,relu,silu --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "softmax|relu|silu" $OUT/best_peer.md | head -12; grep -E "512x128256.*infini" $OUT/bench.txt
(cd benchmarks/probe && timeout 100 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | grep -E "case|^softmax  |^copy  " | tee $OUT/gap.txt)
t=$(date +%s); timeout 250 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
