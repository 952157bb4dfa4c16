# 45th session, after landing the evict_last output stores (norm.cu's cached rows, silu_and_mul's row kernel): the
# build, test_ops.py and test_models.py (every norm / silu_and_mul test among them) on CUDA and infini tensors,
# memcheck over test_ops.py, then the comparison tool over the changed ops and swiglu (every shape set, every peer).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 150 python3 -m pytest -q test/test_ops.py test/test_models.py -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests.txt)"
grep -E "^FAILED" $OUT/tests.txt | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "norm or silu" > /tmp/mc.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"
grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2 | tee $OUT/memcheck_tail.txt
t=$(date +%s); timeout 170 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
  --ops rms_norm,add_rms_norm,silu_and_mul,swiglu --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b > $OUT/bench.txt 2>&1
echo "bench rc $? $(( $(date +%s) - t )) s"
python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1; cat $OUT/best_peer.md
