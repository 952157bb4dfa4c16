# Thirteenth session: decode-size binary ops (swiglu/add/mul) in a short kernel, through the temporary
# knob INFINI_KNOB_BIN (0: the flat kernel, 1: binarySmall in 8-byte pieces, 2: in 16-byte pieces), its
# tests under each knob value, and rope's pieces (<= 4 tokens: 8 bytes). Usage: bash benchmarks/probe/gpu_bin_s13.sh
source .ci/gpu_setup.sh || exit 1
for k in 1 2; do INFINI_KNOB_BIN=$k timeout 100 python3 -m pytest -q test/test_ops.py test/test_autograd.py -k "swiglu or add or mul" -p no:cacheprovider > $OUT/tests_bin$k.log 2>&1; echo "tests knob $k rc $?"; tail -1 $OUT/tests_bin$k.log; grep -E "^FAILED" $OUT/tests_bin$k.log | head -5; done
timeout 100 python3 -m pytest -q test/test_ops.py -k "rope" -p no:cacheprovider > $OUT/tests_rope.log 2>&1; echo "rope tests rc $?"; tail -1 $OUT/tests_rope.log
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 ab_knobs.py INFINI_KNOB_BIN=0,1,2 swiglu:decode,prefill --rounds 3 --reps 40 --impls compile,triton,liger > $OUT/ab_bin.txt 2>&1; echo "bin rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab_bin.txt
t=$(date +%s); timeout 60 python3 kernel_times.py rope:decode --reps 30 --impls infini,compile,triton > $OUT/kernels_rope.txt 2>&1; echo "kernels rc $?"; grep -v -i warn $OUT/kernels_rope.txt | cut -c1-70
