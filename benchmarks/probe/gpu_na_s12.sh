# Twelfth session: decode-size memory-bound kernels with their row loads not allocated in L1, through the
# temporary knob INFINI_KNOB_NA (0 = as committed, 1 = L1::no_allocate on silu_and_mul's decode kernel,
# binaryFlat up to 2^18 elements, the FEW rms/add_rms kernels' row loads and rope's row kernel (gpt_neox);
# removed before committing). Op tests under knob 1, then kernel durations A/B against the peers.
# Usage: bash benchmarks/probe/gpu_na_s12.sh
source .ci/gpu_setup.sh || exit 1
K="silu_and_mul or swiglu or rms_norm or rope or add or mul"
INFINI_KNOB_NA=1 timeout 120 python3 -m pytest -q test/test_ops.py -k "$K" -p no:cacheprovider > $OUT/tests1.log 2>&1; echo "tests knob 1 rc $?"; tail -1 $OUT/tests1.log; grep -E "^FAILED" $OUT/tests1.log | head -3
cd benchmarks/probe
timeout 200 python3 ab_knobs.py INFINI_KNOB_NA=0,1 rms_norm:decode add_rms_norm:decode swiglu:decode silu_and_mul:decode rope:decode,prefill --rounds 3 --reps 40 --impls compile,triton,liger 2>&1 | grep -v -i warn > $OUT/ab_na.txt; grep -A60 "^medians" $OUT/ab_na.txt
