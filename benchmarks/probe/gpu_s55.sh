# 55th session, call 3: racecheck over the decode step's pieces (benchmarks/probe/step_race.py), one a process, then
# the paged_attention and random_sample bars (the two kernels changed since the 53rd session's bars run).
START=$(date +%s); DEADLINE_S=${DEADLINE_S:-560}
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
export OMP_NUM_THREADS=2
race() {  # PIECE DEVICE DTYPE [ENV]
  local n="$1_$2_$3$4"
  env $4 timeout 90 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --racecheck-report all --kernel-name kns=infini \
    --print-limit 200 --show-backtrace device --log-file /tmp/$n.log python3 benchmarks/probe/step_race.py $1 $2 $3 > /tmp/$n.txt 2>&1
  echo "[$n] rc $? $(tail -1 /tmp/$n.txt | cut -c1-100) | $(grep -h SUMMARY -A0 /tmp/$n.log | head -1)"
  python3 benchmarks/sanitize_digest.py /tmp/$n.log --top 3 | sed -n 1,12p
}
{
for p in linear attn chain; do for dev in infini cuda; do race $p $dev bfloat16 & done; done; wait
race chain infini float32 & race attn infini bfloat16 INFINI_PDL=0 & race linear infini bfloat16 INFINI_PDL=0 &
# plain (no sanitizer) runs: the pieces must work
for p in linear attn chain; do timeout 60 python3 benchmarks/probe/step_race.py $p infini bfloat16 2>&1 | tail -1; done
wait
} > $OUT/race.txt 2>&1
cat $OUT/race.txt | grep "^\[\|^ok" 
t=$(date +%s)
timeout 150 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
  --ops paged_attention --impls infini,torch --dtypes bfloat16 --out /tmp/b > $OUT/bench_pa.txt 2>&1; echo "pa rc $? $(( $(date +%s) - t )) s"
timeout 110 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
  --ops random_sample --impls infini,torch --dtypes float32 --out /tmp/d > $OUT/bench_sample.txt 2>&1; echo "sample rc $? $(( $(date +%s) - t )) s"
grep -hE "^(paged_attention|random_sample) .* (infini|torch) " $OUT/bench_pa.txt $OUT/bench_sample.txt
rm -f $OUT/build.log $OUT/pip_wheels.log
