# Thirteenth session: silu_and_mul at decode sizes in a loop-free kernel (loads right after one bound
# check), through the temporary knob INFINI_KNOB_SILU (0: the row kernel, 1: siluAndMulSmall in 8-byte
# pieces, 2: in 16-byte pieces), with the tests under each value. Usage: bash benchmarks/probe/gpu_silu_s13.sh
source .ci/gpu_setup.sh || exit 1
for k in 1 2; do INFINI_KNOB_SILU=$k timeout 100 python3 -m pytest -q test/test_ops.py test/test_autograd.py -k "silu_and_mul" -p no:cacheprovider > $OUT/tests_silu$k.log 2>&1; echo "tests knob $k rc $?"; tail -1 $OUT/tests_silu$k.log; done
cd benchmarks/probe
t=$(date +%s); timeout 120 python3 ab_knobs.py INFINI_KNOB_SILU=0,1,2 silu_and_mul:decode --rounds 4 --reps 40 --impls compile,triton > $OUT/ab_silu_small.txt 2>&1; echo "silu rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_silu_small.txt
