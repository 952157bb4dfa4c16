# Twelfth session: test_rope on the nvidia backend (the 2-D / strided position cases added last session),
# then paged_attention decode: our kernel on shuffled vs in-order cache blocks against SDPA, with the
# temporary launch-time knob INFINI_KNOB_PA (grid order: 0 = parts fastest, 1 = kv heads fastest then
# parts, 2 = kv heads, then sequences, then parts; removed before committing).
# Usage: bash benchmarks/probe/gpu_pa_s12.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "rope" -p no:cacheprovider > $OUT/rope_tests.log 2>&1; echo "rope tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/rope_tests.log; grep -E "^FAILED" $OUT/rope_tests.log | head
for k in 1 2; do INFINI_KNOB_PA=$k timeout 150 python3 -m pytest -q test -k "paged_attention" -p no:cacheprovider > $OUT/pa_tests$k.log 2>&1; echo "pa tests knob $k rc $?"; tail -1 $OUT/pa_tests$k.log; done
cd benchmarks/probe
timeout 240 python3 pa_layout.py INFINI_KNOB_PA=0,1,2 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_layout.txt; grep -A40 "^medians" $OUT/pa_layout.txt
