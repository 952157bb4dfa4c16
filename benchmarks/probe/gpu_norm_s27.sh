# Twenty-seventh session, fourth call (H200): the norms' weights by plain (L1) loads everywhere; paged_caching's
# k/v loads plain or non-coherent (XPC=1 / 2, consumed before the slot's branch) against loadNow (XPC=0).
# Tests and memcheck over the changed ops, where the loads sit (SASS), tool-timed rows against the peers.
# Usage: bash benchmarks/probe/gpu_norm_s27.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
K="norm or silu_and_mul or paged_caching"
timeout 120 python3 -m pytest -q test/test_ops.py test/test_ops_sampling.py -k "$K" -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_sampling.py -k "$K" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
/usr/local/cuda/bin/cuobjdump -sass infinicore_torch/lib/libinfini_backend_nvidia.so > /tmp/all.sass
python3 benchmarks/probe/sass_loads.py "normKernel.*bfloat16" < /tmp/all.sass > $OUT/sass_norm.txt; python3 benchmarks/probe/sass_loads.py "cachingRowKernel" < /tmp/all.sass > $OUT/sass_caching.txt; grep -c "" $OUT/sass_*.txt
cd benchmarks/probe
timeout 120 python3 ab_events.py XPC=0,1,2 paged_caching:decode,prefill,large --impls compile --rounds 3 --reps 200 > $OUT/ev_pc.txt 2>&1; echo "ev_pc rc $?"; grep " us " $OUT/ev_pc.txt
timeout 100 python3 ab_knobs.py XPC=0,1,2 paged_caching:decode,large --impls compile --rounds 3 > $OUT/ab_pc.txt 2>&1; echo "ab_pc rc $?"; sed -n '/medians/,$p' $OUT/ab_pc.txt
timeout 240 python3 ab_events.py X=0 rms_norm:decode,prefill,large add_rms_norm:decode,prefill,large layer_norm:decode,large --impls liger,triton,compile --rounds 3 --reps 100 > $OUT/ev_norm.txt 2>&1; echo "ev_norm rc $?"; grep " us " $OUT/ev_norm.txt
