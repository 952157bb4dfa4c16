# 51st session, call 5: the decode attention kernels (all three), attention's append, the gemv dot kernel (linear /
# gemm with 1-4 rows) and topk_softmax launched as programmatic dependents too: the build, the attention / gemm /
# sampling tests and the chain test (memcheck over the attention and gemm tests beside them), then back-to-back
# loops with the dependent launches off and on.
START=$(date +%s)
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
export OMP_NUM_THREADS=4
timeout -s INT 150 python3 -m pytest -q test/test_ops_attention.py test/test_ops_gemm.py test/test_ops_sampling.py -p no:cacheprovider > /tmp/t1.txt 2>&1 & a=$!
timeout -s INT 150 python3 -m pytest -q test/test_ops.py -k "dependent or embedding or rope" -p no:cacheprovider > /tmp/t2.txt 2>&1 & b=$!
timeout -s INT 170 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py test/test_ops_gemm.py -p no:cacheprovider -x > /tmp/mc.txt 2>&1 & c=$!
wait $a; echo "attention/gemm/sampling tests rc $?: $(tail -1 /tmp/t1.txt)"; grep -E "^FAILED" /tmp/t1.txt | head -5
wait $b; echo "chain/embedding/rope tests rc $?: $(tail -1 /tmp/t2.txt)"; grep -E "^FAILED" /tmp/t2.txt | head -5
wait $c; echo "memcheck rc $?: $(grep -E 'passed|failed' /tmp/mc.txt | tail -1) $(grep 'ERROR SUMMARY' /tmp/mc.txt)"
grep -B2 -A12 -m2 "Invalid\|Error " /tmp/mc.txt | head -30
cp /tmp/t1.txt /tmp/t2.txt $OUT/; grep -E "passed|ERROR SUMMARY" /tmp/mc.txt | tail -2 > $OUT/memcheck_tail.txt
echo "at $(( $(date +%s) - START )) s"
cd benchmarks/probe
OPS="paged_attention attention linear gemm topk_softmax rms_norm"
INFINI_PDL=0 timeout 45 python3 pdl_loop.py PDL_LOOP=off $OPS --rounds 3 --impls "" > $OUT/loop_off.txt 2>&1; echo "loop off rc $?"
timeout 45 python3 pdl_loop.py PDL_LOOP=on $OPS --rounds 3 --impls "" > $OUT/loop_on.txt 2>&1; echo "loop on rc $?"
paste <(grep -v "^ " $OUT/loop_off.txt | awk '{print $1, $2, $3, $6}') <(grep -v "^ " $OUT/loop_on.txt | awk '{print $6}')
echo "at $(( $(date +%s) - START )) s"
