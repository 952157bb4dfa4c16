# Eighteenth session, sixth call (H200): the whole suite with the nvidia backend and compute-sanitizer
# memcheck over the op tests (relu keeps -0: CPU bits path and nvidia); then the flat elementwise kernels
# with 128-thread blocks (temporary knob EW_T), grid-stride or contiguous chunks (EW_LOCAL).
# Usage: bash benchmarks/probe/gpu_suite_s18.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 240 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head
t=$(date +%s); timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
t=$(date +%s); EW_T=128 EW_LOCAL=1 timeout 60 python3 -m pytest -q test/test_ops.py -k "relu or add or mul or swiglu or silu or gelu or streamed" -p no:cacheprovider > $OUT/t128.log 2>&1; echo "EW_T=128 tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t128.log)"
cd benchmarks/probe
for l in 0 1; do t=$(date +%s); EW_LOCAL=$l timeout 100 python3 ab_knobs.py EW_T=256,128 add:prefill,large swiglu:prefill relu:prefill,large --impls torch --rounds 3 --reps 20 > $OUT/ab_t_l$l.txt 2>&1; echo "ab EW_T local=$l rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_t_l$l.txt | sed -n '/medians/,$p'; done
