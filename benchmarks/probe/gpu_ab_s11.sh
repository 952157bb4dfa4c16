# Eleventh session, first call: A/B of rope and paged_caching launch shapes at <= 64 tokens through the
# temporary knobs INFINI_KNOB_ROPE / INFINI_KNOB_PAGED (removed before committing); the SASS of ours and of
# the peers' kernels at those shapes; the whole suite over the tenth session's review mend.
# Usage: bash benchmarks/probe/gpu_ab_s11.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
timeout 150 python3 ab_knobs.py INFINI_KNOB_ROPE=0,1,2,3,4 rope:decode --rounds 3 --reps 40 2>&1 | grep -v -i warn > $OUT/ab_rope.txt; tail -16 $OUT/ab_rope.txt
timeout 100 python3 ab_knobs.py INFINI_KNOB_PAGED=0,1 paged_caching:decode --rounds 3 --reps 40 --impls compile 2>&1 | grep -v -i warn > $OUT/ab_paged.txt; tail -8 $OUT/ab_paged.txt
cd ../..
CU=/usr/local/cuda/bin/cuobjdump
sass() { awk -v pat="$2" '/Function :/ {on = ($0 ~ pat)} on' <($CU -sass "$1" 2>/dev/null); }
L=infinicore_torch/lib/libinfini_backend_nvidia.so
{ sass $L 'ropeRowKernelI13__nv_bfloat16S4_Li4ELi1ELi0ExE'; sass $L 'cachingRowKernelI5uint2E'; } > $OUT/sass_ours.txt
for f in $(find / -name "*.cubin" -mmin -30 2>/dev/null | xargs grep -l -a -E "_rope_kernel|index_mul|index_put" 2>/dev/null); do echo "== $f"; $CU -sass $f; done > $OUT/sass_peers.txt 2>&1
wc -l $OUT/sass_*.txt
t=$(date +%s); timeout 280 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -2 $OUT/suite.log; grep -E "^FAILED" $OUT/suite.log | head
