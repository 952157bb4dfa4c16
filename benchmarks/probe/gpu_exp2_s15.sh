# Fifteenth session, second call (H200): SMX_STREAM=C*10+S (persistent clusters of C blocks, S bulk-copy
# buffers a block, SMX_T threads) against the present softmax; PA_PARTS (partitions of the paged decode)
# over values, a process each (the plan reads it). Usage: bash benchmarks/probe/gpu_exp2_s15.sh
# (The knobs named here were removed after the session's experiments: RESULTS.md, fifteenth session.)
source .ci/gpu_setup.sh || exit 1
for e in SMX_STREAM=43 SMX_STREAM=83; do
  t=$(date +%s); env $e timeout 100 python3 -m pytest -q -x test/test_ops.py -k softmax -p no:cacheprovider > $OUT/t_$e.txt 2>&1
  echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_$e.txt)"; grep -E "^FAILED|Error" $OUT/t_$e.txt | head -3
done
cd benchmarks/probe
t=$(date +%s); SMX_T=512 timeout 120 python3 ab_knobs.py SMX_STREAM=0,42,43,82,83,84,164 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_st512.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_st512.txt | tail -8
t=$(date +%s); SMX_T=256 timeout 80 python3 ab_knobs.py SMX_STREAM=43,83,84 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_st256.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_st256.txt | tail -4
for P in x 1 2 3 4 6 8; do
  if [ $P = x ]; then unset PA_PARTS; im=infini,torch; else export PA_PARTS=$P; im=infini; fi
  timeout 40 python3 kernel_times.py paged_attention:prefill --reps 20 --impls $im 2>&1 | grep -v -i warn | sed "s/^/parts=$P /" | cut -c1-220
done | tee $OUT/pa_parts.txt
