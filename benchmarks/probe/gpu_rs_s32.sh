# Thirty-second session, calls 9-10: random_sample with a row over a cluster of blocks (sampling.cu; call 10: the
# cluster histogram merged a thread a bin, the candidates sorted over the next power of two of their count): every
# random_sample test, memcheck over the sampling tests, and the tool's random_sample rows against torch's sampler, bf16
# and fp32. Logs under $OUT.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "random_sample or sampling" -p no:cacheprovider > $OUT/tests.txt 2>&1
echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED|Error" $OUT/tests.txt | head -5
for dt in float32 bfloat16; do
  timeout 90 python3 -m infinicore_torch.bench --device cuda --ops random_sample --shapes decode,prefill --impls infini,torch --dtypes $dt \
    --budget 0.3 --busy-us 100 --no-plots --out /tmp/rs_$dt 2>&1 | grep -E "^random_sample" | tee -a $OUT/bench_rs.txt
done
t=$(date +%s); timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_sampling.py -k "random_sample" -p no:cacheprovider > /tmp/mc.txt 2>&1
echo "memcheck rc $? $(( $(date +%s) - t )) s: $(grep -E "passed|failed" /tmp/mc.txt | tail -1) $(grep "ERROR SUMMARY" /tmp/mc.txt | tail -1)"; grep -B2 -A10 -m2 "Invalid\|Error" /tmp/mc.txt | head -30
rm -f $OUT/pip_wheels.log
