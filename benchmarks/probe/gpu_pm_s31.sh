# Thirty-first session: paged_attention decode's cluster merge by stores into the owner's shared memory (XPM=1,
# one cluster barrier) against the committed one (XPM=0: reads of every rank's shared memory, two barriers).
# The phase probe (thirtieth) put 4.8 us of 14.3 in the merge at 8x512. One call: build, the paged_attention tests
# under XPM=1 (and memcheck over them), kernel us XPM=0,1 against compile, then the phase probe with XPM=1.
# (Ran as call 2. The pushed merge landed as the only cluster merge and the knob XPM was removed: re-run, XPM=0 and 1 time the same code.)
# Usage: bash benchmarks/probe/gpu_pm_s31.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
export XPM=1
timeout 100 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests XPM=1 rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED" /tmp/t.txt | head -5
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention" -p no:cacheprovider > /tmp/mc.txt 2>&1; echo "memcheck XPM=1 rc $?: $(grep -E "passed|failed" /tmp/mc.txt | tail -1) $(grep "ERROR SUMMARY" /tmp/mc.txt | tail -1)"
unset XPM
(cd benchmarks/probe && timeout 120 python3 ab_knobs.py XPM=0,1 paged_attention:decode --impls compile --rounds 5 > $OUT/ab.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab.txt)
git apply benchmarks/probe/pa_phases_s30.patch && INFINI_WITH_NVIDIA=1 python3 -m pip install --no-build-isolation -e . > $OUT/build2.log 2>&1 || { tail -20 $OUT/build2.log; exit 1; }
XPM=1 timeout 150 python3 benchmarks/probe/pa_phases.py --calls 5 2>&1 | tee $OUT/phases.txt
