# 43rd session, call 5: compute-sanitizer memcheck over the tests of the tiled attention kernel (716a970 moved its
# block-a-tile path; its tests passed in call 1, memcheck had not run on it); then a knob A/B (INFINI_PROBE_MANY=1:
# rms_norm's rows for several waves on the 8-blocks-an-SM kernel instead of the 6-an-SM MANY one) at prefill/large.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
timeout 230 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py \
  -k "prefill or with_cache or persistent" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?"
grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -3
INFINI_PROBE_MANY=1 timeout 40 python3 -m pytest -q test/test_ops.py -k "rms_norm" -p no:cacheprovider 2>&1 | tail -1
(cd benchmarks/probe && timeout 120 python3 ab_events.py INFINI_PROBE_MANY=0,1 rms_norm:prefill,large --impls compile,triton --rounds 3 --reps 60 --busy-us 300 2>&1 | tee $OUT/ab.txt)
