# Twenty-sixth session, sixth call (H200): paged_caching with TZ tokens a thread, all loads before the stores
# (temporary knob XPC: 1 as is, 2, 4); silu_and_mul's decode-size kernel without the rows loop, 128-thread
# launch bounds (knob XSM: 0 as is; 1 8-byte pieces; 2 16-byte pieces); tests under each; torch.compile and
# our Triton alongside. Usage: bash benchmarks/probe/gpu_pc_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 2 4; do XPC=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "paged_caching" -p no:cacheprovider > $OUT/tests_pc$v.txt 2>&1; echo "paged_caching tests XPC=$v rc $?: $(tail -1 $OUT/tests_pc$v.txt)"; done
for v in 1 2; do XSM=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "silu_and_mul" -p no:cacheprovider > $OUT/tests_sm$v.txt 2>&1; echo "silu_and_mul tests XSM=$v rc $?: $(tail -1 $OUT/tests_sm$v.txt)"; done
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py XPC=1,2,4 paged_caching:prefill,large --reps 30 --rounds 3 --impls compile,triton > $OUT/ab_pc.txt 2>&1; echo "ab pc rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_pc.txt | cut -c1-150
t=$(date +%s); timeout 100 python3 ab_knobs.py XSM=0,1,2 silu_and_mul:decode --reps 40 --rounds 5 --impls compile,triton > $OUT/ab_sm.txt 2>&1; echo "ab sm rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_sm.txt | cut -c1-150
