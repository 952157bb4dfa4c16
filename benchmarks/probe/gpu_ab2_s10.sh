# Tenth session A/B round 2 (env knobs, one build): silu_and_mul with a 36-byte parameter block (int
# offsets) against 56 bytes; paged_caching loads before the slot branch or not; rope prefill pieces a thread.
# The KNOB_* environment switches existed only in the build these runs used (removed before the commit):
# the script records how the figures in benchmarks/bench_h100_s10/ were taken.
source .ci/gpu_setup.sh || exit 1
KT="python3 benchmarks/probe/kernel_times.py --reps 60"
f() { grep -v -i "warn\|online\|split the\|important\|softmax\.$\|^$" | sed "s/^/$1 /"; }
$KT silu_and_mul:decode --impls infini,triton,compile 2>&1 | f silu_base | tee $OUT/ab2.txt
for sp in 0 1; do
  KNOB_SILU_SMALLP=$sp $KT silu_and_mul:decode --impls infini 2>&1 | f silu_n8_sp$sp
  KNOB_SILU_SMALLP=$sp KNOB_SILU_T=1000000000 KNOB_SILU_N=4 KNOB_SILU_B=128 $KT silu_and_mul:decode --impls infini 2>&1 | f silu_n4_sp$sp
done | tee -a $OUT/ab2.txt
for now in 0 1 0 1; do KNOB_CACHE_NOW=$now $KT paged_caching:decode,prefill --impls infini 2>&1 | f cache_now$now; done | tee -a $OUT/ab2.txt
$KT paged_caching:decode rope:prefill --impls compile,triton 2>&1 | f peers | tee -a $OUT/ab2.txt
for p in 0 1 4 9; do KNOB_ROPE_P=$p $KT rope:prefill --impls infini 2>&1 | f rope_p$p; done | tee -a $OUT/ab2.txt
for g in 1 4 1 4; do KNOB_SMG=$g $KT causal_softmax:decode --impls infini 2>&1 | f smg$g; done | tee -a $OUT/ab2.txt
