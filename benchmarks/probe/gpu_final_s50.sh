# 50th session, call 4: the verification at the landed little-decode plan (gpu_verify.sh check: the build, the whole
# suite, memcheck over the op tests), then the tool over paged_attention and attention (decode set, bf16) with SDPA.
DEADLINE_S=500 bash benchmarks/gpu_verify.sh check; rc=$?
t=$(date +%s)
timeout 80 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill --budget 0.2 --busy-us 100 --ops paged_attention,attention \
  --impls infini,torch,compile --dtypes bfloat16 --out /tmp/pa > $OUT/bench_decode.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
grep -E "^(paged_attention|attention) " $OUT/bench_decode.txt | head -30
exit $rc
