# The tiled kernel's query rows by cp.async + ldmatrix and output rows by stmatrix + 16-byte stores (40th session):
# builds the working tree, runs the attention tests, the tool over attention and paged_attention_prefill against
# SDPA, then applies flash_stamps_s40.patch, rebuilds and runs probe/flash_stamps.py (the per-block phases).
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 150 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider -x > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"; grep -E "^FAILED|Error" $OUT/tests.txt | head -8
timeout 120 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops attention,paged_attention_prefill --impls infini,torch --dtypes bfloat16 > $OUT/tool.txt 2>&1; echo "tool rc $?"; grep -E "^(attention|paged_attention_prefill) " $OUT/tool.txt
if [ -z "$NOSTAMPS" ]; then
git apply benchmarks/probe/flash_stamps_s40.patch || { echo "patch failed"; exit 1; }
t=$(date +%s); INFINI_WITH_NVIDIA=1 python3 -m pip install --no-build-isolation -e . > /tmp/build2.log 2>&1 || { tail -30 /tmp/build2.log; exit 1; }; echo "rebuild $(( $(date +%s) - t )) s"
timeout 150 python3 benchmarks/probe/flash_stamps.py --calls 2 ${CASES:+--cases $CASES} > $OUT/stamps.txt 2>&1; echo "stamps rc $?"; awk '/call 1:/{n=8} n>0{print; n--}' $OUT/stamps.txt | cut -c1-200
git apply -R benchmarks/probe/flash_stamps_s40.patch
fi
rm -f $OUT/build.log $OUT/pip_wheels.log
