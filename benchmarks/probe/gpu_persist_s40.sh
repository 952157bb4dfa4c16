# The tiled kernel's decoupled form (dense attention, the gathered prefill) persistent, each tile of rows issuing the
# next one's query rows and first key tiles (40th session): builds the working tree, runs the attention tests, the
# tool over attention and paged_attention_prefill against SDPA, mixed prefill batches (probe/prefill_hist.py, a dummy
# knob), and memcheck over the attention tests.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider -x > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED|Error" $OUT/tests.txt | head -8
timeout 120 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops attention,paged_attention_prefill --impls infini,torch --dtypes bfloat16 > $OUT/tool.txt 2>&1; echo "tool rc $?"; grep -E "^(attention|paged_attention_prefill) " $OUT/tool.txt | cut -c1-100
(cd benchmarks/probe && timeout 90 python3 prefill_hist.py X=0 --rounds 3 --reps 30 --shapes ${SHAPES:-1x4096/4096+31x1/4096,16x128/2048,8x512/512,4x1024/1024,2x2048/2048} > $OUT/hist.txt 2>&1); grep -v "^ *$" $OUT/hist.txt | grep -v Warn | tail -6
[ -n "$NOMC" ] || { timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2; grep -B2 -A12 -m3 "Invalid\|Error" /tmp/mc.txt > $OUT/memcheck_errors.txt; }
rm -f $OUT/build.log $OUT/pip_wheels.log
