# Twenty-fourth session, fifth call (H200): embedding variants under a temporary knob XEMB (0 the kernel as it
# is; 1 every piece of a thread loaded before any is stored; 2 the same over a grid of at most 8 blocks an SM;
# 3 the same with the row split over up to 8 blocks when tokens are few; 4 as 1 with 128 threads): the
# embedding tests under each, kernel A/B against compile at every shape set. Usage: bash benchmarks/probe/gpu_emb_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for v in 1 2 3 4; do XEMB=$v timeout 60 python3 -m pytest -q test/test_ops.py -k "embedding" -p no:cacheprovider > $OUT/t$v.txt 2>&1; echo "XEMB=$v tests rc $?: $(tail -1 $OUT/t$v.txt)"; done
cd benchmarks/probe
t=$(date +%s); timeout 300 python3 ab_knobs.py XEMB=0,1,2,3,4 embedding:decode,prefill,large --reps 30 --rounds 3 --impls compile > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-110
