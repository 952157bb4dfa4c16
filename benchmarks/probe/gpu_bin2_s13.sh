# Thirteenth session: memory-bound binary ops at prefill/large sizes, through temporary knobs:
# INFINI_KNOB_BIN (0: short kernel below 2^18 elements, else the flat kernel with 4 vectors a thread;
# 9: the flat kernel at every size (before); 3: one vector a thread at large sizes; 4: 4 vectors a
# thread loaded with L2 evict_first) and INFINI_KNOB_SILU=4 (silu_and_mul's large row kernel with
# evict_first loads). Usage: bash benchmarks/probe/gpu_bin2_s13.sh
source .ci/gpu_setup.sh || exit 1
for k in 3 4; do INFINI_KNOB_BIN=$k INFINI_KNOB_SILU=$k timeout 100 python3 -m pytest -q test/test_ops.py -k "swiglu or add or mul or silu_and_mul" -p no:cacheprovider > $OUT/tests_bin$k.log 2>&1; echo "tests knob $k rc $?"; tail -1 $OUT/tests_bin$k.log; done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py INFINI_KNOB_BIN=0,9,3,4 swiglu:decode,prefill,large --rounds 3 --reps 30 --impls compile,triton,liger > $OUT/ab_bin2.txt 2>&1; echo "bin rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_bin2.txt
t=$(date +%s); timeout 120 python3 ab_knobs.py INFINI_KNOB_SILU=0,4 silu_and_mul:prefill,large --rounds 3 --reps 30 --impls compile,triton > $OUT/ab_silu2.txt 2>&1; echo "silu rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_silu2.txt
