# Fifteenth session, first call (H200): two experiments behind temporary knobs, their op tests, their
# kernel times against the present kernels, and ncu (occupancy, stalls, throughput) of both.
# SMX_BULK=KiB: softmax lines split over a cluster with each block's part in shared memory by one bulk
# copy. PA_STG=S: the tensor-core paged decode's keys/values through S stages of cp.async.
# Usage: bash benchmarks/probe/gpu_exp_s15.sh
# (The knobs named here were removed after the session's experiments: RESULTS.md, fifteenth session.)
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
for kv in SMX_BULK=32:softmax SMX_BULK=64:softmax PA_STG=2:paged_attention_decode PA_STG=3:paged_attention_decode; do
  e=${kv%%:*}; k=${kv#*:}; t=$(date +%s)
  env $e timeout 100 python3 -m pytest -q -x test/test_ops.py test/test_ops_attention.py -k "$k" -p no:cacheprovider > $OUT/t_$e.log 2>&1
  echo "$e tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_$e.log)"; grep -E "^FAILED|Error" $OUT/t_$e.log | head -3
done
cd benchmarks/probe
t=$(date +%s); timeout 110 python3 ab_knobs.py SMX_BULK=0,32,64 softmax:large --impls "" --rounds 3 --reps 20 > $OUT/ab_smx.txt 2>&1; echo "ab smx rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_smx.txt | tail -6
t=$(date +%s); timeout 130 python3 ab_knobs.py PA_STG=0,2,3,4 paged_attention:decode,prefill --impls torch --rounds 3 --reps 20 > $OUT/ab_pa.txt 2>&1; echo "ab pa rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/ab_pa.txt | tail -16
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats"
for e in "SMX_BULK=0 PA_STG=0" "SMX_BULK=32 PA_STG=2"; do
  t=$(date +%s); n=$(echo $e | tr ' =' '__')
  env $e timeout 80 ncu --profile-from-start off $S -k 'regex:softmax|decodeTc' python3 ncu_probe.py softmax:large paged_attention:prefill --impls infini > $OUT/ncu_$n.txt 2>&1
  echo "ncu $e rc $? $(( $(date +%s) - t )) s"
done
grep -E "^  [a-z].*Kernel|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|Waves Per SM|Max Active Clusters|Stall|Warp Cycles Per Issued" $OUT/ncu_*.txt | cut -c1-150 | head -90
