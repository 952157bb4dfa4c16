# Thirteenth session: why the peers' decode-size kernels lose less to the tool's L2 flush than ours
# (warm_probe.py: rms_norm 16x4096 ours 1.63 -> 2.13 us with the flush, Liger 1.54 -> 1.70): ncu with
# --cache-control none after the tool's flush (ncu_probe.py --flush), application replay, L2/DRAM
# sector counts per kernel; and the peers' PTX (cache hints). Usage: bash benchmarks/probe/gpu_ncu_s13.sh
source .ci/gpu_setup.sh || exit 1
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum
K='regex:normKernel|rope|Rope|triton|rms|gate|siluAndMul'
for fl in --flush; do
t=$(date +%s)
timeout 330 ncu --profile-from-start off --cache-control none --clock-control none --replay-mode application --metrics $M -k "$K" --nvtx -f -o $OUT/ncu$fl \
  python3 benchmarks/probe/ncu_probe.py rms_norm:decode rope:decode silu_and_mul:decode --impls infini,compile,triton,liger $fl > $OUT/ncu_run$fl.log 2>&1; echo "ncu $fl rc $? $(( $(date +%s) - t )) s"; tail -2 $OUT/ncu_run$fl.log
ncu --import $OUT/ncu$fl.ncu-rep --page raw --csv --print-units base --print-nvtx-rename kernel --metrics $M > $OUT/ncu$fl.csv 2>&1
python3 - "$OUT/ncu$fl.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]
ix = {h: i for i, h in enumerate(hdr)}
short = lambda m: m.replace("lts__t_sectors_srcunit_tex_op_", "L2 ").replace("dram__bytes_", "dram ").replace(".sum", "").replace("gpu__time_duration", "ns")
ms = [h for h in hdr if "__" in h]
print("kernel".ljust(44), " ".join(short(m)[:14].rjust(14) for m in ms))
for r in rows[2:]:
    print(r[ix["Kernel Name"]][:44].ljust(44), " ".join(r[ix[m]][:14].rjust(14) for m in ms))
PY
done
mkdir -p $OUT/ptx; find / -xdev \( -path /proc -o -path /sys \) -prune -o -name "*.ptx" -mmin -15 -print 2>/dev/null | head -60 | while read f; do cp "$f" $OUT/ptx/$(basename $(dirname "$f"))_$(basename "$f"); done; ls $OUT/ptx | head -40
