# Twenty-eighth session, first call (H200): silu_and_mul at decode sizes, ours against Triton and compile,
# kernel and event time with the L2 flushed, flushed with the code warm, unflushed, hot (cold_modes.py);
# the SASS of our flat kernel and of the Triton kernels (ours and inductor's). Usage: bash benchmarks/probe/gpu_cold_s28.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
(cd benchmarks/probe && timeout 240 python3 cold_modes.py silu_and_mul:decode --rounds 3 --reps 100 > $OUT/cold.txt 2>&1; echo "cold rc $?"; grep " | " $OUT/cold.txt)
mkdir -p /tmp/sass; CUO=/usr/local/cuda/bin/cuobjdump
$CUO -sass infinicore_torch/lib/libinfini_backend_nvidia.so | awk '/Function :/ {p = ($0 ~ /siluAndMulFlatKernelI13__nv_bfloat16/)} p' > /tmp/sass/ours.txt
for f in $(find ~/.triton /tmp/torchinductor_* -name "*.cubin" 2>/dev/null); do $CUO -sass $f > /tmp/sass/$(basename $f).txt; done
for f in /tmp/sass/*.txt; do echo "$(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions, $(grep -cE 'LDG|STG' $f) ldg/stg"; done
tar czf $OUT/sass.tgz -C /tmp sass
