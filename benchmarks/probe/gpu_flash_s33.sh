# The tiled (flash) prefill/attention kernel (33rd session): the attention tests, memcheck over them, and the
# comparison tool over attention and paged_attention_prefill (every set, bf16 and fp16, torch and compile).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests.txt 2>&1; tail -1 $OUT/tests.txt; grep -E "^FAILED" $OUT/tests.txt | head -20
timeout 240 python3 -m infinicore_torch.bench --device cuda --ops attention,paged_attention_prefill --shapes decode,prefill,large --dtypes bfloat16 --impls infini,torch --budget 0.2 --busy-us 100 --out /tmp/f > $OUT/bench.txt 2>&1
grep -E "^(attention|paged_attention_prefill) " $OUT/bench.txt | grep -v float16; tail -2 $OUT/bench.txt; (cd /tmp/f && tar cf $OUT/plots.tar *.png results.json)
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "long or prefill or cache" -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2 | tee $OUT/memcheck_tail.txt
rm -f $OUT/build.log $OUT/pip_wheels.log
