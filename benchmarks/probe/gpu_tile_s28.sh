# Twenty-eighth session, second call (H200): silu_and_mul at decode sizes in Triton's geometry (XSM=1: a
# (row, 1024-column) tile a 128-thread block, 16-byte pieces, loads clamped into the row; XSM=2: the same in
# 8-byte pieces) against the flat kernel (XSM=0) and the peers: cold/hot kernel and event times, kernel
# times as the tool, tool-timed; tests. Usage: bash benchmarks/probe/gpu_tile_s28.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 1 2; do XSM=$v timeout 100 python3 -m pytest -q test/test_ops.py -k "silu_and_mul" -p no:cacheprovider > $OUT/tests_$v.txt 2>&1; echo "tests XSM=$v rc $?: $(tail -1 $OUT/tests_$v.txt)"; done
cd benchmarks/probe
timeout 200 python3 cold_modes.py silu_and_mul:decode --knob XSM=0,1,2 --impls infini,compile,triton --rounds 3 --reps 100 > $OUT/cold.txt 2>&1; echo "cold rc $?"; grep " | " $OUT/cold.txt
timeout 120 python3 ab_knobs.py XSM=0,1,2 silu_and_mul:decode --impls compile,triton --rounds 3 > $OUT/ab.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab.txt
timeout 150 python3 ab_events.py XSM=0,1,2 silu_and_mul:decode --busy-us 0 --impls compile,triton --rounds 5 --reps 300 > $OUT/ev.txt 2>&1; echo "ev rc $?"; grep " us " $OUT/ev.txt
