# Twenty-first session, third call (H200): what makes the stream softmax kernel faster when a softmax runs
# just before the timed call (tool_gap_s21.py with a tiny cuBLAS mm, an elementwise kernel, a copy or a
# softmax before the start event), and its executed instructions by opcode (ncu InstructionStats).
# Usage: bash benchmarks/probe/gpu_diag_s21.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
timeout 150 python3 tool_gap_s21.py --reps 40 2>&1 | grep -v -i warn | tee $OUT/gap.txt
t=$(date +%s); timeout 150 ncu --profile-from-start off --section InstructionStats --section LaunchStats --section Occupancy --print-details all -k regex:softmaxStream python3 ncu_probe.py softmax:large --impls infini > $OUT/ncu_inst.txt 2>&1; echo "ncu rc $? $(( $(date +%s) - t )) s"
grep -v "^==PROF==" $OUT/ncu_inst.txt | sed -n '/softmaxStream/,$p' | head -120
t=$(date +%s); timeout 150 ncu --profile-from-start off --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__inst_issued.sum --print-metric-instances values -k regex:softmaxStream python3 ncu_probe.py softmax:large --impls infini > $OUT/ncu_op.txt 2>&1; echo "ncu2 rc $? $(( $(date +%s) - t )) s"
grep -E "sass__|smsp__inst" $OUT/ncu_op.txt | cut -c1-1500 | head -10
