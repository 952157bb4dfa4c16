# Prepared in the thirtieth session, not run there (no device time left): where paged_attention decode's time goes
# with little work (8x512 and 16x1024 tokens, 32/8 heads, bf16; ours 14.3 / 26.1 kernel us against compile's
# 10.3 / 25.4 on the H200). Applies pa_phases_s30.patch (XPT=1: per-block %globaltimer stamps printed by
# decodeTcKernel), builds, checks the paged_attention tests with the stamps off, prints the phase table
# (pa_phases.py) and the kernel us with the patch in and stamps off against compile (the patch must cost nothing
# when off: 14.3 / 26.1 on the H200, 15.2 / 40.4 or 38.0 on the H100), and runs the embedding tests (the 70,000-token
# case of test_embedding_wide_rows had not run on a GPU). Usage: bash benchmarks/probe/gpu_pt_s30.sh
git apply benchmarks/probe/pa_phases_s30.patch || { echo "patch does not apply"; exit 1; }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 100 python3 -m pytest -q test/test_ops_attention.py -k "paged_attention" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "tests rc $?: $(tail -1 /tmp/t.txt)"
timeout 100 python3 -m pytest -q test/test_ops.py -k "embedding" -p no:cacheprovider > /tmp/t.txt 2>&1; echo "embedding tests (70,000 tokens among them) rc $?: $(tail -1 /tmp/t.txt)"
timeout 240 python3 benchmarks/probe/pa_phases.py --calls 5 2>&1 | tee $OUT/phases.txt
cd benchmarks/probe
timeout 100 python3 ab_knobs.py XPT=0 paged_attention:decode --impls compile --rounds 3 > $OUT/ab.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab.txt
