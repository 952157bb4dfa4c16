# The tiled prefill split by sequence (39th session; call 5 ran it on 560c670's three launches, call 6 on the one
# flashSplitKernel): applies flash_split_knob_s39.patch (INFINI_FLASH_SPLIT=0, read at each launch, gives a split
# call the 38th session's choice: every sequence gathered where flashGatherPays and the slots hold them all, else
# every sequence paged), builds, runs the attention / error / ISA tests (with the new mixed-batch
# test), the A/B over uniform and mixed batches (probe/prefill_hist.py; seqs x q_len / ctx groups joined by '+'),
# and memcheck over the attention tests under the split. SHAPES / AB (default: call 5-6's shapes, 0,1) and SHAPES2 /
# AB2 (a second A/B; call 7: the knob's isolating values 2 and 3) from the environment.
git apply benchmarks/probe/flash_split_knob_s39.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py test/test_errors.py test/test_isa.py -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED" $OUT/tests.txt | head -8
SHAPES=${SHAPES:-1x2048/2048+63x1/2048,1x4096/4096+31x1/4096,2x1024/3072+62x1/2048,1x1024/1024+15x64/1024,1x512/8192+127x1/1024,4x512/512+60x1/1024,4x64/64,1x512/512,2x512/512,16x32/2048,8x128/4096,8x512/512,4x1024/1024,2x2048/2048,1x4096/4096}
(cd benchmarks/probe && timeout 200 python3 prefill_hist.py INFINI_FLASH_SPLIT=${AB:-0,1} --rounds 3 --reps 30 --shapes $SHAPES > $OUT/hist.txt 2>&1); grep -v "^ *$" $OUT/hist.txt | grep -v Warn | tail -16
if [ -n "$SHAPES2" ]; then
  (cd benchmarks/probe && timeout 120 python3 prefill_hist.py INFINI_FLASH_SPLIT=$AB2 --rounds 3 --reps 30 --shapes $SHAPES2 > $OUT/hist2.txt 2>&1); grep -v "^ *$" $OUT/hist2.txt | grep -v Warn | tail -8
fi
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc.txt | tail -2
rm -f $OUT/build.log $OUT/pip_wheels.log
