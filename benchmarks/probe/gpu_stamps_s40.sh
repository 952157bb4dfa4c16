# The tiled attention kernel's per-block phases (40th session): applies flash_stamps_s40.patch (XFT=1: stamps into a
# device array), builds, runs probe/flash_stamps.py over the tool's attention and prefill shapes.
git apply benchmarks/probe/flash_stamps_s40.patch || { echo "patch failed"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
timeout 200 python3 benchmarks/probe/flash_stamps.py ${CASES:+--cases $CASES} > $OUT/stamps.txt 2>&1; echo "stamps rc $?"; grep -v Warn $OUT/stamps.txt | head -150
rm -f $OUT/build.log $OUT/pip_wheels.log
