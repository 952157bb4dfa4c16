# Twenty-eighth session, fifth call (H200): compute-sanitizer memcheck over every op test file at the session's
# kernels (the knob below unset: the default kernels); paged_caching at 4096-32768 tokens with the k/v load and
# cache store policies of XPC (0 as is, 1 loads L2 evict_first, 2 plain loads + streaming stores, 3 both), kernel us
# and tool-timed, against compile. Usage: bash benchmarks/probe/gpu_pc_s28.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
t=$(date +%s); timeout 300 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops*.py -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
cd benchmarks/probe
timeout 100 python3 ab_knobs.py XPC=0,1,2,3 paged_caching:prefill,large --impls compile --rounds 3 > $OUT/ab_pc.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_pc.txt
timeout 100 python3 ab_events.py XPC=0,1,2,3 paged_caching:prefill,large --impls compile --rounds 3 --reps 100 > $OUT/ev_pc.txt 2>&1; echo "ev rc $?"; grep " us " $OUT/ev_pc.txt
