# Decode-sized attention on the paged decode fast path and the prefill checks folded into the tile lister
# (34th session): the attention and error tests, then the tool over attention and paged_attention_prefill
# (every set, bf16, against SDPA).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 200 python3 -m pytest -q test/test_ops_attention.py test/test_errors.py test/test_ops.py -k "attention or opcheck or prefill or error or bad" -p no:cacheprovider > $OUT/tests.txt 2>&1; tail -1 $OUT/tests.txt; grep -E "^FAILED" $OUT/tests.txt | head -20
timeout 200 python3 -m infinicore_torch.bench --device cuda --ops attention,paged_attention_prefill --shapes decode,prefill,large --dtypes bfloat16 --impls infini,torch --budget 0.2 --busy-us 100 --out /tmp/f > $OUT/bench.txt 2>&1
grep -E "^(attention|paged_attention_prefill) " $OUT/bench.txt; (cd /tmp/f && tar cf $OUT/plots.tar *.png results.json)
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "cache or prefill or bad" -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2 | tee $OUT/memcheck_tail.txt
rm -f $OUT/build.log $OUT/pip_wheels.log
