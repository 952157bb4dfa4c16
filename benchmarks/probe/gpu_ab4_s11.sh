# Eleventh session: paged_caching's row kernel with the slot's block/row by a multiply-shift and, where
# they fit, 32-bit k/v/slot offsets; A/B through the temporary knob INFINI_KNOB_PAGED (removed before
# committing): 0 = 32-bit offsets, 1 = 64-bit. Tests and memcheck (default knob), kernel durations, the
# tool. Usage: bash benchmarks/probe/gpu_ab4_s11.sh
source .ci/gpu_setup.sh || exit 1
K="paged or caching"
t=$(date +%s); timeout 150 python3 -m pytest -q test -k "$K" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
INFINI_KNOB_PAGED=1 timeout 150 python3 -m pytest -q test -k "$K" -p no:cacheprovider > $OUT/tests1.log 2>&1; echo "tests knob 1 rc $?"; tail -1 $OUT/tests1.log
cd benchmarks/probe
timeout 150 python3 ab_knobs.py INFINI_KNOB_PAGED=0,1 paged_caching:decode,prefill --rounds 3 --reps 40 --impls compile 2>&1 | grep -v -i warn > $OUT/ab_paged.txt; grep -A20 "^medians" $OUT/ab_paged.txt
cd ../..
timeout 150 python3 -m infinicore_torch.bench --device cuda --ops paged_caching --shapes decode,prefill,large --impls infini,torch,compile --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $?"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -6
t=$(date +%s); timeout 170 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops.py test/test_ops_attention.py -k "$K" -p no:cacheprovider > $OUT/memcheck.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.log | tail -2
