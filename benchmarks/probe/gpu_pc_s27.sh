# Twenty-seventh session, eighth call (H200): paged_caching geometries under the XPC knob (1: 16-byte pieces at
# 64 tokens; 2 / 3 / 4: 8-byte pieces with 8 / 1 / 2 heads a block; 5 / 6: 2 / 4 tokens a thread between four and
# eight waves), kernel us and tool-timed, against compile; inductor's code for 64 and 16384 tokens.
# Usage: bash benchmarks/probe/gpu_pc_s27.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
timeout 60 python3 -m pytest -q test/test_ops.py -k "paged_caching" -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"
for t in 64 16384; do timeout 60 python3 benchmarks/probe/compile_code.py paged_caching $t > $OUT/compile_pc_$t.txt 2>&1; echo "compile code $t rc $?"; done
grep -E "^def triton|tl.load|tl.store|XBLOCK|xnumel =|\.run\(|num_warps" $OUT/compile_pc_64.txt | head -30
cd benchmarks/probe
timeout 150 python3 ab_knobs.py XPC=0,1,2,3,4 paged_caching:decode --impls compile --rounds 3 > $OUT/ab_pc64.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_pc64.txt
timeout 150 python3 ab_knobs.py XPC=0,5,6 paged_caching:prefill --impls compile --rounds 3 > $OUT/ab_pcpf.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_pcpf.txt
timeout 150 python3 ab_events.py XPC=0,1,2,3,4,5 paged_caching:decode,prefill --impls compile --rounds 3 --reps 200 > $OUT/ev_pc.txt 2>&1; echo "ev rc $?"; grep " us " $OUT/ev_pc.txt
