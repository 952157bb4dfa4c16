# 43rd session, call 3 (main's kernels): does rms_norm 16x4096's gap to Liger depend on how long the timer keeps
# the GPU busy before the start event (Liger's Python launcher takes ~100 us; the tool's bar runs use 100)?
# The comparison tool over rms_norm / add_rms_norm decode rows at --busy-us 100, 300, 1000, twice each,
# alternating; then the best-peer bar ops at --busy-us 300 in what is left.
T0=$(date +%s)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt
for r in 1 2; do for b in 100 300 1000; do
  timeout 60 python3 -m infinicore_torch.bench --device cuda --shapes decode --ops rms_norm,add_rms_norm --budget 0.2 --busy-us $b \
    --impls infini,compile,triton,liger --dtypes bfloat16 --out /tmp/b$b > /tmp/busy.txt 2>&1
  echo "== busy $b run $r" >> $OUT/busy.txt; grep -E "^(rms_norm|add_rms_norm) " /tmp/busy.txt >> $OUT/busy.txt
done; done
python3 - <<'PY'
import re, collections
rows = collections.defaultdict(list); cur = None
for line in open(__import__("os").environ["OUT"] + "/busy.txt"):
    if line.startswith("=="): cur = line.split()[2]; continue
    f = line.split()
    rows[(f[0], f[1], cur)].append((f[3], float(f[4])))
for (op, shape, b), v in sorted(rows.items()):
    print(f"{op:13s} {shape:8s} busy {b:>5s}: " + "  ".join(f"{i} {t:.2f}" for i, t in v))
PY
left=$(( 570 - ($(date +%s) - T0) )); echo "tool limit $left s"
sed 's/--busy-us 100/--busy-us 300/' benchmarks/probe/bar_ops.sh > /tmp/bar300.sh; bash /tmp/bar300.sh $left
