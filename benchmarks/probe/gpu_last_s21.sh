# Twenty-first session, last call (H200): the final form (stream softmax exp pass, warp softmax up to 2^17
# pieces, relu/silu in one pass): the whole suite with the nvidia backend, memcheck over the tests of the
# ops that changed, the tool over those ops with every peer. Usage: bash benchmarks/probe/gpu_last_s21.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 250 python3 -m pytest -q test -p no:cacheprovider -x > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 110 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "relu or silu or gelu or softmax" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
t=$(date +%s); timeout 110 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.15 --busy-us 100 --ops relu,silu,gelu,causal_softmax --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "relu|silu|gelu|causal" $OUT/best_peer.md
