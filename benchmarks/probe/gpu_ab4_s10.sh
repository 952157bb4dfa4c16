# Tenth session A/B round 4 (env knobs of that build only): rope at <= 64 tokens with 8-byte pieces (half the
# pairs a thread); paged_caching's row kernel with 8-byte pieces (twice the threads); the tool over the ops
# not re-run this session (rms_norm, add_rms_norm, swiglu). Usage: bash benchmarks/probe/gpu_ab4_s10.sh
# The KNOB_* environment switches existed only in the build these runs used (removed before the commit):
# the script records how the figures in benchmarks/bench_h100_s10/ were taken.
source .ci/gpu_setup.sh || exit 1
KT="python3 benchmarks/probe/kernel_times.py --reps 60"
f() { grep -v -i "warn" | sed "s/^/$1 /"; }
for k in 0 1 0 1; do KNOB_ROPE_HALFV=$k $KT rope:decode --impls infini 2>&1 | f rope_halfv$k; KNOB_CACHE_P8=$k $KT paged_caching:decode --impls infini 2>&1 | f cache_p8$k; done | tee $OUT/ab4.txt
KNOB_ROPE_HALFV=1 KNOB_CACHE_P8=1 timeout 100 python3 -m pytest -q test/test_ops.py -k "rope or paged or caching" -p no:cacheprovider > $OUT/tests_knobs.log 2>&1; echo "knob tests rc $?"; tail -1 $OUT/tests_knobs.log
timeout 250 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench_norms.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench_norms.txt 2>&1 | tail -16
