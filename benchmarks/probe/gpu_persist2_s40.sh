# The persistent form, second version (40th session): the main loop's copies apart from the last PF iterations'
# (which may issue the next tile of rows'), persistent only for dense attention and one-sequence prefills. Builds the
# working tree, runs the attention tests, the tool over attention and paged_attention_prefill against SDPA, memcheck
# over the attention tests, then the rest of the suite in what time is left.
t0=$(date +%s)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider -x > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED|Error" $OUT/tests.txt | head -8
timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops attention,paged_attention_prefill --impls infini,torch --dtypes bfloat16 > $OUT/tool.txt 2>&1; echo "tool rc $?"; grep -E "^(attention|paged_attention_prefill) " $OUT/tool.txt | cut -c1-100
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2 | tee $OUT/memcheck_tail.txt
left=$(( 585 - ($(date +%s) - t0) )); echo "rest of the suite: $left s"
t=$(date +%s); timeout $left python3 -m pytest -q test --ignore=test/test_ops_attention.py -p no:cacheprovider > $OUT/suite_rest.txt 2>&1; echo "rest rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/suite_rest.txt)"; grep -E "^FAILED" $OUT/suite_rest.txt | head
rm -f $OUT/build.log $OUT/pip_wheels.log
