# Twenty-third session, fifth call (H200 host's Xeon, AMX): bfloat16 linear with the weight on AMX's A side
# (swapped, as now) against on the B side (XNOSWAP=1, a temporary knob); correctness of the latter.
# Usage: bash benchmarks/probe/gpu_amx_s23.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
XNOSWAP=1 timeout 100 python3 -m pytest -q test/test_ops_gemm.py -p no:cacheprovider 2>&1 | tail -1
cd benchmarks/probe
for r in 1 2; do for e in XSWAP=1 XNOSWAP=1; do echo "== $e"; env $e timeout 100 python3 cpu_linear_s23.py --dtypes bfloat16 --ms 16,64,128,256,512,1024 --reps 8 2>&1 | grep linear; done; done
