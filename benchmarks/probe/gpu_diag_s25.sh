# Twenty-fifth session, second call (H200): where the stream softmax kernel's time goes now, by timing-only
# variants (wrong results) of a temporary knob XSV: 16 (as is), 1 (no cluster exchange: the warp's own
# pair), 2 (no exp pass), 3 (neither); torch's copy of the same bytes alongside.
# Usage: bash benchmarks/probe/gpu_diag_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
cd benchmarks/probe
t=$(date +%s); timeout 240 python3 ab_knobs.py XSV=16,1,2,3 softmax:large softmax:prefill --reps 30 --rounds 3 --impls "" > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
timeout 100 python3 copy_kernel.py 512x128256 256x128256 2>&1 | grep -v -i warn | tail -4
