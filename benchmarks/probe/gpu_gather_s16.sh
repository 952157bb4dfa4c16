# Sixteenth session, third call (H200): what a shuffled 4 KiB-chunk gather reads at (gather_bw.py), and
# the MHA decode through the tensor-core kernel (PA_TC1=1, a plan-time knob: a process each), with
# registers and with the bulk ring (PA_BULK=2), against SDPA. Usage: bash benchmarks/probe/gpu_gather_s16.sh
# (The knobs named here (PA_PF, PA_BULK, PA_TC1) were removed after the session's experiments:
# RESULTS.md, sixteenth session; the tile copies with 2 slots became decodeBulkKernel.)
source .ci/gpu_setup.sh || exit 1
timeout 60 python3 benchmarks/probe/gather_bw.py 2>&1 | tee $OUT/gather.txt
PA_TC1=1 timeout 100 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -k "paged_attention" -p no:cacheprovider > $OUT/t_tc1.log 2>&1; echo "TC1 tests rc $?: $(tail -1 $OUT/t_tc1.log)"
cd benchmarks/probe
for e in "X=0" "PA_TC1=1" "PA_TC1=1 PA_BULK=2" "PA_TC1=1 PA_BULK=3"; do
  env $e timeout 60 python3 kernel_times.py paged_attention:prefill --reps 20 --impls infini,torch 2>&1 | grep -v -i warn | sed "s/^/$e /" | cut -c1-200
done | tee $OUT/mha_tc.txt
