# 43rd session, call 6 (main's code: a7804a8's timer check, 716a970's kernels): the other bars with the checked timer -
# paged_attention decode vs SDPA, random_sample vs torch's sampler, gemm/linear vs torch (bf16), then the host loop
# and gemm/linear in float32 in what is left.
T0=$(date +%s)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
b() { local name=$1 limit=$2; shift 2; timeout $limit python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 "$@" > $OUT/$name.txt 2>&1; echo "$name rc $?"; }
b bench_bf16 200 --ops paged_attention,random_sample,gemm,linear --impls infini,torch --dtypes bfloat16 --out /tmp/b
grep -hE "^(paged_attention|random_sample|gemm|linear) .* (infini|torch) |busy" $OUT/bench_bf16.txt
timeout 60 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
left=$(( 560 - ($(date +%s) - T0) )); echo "left $left s"
b bench_fp32 $left --ops gemm,linear,random_sample --impls infini,torch --dtypes float32 --out /tmp/c
grep -hE "^(gemm|linear|random_sample) .* (infini|torch) |busy" $OUT/bench_fp32.txt
