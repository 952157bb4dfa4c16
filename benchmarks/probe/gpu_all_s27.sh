# Twenty-seventh session, fifth to seventh calls (H200), the session's final kernels: call A (arg "a"): the whole
# suite with the nvidia backend, the comparison tool over the elementwise, norm and rope ops; call B ("b"): the
# tool over the rest, host overhead; call C ("c"): compute-sanitizer memcheck over the op tests. The tool: every
# shape set, every peer, bfloat16, plots (packed into one tar). Usage: bash benchmarks/probe/gpu_all_s27.sh a|b|c
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" | tee -a $OUT/gpu.txt
if [ "$1" = a ]; then
  t=$(date +%s); timeout 260 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/suite.txt)"; grep -E "^FAILED" $OUT/suite.txt | head
  OPS=add,mul,swiglu,silu,relu,gelu,silu_and_mul,rms_norm,add_rms_norm,layer_norm,rope
elif [ "$1" = c ]; then
  t=$(date +%s); timeout 420 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops*.py -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
  exit 0
else
  timeout 60 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
  OPS=softmax,causal_softmax,embedding,gemm,linear,topk_softmax,random_sample,paged_caching,paged_attention
fi
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100"
t=$(date +%s); timeout 300 $B --ops $OPS --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
(cd /tmp/b && tar cf $OUT/plots.tar *.png results.json 2>/dev/null); ls /tmp/b | wc -l
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; grep -E "^\| (op|---)|1\.0[1-9] \||1\.[1-9][0-9]* \|" $OUT/best_peer.md | head -40; grep -i "copy" $OUT/bench.txt | head -2
