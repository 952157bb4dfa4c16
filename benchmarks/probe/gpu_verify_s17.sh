# Seventeenth session, fifth call (H200): the final form (knobs removed; the bulk-copy decode plans 8 blocks
# an SM): the attention op tests and the comparison tool over paged_attention.
# Usage: bash benchmarks/probe/gpu_verify_s17.sh
source .ci/gpu_setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 60 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/t_att.log 2>&1; echo "attention tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t_att.log)"; grep -E "^FAILED" $OUT/t_att.log | head -5
t=$(date +%s); timeout 60 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops paged_attention --impls infini,torch --dtypes bfloat16 --no-plots --out $OUT/b > $OUT/bench_pa.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"; grep -E "paged_attention|copy" $OUT/bench_pa.txt | head -14
