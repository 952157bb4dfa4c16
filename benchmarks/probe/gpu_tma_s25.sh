# Twenty-fifth session, seventh call (H200): the stream pattern's plain copy through registers (XSV=6) against
# (The calls ran this measurement as rows_s25.py, since folded into softmax_rows.py --copy: the same rounds and timer.)
# the same by a bulk load into shared memory and a bulk store from it a warp (20); torch's copy alongside.
# Usage: bash benchmarks/probe/gpu_tma_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
cd benchmarks/probe
timeout 200 python3 softmax_rows.py XSV=16,6,20 --rows 512,264 --reps 30 --copy > $OUT/rows.txt 2>&1; sed -n '/medians/,$p' $OUT/rows.txt
