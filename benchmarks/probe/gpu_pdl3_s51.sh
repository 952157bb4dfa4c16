# 51st session, call 4: the clustered softmax kernels back to plain launches (without the early trigger) - the
# build, the softmax tests and the back-to-back chain test with memcheck over them, the softmax loops with the
# dependent launches off and on, and the tool-timed decode rows of the bar ops (one call between events) off / on.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "softmax or dependent" -p no:cacheprovider > $OUT/memcheck.txt 2>&1
echo "softmax tests under memcheck rc $?: $(grep -E 'passed|failed' $OUT/memcheck.txt | tail -1) $(grep 'ERROR SUMMARY' $OUT/memcheck.txt)"
cd benchmarks/probe
INFINI_PDL=0 timeout 40 python3 pdl_loop.py PDL_LOOP=off softmax causal_softmax --rounds 3 --impls "" > $OUT/loop_off.txt 2>&1; echo "loop off rc $?"
timeout 40 python3 pdl_loop.py PDL_LOOP=on softmax causal_softmax --rounds 3 --impls "" > $OUT/loop_on.txt 2>&1; echo "loop on rc $?"
paste <(awk '{print $1, $2, $3, $6}' $OUT/loop_off.txt) <(awk '{print $6}' $OUT/loop_on.txt)
INFINI_PDL=0 timeout 100 python3 ab_events.py PDL=off rms_norm add_rms_norm swiglu silu_and_mul --rounds 5 --impls compile,liger > $OUT/ev_off.txt 2>&1; echo "events off rc $?"
timeout 100 python3 ab_events.py PDL=on rms_norm add_rms_norm swiglu silu_and_mul --rounds 5 --impls compile,liger > $OUT/ev_on.txt 2>&1; echo "events on rc $?"
paste <(awk '{print $1, $2, $3, $4, $5}' $OUT/ev_off.txt) <(awk '{print $3, $4, $5}' $OUT/ev_on.txt)
