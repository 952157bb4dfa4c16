# Twentieth session, last call (H200): the final form of the stream softmax kernel (the bf16 write as a
# packed fma with a split scale; knob removed): softmax tests, memcheck over them, kernel time, the tool's
# softmax rows with every peer. Usage: bash benchmarks/probe/gpu_verify_s20.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -3
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large,prefill --impls infini --reps 20 2>&1 | grep -v -i warn | cut -c1-120)
t=$(date +%s); timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops softmax --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "softmax" $OUT/best_peer.md | head -6
