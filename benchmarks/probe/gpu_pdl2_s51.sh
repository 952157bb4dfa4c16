# 51st session, call 3: the memory-bound ops launched as programmatic dependents (launchOp, on by default on
# sm_90+; INFINI_PDL=0 turns it off): gpu_verify.sh check (build, whole suite, memcheck over the op tests), then
# back-to-back loops (probe/pdl_loop.py) with it off and on, and the host-overhead loop with it off and on.
DEADLINE_S=440 bash benchmarks/gpu_verify.sh check > $OUT/check.txt 2>&1; echo "check rc $?"; cat $OUT/check.txt
cd benchmarks/probe
OPS="rms_norm add_rms_norm swiglu silu_and_mul softmax causal_softmax rope paged_caching"
INFINI_PDL=0 timeout 50 python3 pdl_loop.py PDL_LOOP=off $OPS --rounds 3 --impls "" > $OUT/loop_off.txt 2>&1; echo "loop off rc $?"
timeout 50 python3 pdl_loop.py PDL_LOOP=on $OPS --rounds 3 --impls "" > $OUT/loop_on.txt 2>&1; echo "loop on rc $?"
paste <(awk '{print $1, $2, $3, $6}' $OUT/loop_off.txt) <(awk '{print $6}' $OUT/loop_on.txt)
cd ../..
INFINI_PDL=0 timeout 30 python3 benchmarks/host_overhead.py 2>&1 | tail -1
timeout 30 python3 benchmarks/host_overhead.py 2>&1 | tail -1
