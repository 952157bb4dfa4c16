# Twenty-first session, final call (H200): the stream softmax kernel's exp pass without a check a piece and
# with pairwise sums (expFinite): softmax tests and memcheck over them, the long-line check against
# float64, kernel time, the whole suite with the nvidia backend, the tool's softmax rows with every peer
# (twice for the large set), and the tool-time split against the copy. Usage: bash benchmarks/probe/gpu_final_s21.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t_softmax.log 2>&1; echo "softmax tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_softmax.log)"; grep -E "^FAILED" $OUT/t_softmax.log | head -5
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
(cd benchmarks/probe && timeout 100 python3 check_l2_s21.py NONE=0 2>&1 | grep -v -i warn > $OUT/check.txt; grep -E "BAD|DIFF|bad:" $OUT/check.txt)
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large,prefill --impls infini --reps 20 2>&1 | grep -v -i warn | cut -c1-120)
t=$(date +%s); timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops softmax --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "softmax" $OUT/best_peer.md | head -6; grep -E "512x128256.*infini" $OUT/bench.txt
t=$(date +%s); timeout 60 python3 -m infinicore_torch.bench --device cuda --shapes large --budget 0.3 --busy-us 100 --ops softmax --impls infini --dtypes bfloat16 --no-plots --out $OUT/b2 > $OUT/bench2.txt 2>&1; echo "bench2 rc $? $(( $(date +%s) - t )) s"; grep -E "512x128256.*infini" $OUT/bench2.txt
(cd benchmarks/probe && timeout 100 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | grep -E "case|^softmax  |^copy  " | tee $OUT/gap.txt)
t=$(date +%s); timeout 240 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
