# 51st session, call 2 (temporary launch-time knob INFINI_PROBE_PDL=1, probe/pdl_s51.patch: rms_norm / add_rms_norm
# and the small binary kernel (swiglu, add, mul at decode size) launched as programmatic dependents, their kernels
# waiting for their prerequisites first): the build, the norm / binary tests under the knob, tool-timed A/B
# against the peers, and back-to-back loops (probe/pdl_loop.py).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
INFINI_PROBE_PDL=1 timeout 120 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "rms_norm or swiglu or add or mul" > /tmp/t.txt 2>&1
echo "tests PDL=1 rc $?: $(tail -1 /tmp/t.txt)"; grep -E "^FAILED" /tmp/t.txt | head -5
cd benchmarks/probe
timeout 150 python3 ab_events.py INFINI_PROBE_PDL=0,1 rms_norm add_rms_norm swiglu --rounds 5 --impls torch,compile,liger > $OUT/events.txt 2>&1; echo "events rc $?"
timeout 120 python3 pdl_loop.py INFINI_PROBE_PDL=0,1 rms_norm swiglu --rounds 3 --impls torch,compile,liger > $OUT/loop.txt 2>&1; echo "loop rc $?"
cat $OUT/events.txt; cat $OUT/loop.txt
