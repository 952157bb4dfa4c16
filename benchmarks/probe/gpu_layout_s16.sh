# Sixteenth session, fourth call (H200): is the paged decode's gap to SDPA the cache's layout? Our kernel
# on the tool's layout (blocks shuffled), in order, and head-major (a sequence's keys of one head
# contiguous, as SDPA reads them), against SDPA (pa_layout.py --head-major); gather_bw.py with an
# in-order control. Usage: bash benchmarks/probe/gpu_layout_s16.sh
source .ci/gpu_setup.sh || exit 1
timeout 60 python3 benchmarks/probe/gather_bw.py 2>&1 | tee $OUT/gather.txt
cd benchmarks/probe
timeout 200 python3 pa_layout.py --shapes 64x2048x8,64x2048x32 --head-major --rounds 3 --reps 20 2>&1 | grep -v -i warn | tee $OUT/layout.txt | sed -n '/medians/,$p'
