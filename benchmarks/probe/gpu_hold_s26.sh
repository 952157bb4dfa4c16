# Twenty-sixth session, first call (H200): a non-persistent softmax kernel for vocabulary rows holding each
# block's part half in registers, half in shared memory (softmaxHoldKernel<R, S, MINB>, temporary knob XHY:
# 0 the stream kernel as is, 1 <8,8,4>, 2 <12,4,3>, 3 <16,0,2>, 4 <4,4,6> in clusters of 8), softmax tests
# under each, kernel us with torch's copy alongside; silu_and_mul's decode-size geometry (knob XSM: 0 as is,
# 8-byte pieces x 128 threads; 1 16-byte x 128; 2 16-byte x 64; 3 8-byte x 64; 4 4-byte x 128; 5 16-byte x 256)
# against torch.compile. Usage: bash benchmarks/probe/gpu_hold_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for v in 1 2 3 4; do XHY=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "softmax" -p no:cacheprovider > $OUT/tests_hy$v.txt 2>&1; echo "softmax tests XHY=$v rc $?: $(tail -1 $OUT/tests_hy$v.txt)"; done
for v in 1 2 3 4 5; do XSM=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "silu_and_mul" -p no:cacheprovider > $OUT/tests_sm$v.txt 2>&1; echo "silu_and_mul tests XSM=$v rc $?: $(tail -1 $OUT/tests_sm$v.txt)"; done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 softmax_rows.py XHY=0,1,2,3,4 --rows 512,264 --reps 30 --copy > $OUT/rows.txt 2>&1; echo "rows rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/rows.txt
t=$(date +%s); timeout 150 python3 ab_knobs.py XSM=0,1,2,3,4,5 silu_and_mul:decode --reps 40 --rounds 5 --impls compile > $OUT/ab_sm.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_sm.txt | cut -c1-150
