# Twenty-eighth session, sixth call (H200): paged_caching at 4096-32768 tokens in other block shapes (XPC: 0 as is,
# a token's 8 heads a 128-thread block; 1 two tokens a block; 2 four heads a block; 3 four tokens a block), kernel
# us and tool-timed against compile, their tests; inductor's kernel for 16384 tokens (code and SASS) and ours (SASS).
# Usage: bash benchmarks/probe/gpu_pc2_s28.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 1 2 3; do XPC=$v timeout 100 python3 -m pytest -q test/test_ops_sampling.py -k "paged_caching" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests XPC=$v rc $?: $(tail -1 /tmp/t.txt)"; done
cd benchmarks/probe
timeout 100 python3 ab_knobs.py XPC=0,1,2,3 paged_caching:prefill,large --impls compile --rounds 3 > $OUT/ab_pc.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_pc.txt
timeout 100 python3 ab_events.py XPC=0,1,2,3 paged_caching:prefill,large --impls compile --rounds 3 --reps 100 > $OUT/ev_pc.txt 2>&1; echo "ev rc $?"; grep " us " $OUT/ev_pc.txt
timeout 100 python3 compile_code.py paged_caching 16384 > $OUT/compile_pc.txt 2>&1; echo "code rc $?"; grep -E "XBLOCK|num_warps|eviction|tl.load|tl.store" $OUT/compile_pc.txt | head -20
cd ../..
mkdir -p /tmp/sass; CUO=/usr/local/cuda/bin/cuobjdump
$CUO -sass infinicore_torch/lib/libinfini_backend_nvidia.so | awk '/Function :/ {p = ($0 ~ /cachingRowKernelI5uint4xLi1ELi1E/)} p' > /tmp/sass/ours_pc.txt
for f in $(find /tmp/torchinductor_* -name "*.cubin" 2>/dev/null); do $CUO -sass $f > /tmp/sass/$(basename $f .cubin).txt; done
for f in /tmp/sass/*.txt; do echo "$(basename $f): $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions"; done
tar czf $OUT/sass.tgz -C /tmp sass
