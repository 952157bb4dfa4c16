# Thirteenth session: the kept kernel changes (rms norms' mean by the host's 1/n; rope <= 64 tokens in
# 16-byte pieces) with the tests that reach them, and launch_gap.py: what the tool's time holds besides
# the kernels, ours against the peers'. Usage: bash benchmarks/probe/gpu_gap_s13.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 200 python3 -m pytest -q test/test_ops.py test/test_autograd.py -k "rope or norm" -p no:cacheprovider > $OUT/tests.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/tests.log; grep -E "^FAILED|^ERROR" $OUT/tests.log | head
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 launch_gap.py rms_norm:decode add_rms_norm:decode swiglu:decode silu_and_mul:decode rope:decode causal_softmax:decode paged_caching:decode --reps 40 > $OUT/gap.txt 2>&1; echo "gap rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/gap.txt
t=$(date +%s); timeout 100 python3 kernel_times.py rms_norm:decode add_rms_norm:decode rope:decode,prefill --reps 30 > $OUT/kernels.txt 2>&1; echo "kernels rc $? $(( $(date +%s) - t )) s"; grep -v -i warn $OUT/kernels.txt | cut -c1-80
