# Tenth session A/B (env knobs, one build): paged_caching loads issued before the slot branch; silu_and_mul
# narrower pieces at small sizes; rope shift index math and token split; softmax G warps a line.
# The KNOB_* environment switches existed only in the build these runs used (removed before the commit):
# the script records how the figures in benchmarks/bench_h100_s10/ were taken.
source .ci/gpu_setup.sh || exit 1
KT="python3 benchmarks/probe/kernel_times.py --reps 40"
f() { grep -v -i warn | sed "s/^/$1 /"; }
( $KT paged_caching:decode,prefill rope:decode,prefill silu_and_mul:decode causal_softmax:decode softmax:decode 2>&1 | f base ) | tee $OUT/ab.txt
for n in 2 4; do for b in 64 128; do KNOB_SILU_T=1000000000 KNOB_SILU_N=$n KNOB_SILU_B=$b timeout 60 $KT silu_and_mul:decode,prefill --impls infini 2>&1 | f silu_n${n}_b$b; done; done | tee -a $OUT/ab.txt
for sh in 0 1; do for sp in 1 2 4 8; do KNOB_ROPE_SHIFT=$sh KNOB_ROPE_SPLIT=$sp timeout 60 $KT rope:decode --impls infini 2>&1 | f rope_sh${sh}_sp$sp; done; done | tee -a $OUT/ab.txt
KNOB_ROPE_SHIFT=1 timeout 60 $KT rope:prefill --impls infini 2>&1 | f rope_sh1_prefill | tee -a $OUT/ab.txt
for g in 2 4; do KNOB_SMG=$g timeout 60 $KT causal_softmax:decode softmax:decode --impls infini 2>&1 | f smg$g; done | tee -a $OUT/ab.txt
t=$(date +%s)
KNOB_SMG=4 KNOB_SILU_T=1000000000 KNOB_SILU_N=2 KNOB_ROPE_SPLIT=4 timeout 150 python3 -m pytest -q -x test/test_ops.py -k "softmax or silu_and_mul or paged or caching or rope" -p no:cacheprovider > $OUT/tests_knobs.log 2>&1; echo "knob tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests_knobs.log; grep -E "^FAILED" $OUT/tests_knobs.log | head
