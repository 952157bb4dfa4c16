# Twenty-fourth session, eighth call (H200): float32 layer_norm of many rows under a temporary knob XLN (0: 4
# pieces a thread, 256 threads, as is; 1: 2 pieces, 512 threads; 3: 1 piece, 1024 threads): the norm tests
# under each, kernel A/B against compile. Usage: bash benchmarks/probe/gpu_lnf32_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 1 3; do XLN=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "norm" -p no:cacheprovider > $OUT/t$v.txt 2>&1; echo "XLN=$v tests rc $?: $(tail -1 $OUT/t$v.txt)"; done
for v in 0 1 3; do XLN=$v timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes prefill,large --budget 0.2 --busy-us 100 --ops layer_norm --impls infini,compile --dtypes float32,bfloat16 --no-plots --out $OUT/tool$v > $OUT/tool$v.txt 2>&1; grep -E "^layer_norm" $OUT/tool$v.txt | awk -v v=$v '{printf "XLN=%s %s %s %s %s | ", v, $2, $3, $4, $5} $4=="compile" {print ""}'; done
