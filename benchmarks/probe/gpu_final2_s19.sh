# Nineteenth session, eighth call (H200): the final form (the stream kernel where it pays: parts >= 3/4 of
# 64 KiB, >= 1.5 lines a cluster; knob removed): the whole suite with the nvidia backend, memcheck over
# the op tests, softmax kernel times by row count, the tool over softmax/causal_softmax with every peer.
# Usage: bash benchmarks/probe/gpu_final2_s19.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 240 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 170 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
(cd benchmarks/probe && timeout 60 python3 softmax_rows.py NONE=0 --rows 66,100,264,512 > $OUT/rows.txt 2>&1; sed -n '/medians/,$p' $OUT/rows.txt)
t=$(date +%s); timeout 120 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops softmax,causal_softmax --impls infini,torch,compile,triton,liger --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "softmax" $OUT/best_peer.md | head -12
