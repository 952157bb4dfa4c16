# Thirteenth session, first call: where small kernels' time goes after the flush (warm_probe.py), and
# A/B of temporary knobs: INFINI_KNOB_NORM (few-row rms kernels: 1 = mean by the host's 1/n, 2 = one-
# barrier block sum, 3 = both), INFINI_KNOB_ROPE (P*100 + (8-byte pieces ? 1 : 2)*10 + split; 0 = the
# shipped choice), INFINI_KNOB_SILU (1 = 16-byte pieces in 128-thread blocks, 2 = the 256-thread kernel).
# Usage: bash benchmarks/probe/gpu_warm_s13.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 warm_probe.py rms_norm:decode add_rms_norm:decode rope:decode,prefill silu_and_mul:decode --rounds 3 --reps 30 > $OUT/warm.txt 2>&1; echo "warm rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/warm.txt | tail -30
t=$(date +%s); timeout 150 python3 ab_knobs.py INFINI_KNOB_NORM=0,1,2,3 rms_norm:decode add_rms_norm:decode --rounds 3 --reps 40 --impls compile,triton,liger > $OUT/ab_norm.txt 2>&1; echo "norm rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_norm.txt
t=$(date +%s); timeout 150 python3 ab_knobs.py INFINI_KNOB_ROPE=0,111,114,121,124,211,221,421 rope:decode,prefill --rounds 3 --reps 40 --impls compile,triton > $OUT/ab_rope.txt 2>&1; echo "rope rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_rope.txt
t=$(date +%s); timeout 100 python3 ab_knobs.py INFINI_KNOB_SILU=0,1,2 silu_and_mul:decode,prefill --rounds 3 --reps 40 --impls compile,triton > $OUT/ab_silu.txt 2>&1; echo "silu rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_silu.txt
