# 55th session, call 4: (1) is racecheck's "failed to handle a hardware exception" at the decode step ours? The
# failing piece is linear bf16 4 x 2048 x 2048, which goes to cuBLASLt (gemm.cpp: 16-bit 2-4 rows are not gemv's),
# so the same product through torch's F.linear (cuBLAS, none of our kernels) under racecheck, with our kernels only
# instrumented and with every kernel; (2) the best-peer bar's three decode rows in five fresh processes each.
START=$(date +%s); DEADLINE_S=${DEADLINE_S:-520}
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
race() {  # NAME FILTER PIECE DEVICE DTYPE
  local n=$1 f=(); [ $2 = ours ] && f=(--kernel-name kns=infini)
  timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool racecheck --racecheck-report all "${f[@]}" --print-limit 200 \
    --show-backtrace device --log-file /tmp/$n.log python3 benchmarks/probe/step_race.py $3 $4 $5 > /tmp/$n.txt 2>&1
  echo "[$n $*] rc $? $(tail -1 /tmp/$n.txt | cut -c1-100) | $(grep -h SUMMARY /tmp/$n.log | head -1)"
  python3 benchmarks/sanitize_digest.py /tmp/$n.log --top 3 | sed -n 1,8p
}
{
race tl_ours ours torch_linear cuda bfloat16 & race tl_all all torch_linear cuda bfloat16 &
race tl_f32 all torch_linear cuda float32 & race lin_f32_ours ours linear cuda float32 &
wait
} > $OUT/race.txt 2>&1
cat $OUT/race.txt | grep "^\["
for i in 1 2 3 4 5; do
  [ $(( START + DEADLINE_S - $(date +%s) )) -lt 70 ] && break
  t=$(date +%s)
  timeout $(( START + DEADLINE_S - $(date +%s) - 5 )) python3 -m infinicore_torch.bench --device cuda --shapes decode --budget 0.2 \
    --busy-us 100 --ops rms_norm,rope,paged_caching --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/r$i > /tmp/r$i.txt 2>&1
  echo "run $i rc $? $(( $(date +%s) - t )) s"; cp /tmp/r$i.txt $OUT/decode_run$i.txt
done
python3 benchmarks/repeat_runs.py $OUT/decode_run*.txt > $OUT/repeat.txt 2>&1; cat $OUT/repeat.txt | head -40
rm -f $OUT/build.log $OUT/pip_wheels.log
