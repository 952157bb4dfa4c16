# Twelfth session: paged_attention decode (GQA) with the key/value pieces brought by cp.async into
# per-warp shared-memory stages, through the temporary knob INFINI_KNOB_PA (0 the register kernel, 1 it
# with L2::256B loads; cp.async: 2 = 2 stages, 3 = 3 stages, 4 = 2 stages + L2::256B, 5 = 3 + L2::256B,
# 6 = 4 + L2::256B; removed before committing). Tests and memcheck under each, then kernel durations.
# Usage: bash benchmarks/probe/gpu_pa3_s12.sh
source .ci/gpu_setup.sh || exit 1
for k in 2 3 4 5 6; do INFINI_KNOB_PA=$k timeout 100 python3 -m pytest -q test -k "paged_attention" -p no:cacheprovider > $OUT/pa_tests$k.log 2>&1; echo "pa tests knob $k rc $?"; tail -1 $OUT/pa_tests$k.log; grep -E "^FAILED" $OUT/pa_tests$k.log | head -3; done
t=$(date +%s); INFINI_KNOB_PA=5 timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention" -p no:cacheprovider > $OUT/memcheck5.log 2>&1; echo "memcheck knob 5 rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck5.log | tail -2
cd benchmarks/probe
timeout 200 python3 pa_layout.py INFINI_KNOB_PA=0,1,2,3,4,5,6 --shapes 64x2048x8,16x1024x8,8x512x8 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_async.txt; grep -A40 "^medians" $OUT/pa_async.txt
