# Twenty-fifth session, fifth call (H200): the stream softmax kernel (XSV=16) and its pattern's plain copy
# (The calls ran this measurement as rows_s25.py, since folded into softmax_rows.py --copy: the same rounds and timer.)
# through registers (XSV=6) against torch's copy at 512 and 528 lines of 128256 (528 = 66 clusters x 8: every
# SM holds 2 blocks), and with the clusters capped (XG) at 512 lines. Usage: bash benchmarks/probe/gpu_rows_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
cd benchmarks/probe
timeout 150 python3 softmax_rows.py XSV=16,6 --rows 512,528,264 --reps 30 --copy > $OUT/rows.txt 2>&1; sed -n '/medians/,$p' $OUT/rows.txt
for g in 64 57 52 44; do XG=$g timeout 60 python3 softmax_rows.py XSV=16,6 --rows 512 --reps 30 --copy --rounds 2 > $OUT/xg_$g.txt 2>&1; echo "XG=$g"; sed -n '/medians/,/GB/p' $OUT/xg_$g.txt | grep -v copy; done
