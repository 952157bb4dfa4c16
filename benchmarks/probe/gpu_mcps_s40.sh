# 40th session, last call: memcheck over the op tests at the final code (gpu_verify.sh's memcheck, 330 s limit),
# then the persistent form's per-tile phases: applies flash_persist_stamps_s40.patch (flash_persist_s40.patch plus
# stamps indexed by a persistent block's tile), rebuilds and runs probe/flash_stamps.py.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s); timeout 300 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops*.py -p no:cacheprovider > /tmp/memcheck.txt 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"
grep -E "passed|failed|ERROR SUMMARY" /tmp/memcheck.txt | tail -2 | tee $OUT/memcheck_tail.txt; grep -B2 -A12 -m3 "Invalid\|Error" /tmp/memcheck.txt > $OUT/memcheck_errors.txt
git apply benchmarks/probe/flash_persist_stamps_s40.patch || { echo "patch failed"; exit 1; }
t=$(date +%s); INFINI_WITH_NVIDIA=1 python3 -m pip install --no-build-isolation -e . > /tmp/build2.log 2>&1 || { tail -30 /tmp/build2.log; exit 1; }; echo "rebuild $(( $(date +%s) - t )) s"
timeout 100 python3 benchmarks/probe/flash_stamps.py --calls 2 --cases ${CASES:-attention:1024,attention:4096,prefill:1x4096,prefill:4x1024} > $OUT/stamps.txt 2>&1; echo "stamps rc $?"; awk '/call 1:/{n=8} n>0{print; n--}' $OUT/stamps.txt | cut -c1-200
git apply -R benchmarks/probe/flash_persist_stamps_s40.patch
rm -f $OUT/build.log $OUT/pip_wheels.log
