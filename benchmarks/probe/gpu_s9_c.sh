# Ninth session, third H100 call: decode shapes against the best peers with and without the L2 flush
# (what makes our small kernels slower), the profiler probe's events.
source .ci/gpu_setup.sh || exit 1
timeout 200 python3 benchmarks/probe/time_probe.py small 100 100 2>&1 | grep -v Warn | tee $OUT/small.txt
timeout 100 python3 benchmarks/probe/kernel_times.py swiglu:decode rope:decode 2>&1 | grep -v Warn | tee $OUT/kernels.txt
