# Twenty-first session (H200): the unary kernels' layout (EW_R: 0 grid stride, 4 vectors a thread, as
# before; 1/2/3 one pass without a grid stride, 1/2/4 vectors a thread) on relu/silu/gelu against
# torch.compile and torch; the unary tests under each. Usage: bash benchmarks/probe/gpu_unary_s21.sh
source .ci/gpu_setup.sh || exit 1
for r in 1 2 3; do t=$(date +%s); EW_R=$r timeout 100 python3 -m pytest -q test/test_ops.py -k "relu or silu or gelu" -p no:cacheprovider > $OUT/t$r.log 2>&1; echo "tests EW_R=$r rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t$r.log)"; done
cd benchmarks/probe
t=$(date +%s); timeout 300 python3 ab_knobs.py EW_R=0,1,2,3 relu:decode,prefill,large silu:prefill,large gelu:large --reps 30 --rounds 3 --impls compile,torch > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
