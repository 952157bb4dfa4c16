# Seventeenth session, first call: the sixteenth session's unrun mends (attention and softmax tests), then
# temporary knobs: PA_PARTS=N (much-work decode plans forced to N partitions), PA_T16=1 (the bulk kernel
# copies a paged block of 16 rows in one copy), PA_OCC (prints the decode kernels' occupancy).
# Usage: bash benchmarks/probe/gpu_parts_s17.sh
# (The knobs named here (PA_PARTS, PA_T16, PA_OCC) were removed after the session's experiments: RESULTS.md, seventeenth session.)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 200 python3 -m pytest -q test/test_ops_attention.py test/test_ops.py -k "attention or softmax" -p no:cacheprovider > $OUT/t_base.log 2>&1
echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_base.log)"; grep -E "^FAILED|Error" $OUT/t_base.log | head -5
t=$(date +%s); PA_T16=1 timeout 120 python3 -m pytest -q test/test_ops_attention.py -k "paged" -p no:cacheprovider > $OUT/t_t16.log 2>&1
echo "t16 tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_t16.log)"; grep -E "^FAILED|Error" $OUT/t_t16.log | head -5
cd benchmarks/probe
PA_OCC=1 python3 -c "
import torch, infinicore_torch
from cases import cases
for op, label, impl, fn, inputs in cases(['paged_attention:decode,prefill'], ['infini'], torch.device('cuda')):
    fn(*inputs); torch.cuda.synchronize(); print(label)
" 2>&1 | grep -v -i warn | tee $OUT/occ.txt
t=$(date +%s); timeout 220 python3 ab_knobs.py PA_PARTS=0,1,3,4,6 paged_attention:prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_parts.txt 2>&1; echo "ab parts rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_parts.txt | sed -n '/medians/,$p'
t=$(date +%s); timeout 150 python3 ab_knobs.py PA_T16=0,1 paged_attention:decode,prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_t16.txt 2>&1; echo "ab t16 rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_t16.txt | sed -n '/medians/,$p'
