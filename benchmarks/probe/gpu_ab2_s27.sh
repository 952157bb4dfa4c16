# Twenty-seventh session, third call (H200): the flat silu_and_mul decode kernel (tests, memcheck, kernel
# us against the peers); rms_norm 16384x4096 with the weights loaded plainly (XRN=5) or non-coherently
# (XRN=6) instead of by relaxed gpu-scope loads (L2 every row), tool-timed and by kernel, against Liger;
# where the MANY kernels' loads sit (SASS). Usage: bash benchmarks/probe/gpu_ab2_s27.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
timeout 100 python3 -m pytest -q test/test_ops.py -k "silu_and_mul or out_forms" -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"
timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py -k "silu_and_mul" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
cd benchmarks/probe
timeout 100 python3 kernel_times.py silu_and_mul:decode --impls infini,triton,compile > $OUT/kt.txt 2>&1; echo "kt rc $?"; grep kernels $OUT/kt.txt | cut -c1-110
timeout 150 python3 ab_events.py XRN=0,5,6 rms_norm:large --impls liger --rounds 3 --reps 150 > $OUT/ev_rms.txt 2>&1; echo "ev_rms rc $?"; grep " us " $OUT/ev_rms.txt
timeout 120 python3 ab_knobs.py XRN=0,5,6 rms_norm:large --impls liger --rounds 3 > $OUT/ab_rms.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_rms.txt
timeout 100 python3 ab_events.py X=0 silu_and_mul:decode --impls compile,triton --rounds 3 --reps 300 > $OUT/ev_silu.txt 2>&1; echo "ev_silu rc $?"; grep " us " $OUT/ev_silu.txt
cd ../..
/usr/local/cuda/bin/cuobjdump -sass infinicore_torch/lib/libinfini_backend_nvidia.so | awk '/Function :/ {p = ($0 ~ /normKernel/ && $0 ~ /NormE0E13__nv_bfloat16S._Li8ELi2ELb1ELb1ELb0ELi[123]/)} p' > /tmp/sass_norm.txt
grep -n -E "Function|LDG|BAR|SHFL|STG" /tmp/sass_norm.txt | sed -E 's#/\*[0-9a-f]{4}\*/##; s#\s+/\*.*##; s#  +# #g' > $OUT/sass_norm_lines.txt; wc -l $OUT/sass_norm_lines.txt
