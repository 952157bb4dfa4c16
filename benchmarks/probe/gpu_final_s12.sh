# Twelfth session: (1) the tensor-core decode kernel's key/value loads with L1::no_allocate, through the
# temporary knob INFINI_KNOB_PA (0 = as committed: L2::256B; 1 = + L1::no_allocate; 2 = + .nc; 3 = keys
# only no_allocate; removed before committing); (2) the comparison tool over the bar ops, default knob.
# Usage: bash benchmarks/probe/gpu_final_s12.sh
source .ci/gpu_setup.sh || exit 1
for k in 1 2 3; do INFINI_KNOB_PA=$k timeout 60 python3 -m pytest -q test -k "paged_attention" -p no:cacheprovider > $OUT/pa_tests$k.log 2>&1; echo "pa tests knob $k rc $?"; tail -1 $OUT/pa_tests$k.log; done
cd benchmarks/probe
timeout 120 python3 pa_layout.py INFINI_KNOB_PA=0,1,2,3 --shapes 64x2048x8,16x1024x8,8x512x8 --rounds 3 2>&1 | grep -v -i warn > $OUT/pa_na.txt; grep -A40 "^medians" $OUT/pa_na.txt | grep -v in-order
cd ../..
t=$(date +%s); timeout 280 python3 -m infinicore_torch.bench --device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,paged_attention --shapes decode,prefill,large --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots --out $OUT/b > $OUT/bench.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; python3 benchmarks/best_peer.py $OUT/bench.txt 2>&1 | tail -48
