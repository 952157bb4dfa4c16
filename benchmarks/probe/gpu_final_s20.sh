# Twentieth session, final call (H200): the final form (binary kernels at 2 vectors a thread; softmax
# kernels keep a NaN among -inf; the stream kernel's hot path unchanged): softmax tests, the stream
# kernel's time, the whole suite with the nvidia backend, memcheck over the op tests, the tool over the
# ops that changed with every peer. Usage: bash benchmarks/probe/gpu_final_s20.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 100 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/t_softmax.log 2>&1; echo "softmax tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_softmax.log)"; grep -E "^FAILED" $OUT/t_softmax.log | head -5
(cd benchmarks/probe && timeout 60 python3 kernel_times.py softmax:large,prefill --impls infini --reps 20 2>&1 | grep -v -i warn | cut -c1-120)
t=$(date +%s); timeout 240 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 170 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
t=$(date +%s); timeout 150 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops swiglu,add,mul,softmax --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "swiglu|add|mul|softmax" $OUT/best_peer.md | head -24
