# Twenty-fifth session, sixth call (H200): the stream pattern's plain copy through registers with each warp's
# (The calls ran this measurement as rows_s25.py, since folded into softmax_rows.py --copy: the same rounds and timer.)
# 8 KiB of a line contiguous (XSV=6, 15) or the line's pieces interleaved over the cluster's 32 warps in
# segments of 512 bytes (13) or 2 KiB (14) a warp; torch's copy alongside. Usage: bash benchmarks/probe/gpu_ilv_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
cd benchmarks/probe
timeout 200 python3 softmax_rows.py XSV=16,6,13,14,15 --rows 512,264 --reps 30 --copy > $OUT/rows.txt 2>&1; sed -n '/medians/,$p' $OUT/rows.txt
