# Twenty-sixth session, second call (H200): softmaxHoldKernel's shapes (knob XHY: 0 the stream kernel, 1 <8,8,4>
# in clusters of 4, 4 <4,4,6> in clusters of 8, 5 <4,4,7>, 6 <2,6,7>, 7 <0,8,6>, 8 <6,2,5>) over row counts and
# line lengths, torch's copy alongside; the vocabulary-row softmax tests under each new variant; torch.compile's
# Triton code for silu_and_mul 16x11008 and two flat-grid variants of ours (XSM 6: 16-byte pieces, 7: 8-byte,
# 128 threads, one division a thread). Usage: bash benchmarks/probe/gpu_hold2_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 5 6 7 8; do XHY=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "softmax and (many or wide or minus_inf or nan)" -p no:cacheprovider > $OUT/tests_hy$v.txt 2>&1; echo "softmax tests XHY=$v rc $?: $(tail -1 $OUT/tests_hy$v.txt)"; done
for v in 6 7; do XSM=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "silu_and_mul" -p no:cacheprovider > $OUT/tests_sm$v.txt 2>&1; echo "silu_and_mul tests XSM=$v rc $?: $(tail -1 $OUT/tests_sm$v.txt)"; done
timeout 100 python3 benchmarks/probe/compile_code.py silu_and_mul 16x11008 > $OUT/compile_silu.txt 2>&1; echo "compile code rc $?"; grep -n -E "XBLOCK|num_warps|eviction|tl.load|triton_meta|grid" $OUT/compile_silu.txt | head -20
cd benchmarks/probe
R="timeout 120 python3 softmax_rows.py"
$R XHY=0,4,1,5,6,7,8 --rows 512,264 --reps 30 --copy > $OUT/rows_a.txt 2>&1; echo "rows_a rc $?"; sed -n '/medians/,/GB/p' $OUT/rows_a.txt
$R XHY=0,4,1 --rows 66,132,1024 --reps 30 --copy > $OUT/rows_b.txt 2>&1; echo "rows_b rc $?"; sed -n '/medians/,/GB/p' $OUT/rows_b.txt
$R XHY=0,4,1 --rows 264,528 --cols 65536 --reps 30 --copy > $OUT/rows_c.txt 2>&1; echo "rows_c rc $?"; sed -n '/medians/,/GB/p' $OUT/rows_c.txt
$R XHY=0,4,1 --rows 528,1056 --cols 40008 --reps 30 --copy > $OUT/rows_d.txt 2>&1; echo "rows_d rc $?"; sed -n '/medians/,/GB/p' $OUT/rows_d.txt
timeout 100 python3 ab_knobs.py XSM=0,6,7 silu_and_mul:decode --reps 40 --rounds 5 --impls compile > $OUT/ab_sm.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_sm.txt | cut -c1-150
