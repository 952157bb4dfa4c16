# Twenty-seventh session, second call (H200): tool-timed (events) A/B of the rms_norm 16384x4096 geometries
# (XRN) and of flat silu_and_mul decode kernels (XSM: 16 / 8 / 4-byte pieces), interleaved with the peers;
# the silu_and_mul kernels' durations (profiler). Usage: bash benchmarks/probe/gpu_ab_s27.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
cd benchmarks/probe
timeout 150 python3 ab_events.py XRN=0,1,2,3,4 rms_norm:large --impls liger,triton --rounds 3 --reps 150 > $OUT/ev_rms.txt 2>&1; echo "ev_rms rc $?"; grep " us " $OUT/ev_rms.txt
timeout 120 python3 ab_events.py XSM=0,1,2,3 silu_and_mul:decode paged_caching:decode --impls compile,triton --rounds 3 --reps 300 > $OUT/ev_silu.txt 2>&1; echo "ev_silu rc $?"; grep " us " $OUT/ev_silu.txt
timeout 120 python3 ab_knobs.py XSM=0,1,2,3 silu_and_mul:decode --impls compile,triton --rounds 3 > $OUT/ab_silu.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_silu.txt
timeout 120 python3 ab_knobs.py XRN=0,1,2,3,4 rms_norm:large --impls liger --rounds 3 > $OUT/ab_rms.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_rms.txt
