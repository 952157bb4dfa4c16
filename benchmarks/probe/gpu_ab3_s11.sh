# Eleventh session: silu_and_mul at decode sizes, A/B through the temporary knob INFINI_KNOB_SILU (removed
# before committing): 0 = the row kernel (8-byte pieces, 128 threads, grid (column blocks, rows), a row
# loop); 1 = no loop, grid (rows, column blocks) as Triton's _gate_kernel; 2 = the same with 16-byte pieces
# (Triton's geometry); 3 = no loop, grid (column blocks, rows). Usage: bash benchmarks/probe/gpu_ab3_s11.sh
source .ci/gpu_setup.sh || exit 1
for k in 1 2 3; do INFINI_KNOB_SILU=$k timeout 100 python3 -m pytest -q test -k "silu_and_mul or SiluAndMul or swiglu_mlp or decoder" -p no:cacheprovider > $OUT/tests_$k.log 2>&1; echo "knob $k tests rc $?"; tail -1 $OUT/tests_$k.log; done
cd benchmarks/probe
timeout 150 python3 ab_knobs.py INFINI_KNOB_SILU=0,1,2,3 silu_and_mul:decode --rounds 4 --reps 40 --impls compile,triton 2>&1 | grep -v -i warn > $OUT/ab_silu.txt; grep -A20 "^medians" $OUT/ab_silu.txt
cd ../..
for k in 0 1 2; do INFINI_KNOB_SILU=$k timeout 100 python3 -m infinicore_torch.bench --device cuda --ops silu_and_mul --shapes decode --impls infini,compile,triton --dtypes bfloat16 --budget 0.3 --busy-us 100 --no-plots --out $OUT/b$k > $OUT/bench_$k.txt 2>&1; echo "knob $k"; python3 benchmarks/best_peer.py $OUT/bench_$k.txt 2>&1 | tail -2; done
