# Twenty-eighth session, ninth call (H200): paged_caching with plain k/v loads (XPC=1) and also the slot loaded
# L1::evict_last (XPC=2), as inductor's kernel, against the relaxed gpu-scope loads (XPC=0): tests and memcheck
# under XPC=2, kernel us and tool-timed against compile. Usage: bash benchmarks/probe/gpu_pc3_s28.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 1 2; do XPC=$v timeout 100 python3 -m pytest -q test/test_ops_sampling.py -k "paged_caching" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests XPC=$v rc $?: $(tail -1 /tmp/t.txt)"; done
XPC=2 timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_sampling.py -k "paged_caching" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
cd benchmarks/probe
timeout 120 python3 ab_knobs.py XPC=0,1,2 paged_caching:prefill,large --impls compile --rounds 5 > $OUT/ab_pc.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_pc.txt
timeout 120 python3 ab_events.py XPC=0,1,2 paged_caching:prefill,large --busy-us 100 --impls compile --rounds 5 --reps 100 > $OUT/ev_pc.txt 2>&1; echo "ev rc $?"; grep " us " $OUT/ev_pc.txt
