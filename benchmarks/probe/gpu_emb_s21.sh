# (The knob it sets is gone: the change measured mixed and was reverted; see RESULTS.md, twenty-first session.)
# Twenty-first session (H200): embedding rows with U 16-byte pieces a thread loaded before they are stored
# (EMB_U: 1 as before, 256 threads; 2 / 4 with as many fewer threads; 3: 2 a thread, 256 threads), against
# torch.compile and torch; the embedding tests under each. Usage: bash benchmarks/probe/gpu_emb_s21.sh
source .ci/gpu_setup.sh || exit 1
for u in 2 3 4; do EMB_U=$u timeout 100 python3 -m pytest -q test/test_ops.py test/test_errors.py test/test_autograd.py -k "embedding" -p no:cacheprovider > $OUT/t$u.log 2>&1; echo "tests EMB_U=$u rc $?: $(tail -1 $OUT/t$u.log)"; done
cd benchmarks/probe
t=$(date +%s); timeout 200 python3 ab_knobs.py EMB_U=1,2,3,4 embedding:decode,prefill,large --reps 30 --rounds 3 --impls compile,torch > $OUT/ab.txt 2>&1; echo "ab rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/ab.txt | cut -c1-150
