# Thirtieth session, final calls (H100 or H200, whichever the device tool gives): call A ("a"): the build, the
# whole suite with the nvidia backend, compute-sanitizer memcheck over the op tests; call B ("b"): the comparison
# tool over the ops with a best-peer bar (every shape set, every peer, bfloat16), the host-overhead loop, embedding.
# Usage: bash benchmarks/probe/gpu_fin_s30.sh a|b
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" | tee -a $OUT/gpu.txt
if [ "$1" = a ]; then
  t=$(date +%s); timeout 230 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/suite.txt)"; grep -E "^FAILED" $OUT/suite.txt | head
  t=$(date +%s); timeout 220 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops*.py -p no:cacheprovider > /tmp/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" /tmp/memcheck.txt | tail -2 | tee $OUT/memcheck_tail.txt
  exit 0
fi
timeout 60 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
OPS=rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,embedding
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100"
t=$(date +%s); timeout 330 $B --ops $OPS --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
(cd /tmp/b && tar cf $OUT/plots.tar *.png results.json 2>/dev/null); ls /tmp/b | wc -l
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "^\| (op|---)|1\.0[1-9] \||1\.[1-9][0-9]* \|" $OUT/best_peer.md | head -40; grep -i "copy" $OUT/bench.txt | head -2
