# Twenty-fifth session, eighth call (H200): the stream softmax kernel (XSV=16) and its pattern's plain copy
# (The calls ran this measurement as rows_s25.py, since folded into softmax_rows.py --copy: the same rounds and timer.)
# through registers (6) with more clusters than the GPU holds at once (XG: 512 = one line a cluster, 2048
# blocks; 128 = 4 lines a cluster), against the persistent 64; torch's copy alongside.
# Usage: bash benchmarks/probe/gpu_np_s25.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
cd benchmarks/probe
for g in 64 512 128; do XG=$g timeout 80 python3 softmax_rows.py XSV=16,6 --rows 512 --reps 30 --copy > $OUT/np_$g.txt 2>&1; echo "XG=$g"; sed -n '/medians/,/GB/p' $OUT/np_$g.txt; done
