# 47th session, call 2 (main's kernels): the build; where each decode-row call's tool time goes, per call
# (launch_gap.py --per-call: the gap from the spin kernel to the op's kernel, the kernel's span, what follows it;
# quantiles, and the parts' medians over the faster and the slower half of the calls), ours against the peers at
# rms_norm / silu_and_mul / paged_caching decode; then the whole suite (gpu_verify.sh's two pytest processes).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
(cd benchmarks/probe && timeout 75 python3 launch_gap.py rms_norm silu_and_mul paged_caching --per-call --reps 200 --busy-us 300 \
   --impls infini,compile,triton,liger > $OUT/parts.txt 2>&1; echo "parts rc $? $(( $(date +%s) - t )) s")
grep -v "^ *per call" $OUT/parts.txt | grep -v Warn | head -60
source <(sed -n '/^suite() {/,/^}/p' benchmarks/gpu_verify.sh)
suite 300
