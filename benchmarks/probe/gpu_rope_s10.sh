# Tenth session, rope at 1024 tokens (ours 7.7 us against Triton's 5.2): plain loads for the position and
# the table rows instead of the read-only path (KNOB_ROPE_PLAIN, a switch of that build only), and ncu's
# memory tables for ours and Triton's kernel. Usage: bash benchmarks/probe/gpu_rope_s10.sh
source .ci/gpu_setup.sh || exit 1
KT="python3 benchmarks/probe/kernel_times.py --reps 60"
f() { grep -v -i "warn" | sed "s/^/$1 /"; }
for pl in 0 1 0 1; do KNOB_ROPE_PLAIN=$pl $KT rope:decode,prefill --impls infini 2>&1 | f plain$pl; done | tee $OUT/rope_plain.txt
$KT rope:prefill --impls triton 2>&1 | f peer | tee -a $OUT/rope_plain.txt
timeout 200 ncu --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section LaunchStats --section Occupancy \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum,sm__cycles_active.avg,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum \
  --nvtx -f -o $OUT/rope python3 benchmarks/probe/ncu_probe.py rope:prefill --impls infini,triton > $OUT/ncu_run.log 2>&1; echo "ncu rc $?"
ncu --import $OUT/rope.ncu-rep --page details --print-units base > $OUT/ncu_rope.txt 2>&1; rm -f $OUT/rope.ncu-rep
awk '/^  [a-z_]+ [0-9x]+ [a-z]+ ?/{name=$1" "$2" "$3} /Duration|dram__bytes|lts__t_sectors|inst_executed|cycles_active|Warp Cycles Per Issued|L2 Hit Rate|DRAM Throughput/{print name, $0}' $OUT/ncu_rope.txt | sed 's/  */ /g'
