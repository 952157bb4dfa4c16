# Thirteenth session: the tool's L2 flush now resets persisting lines first (cuCtxResetPersistingL2Cache).
# Checks that it works (ncu DRAM bytes after the flush; warm_probe flush/old/noflush), then the tool on
# the memory-bound ops' decode and prefill sets both ways (--keep-persisting: the old flush), and the
# knobs INFINI_KNOB_NORM / INFINI_KNOB_ROPE again under the new flush. Usage: bash benchmarks/probe/gpu_flush_s13.sh
source .ci/gpu_setup.sh || exit 1
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
t=$(date +%s)
timeout 200 ncu --profile-from-start off --cache-control none --clock-control none --replay-mode application --metrics $M -k 'regex:normKernel|rope|Rope|triton|rms' --nvtx -f -o $OUT/ncu_reset \
  python3 benchmarks/probe/ncu_probe.py rms_norm:decode rope:decode --impls infini,compile,triton,liger --flush > $OUT/ncu_run.log 2>&1; echo "ncu rc $? $(( $(date +%s) - t )) s"
ncu --import $OUT/ncu_reset.ncu-rep --page raw --csv --print-units base --print-nvtx-rename kernel --metrics $M > $OUT/ncu_reset.csv 2>&1
python3 -c "
import csv,sys
r=list(csv.reader(open('$OUT/ncu_reset.csv'))); h=r[0]; ix={k:i for i,k in enumerate(h)}; ms=[k for k in h if '__' in k]
print('kernel'.ljust(44),' '.join(m.replace('lts__t_sectors_srcunit_tex_op_','L2 ').replace('.sum','')[:16].rjust(16) for m in ms))
[print(x[ix['Kernel Name']][:44].ljust(44),' '.join(x[ix[m]][:16].rjust(16) for m in ms)) for x in r[2:]]"
cd benchmarks/probe
t=$(date +%s); timeout 120 python3 warm_probe.py rms_norm:decode add_rms_norm:decode rope:decode,prefill silu_and_mul:decode --modes flush,old,noflush --rounds 3 --reps 30 > $OUT/warm.txt 2>&1; echo "warm rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/warm.txt | tail -25
t=$(date +%s); timeout 90 python3 ab_knobs.py INFINI_KNOB_NORM=0,1 rms_norm:decode add_rms_norm:decode --rounds 3 --reps 40 --impls compile,triton,liger > $OUT/ab_norm.txt 2>&1; echo "norm rc $?"; sed -n '/medians/,$p' $OUT/ab_norm.txt
t=$(date +%s); timeout 90 python3 ab_knobs.py INFINI_KNOB_ROPE=0,124,421 rope:decode,prefill --rounds 3 --reps 40 --impls compile,triton > $OUT/ab_rope.txt 2>&1; echo "rope rc $?"; sed -n '/medians/,$p' $OUT/ab_rope.txt
cd ../..
O="--device cuda --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching --shapes decode,prefill --impls infini,torch,compile,triton,liger --dtypes bfloat16 --budget 0.2 --busy-us 100 --no-plots"
t=$(date +%s); timeout 150 python3 -m infinicore_torch.bench $O --out $OUT/b_new > $OUT/bench_new.txt 2>&1; echo "bench new rc $? $(( $(date +%s) - t )) s"
t=$(date +%s); timeout 150 python3 -m infinicore_torch.bench $O --keep-persisting --out $OUT/b_old > $OUT/bench_old.txt 2>&1; echo "bench old rc $? $(( $(date +%s) - t )) s"
for f in new old; do echo "== $f"; python3 benchmarks/best_peer.py $OUT/bench_$f.txt | awk -F'|' 'NR>2 {print $2,$3,$4,$5,$6,$7}'; done
