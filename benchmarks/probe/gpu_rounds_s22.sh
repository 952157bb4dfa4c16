# Twenty-second session, second call (H200): the stream softmax kernel's time against the rounds its clusters
# take (rounds_s22.py; SM_K=0 and the per-warp pairs, 6), beside torch's copy of the same bytes.
# Usage: bash benchmarks/probe/gpu_rounds_s22.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 rounds_s22.py --knob SM_K=0,6 2>&1 | grep -v -i warn | tee $OUT/rounds.txt; echo "rounds $(( $(date +%s) - t )) s"
