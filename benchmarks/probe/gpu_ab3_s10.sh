# Tenth session A/B round 3 (env knobs, one build): rope at >= 512 tokens with x read after the table rows
# (late) or before the position (early); paged_caching's lean row kernel (shift, 32-bit offsets).
# The KNOB_* environment switches existed only in the build these runs used (removed before the commit):
# the script records how the figures in benchmarks/bench_h100_s10/ were taken.
source .ci/gpu_setup.sh || exit 1
KT="python3 benchmarks/probe/kernel_times.py --reps 60"
f() { grep -v -i "warn\|online\|split the\|important\|softmax\.$\|^$" | sed "s/^/$1 /"; }
for l in 0 1 0 1; do KNOB_ROPE_LATE=$l $KT rope:prefill,large --impls infini 2>&1 | f rope_late$l; done | tee $OUT/ab3.txt
for l in 0 1 0 1; do KNOB_CACHE_NOW=1 KNOB_CACHE_LEAN=$l $KT paged_caching:decode,prefill,large --impls infini 2>&1 | f cache_lean$l; done | tee -a $OUT/ab3.txt
$KT paged_caching:decode rope:prefill --impls compile,triton 2>&1 | f peers | tee -a $OUT/ab3.txt
t=$(date +%s)
KNOB_CACHE_LEAN=1 KNOB_ROPE_LATE=1 KNOB_SMG=4 KNOB_SILU_T=1000000000 KNOB_SILU_N=4 KNOB_SILU_SMALLP=1 timeout 150 python3 -m pytest -q test/test_ops.py -k "softmax or silu_and_mul or paged or caching or rope" -p no:cacheprovider > $OUT/tests_knobs.log 2>&1; echo "knob tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests_knobs.log
KNOB_CACHE_LEAN=1 KNOB_ROPE_LATE=1 KNOB_SMG=4 KNOB_SILU_T=1000000000 KNOB_SILU_N=4 KNOB_SILU_SMALLP=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q test/test_ops.py -k "softmax or silu_and_mul or paged or caching or rope" -p no:cacheprovider > $OUT/memcheck_knobs.log 2>&1; echo "memcheck rc $?"; tail -2 $OUT/memcheck_knobs.log
