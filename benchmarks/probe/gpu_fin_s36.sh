# The 36th session's final check (paged prefill copies by an offset table): gpu_verify.sh suite_attention (the
# whole suite with the nvidia backend, memcheck over the attention tests), then the attention tests and memcheck
# over them in the mma.sync form (INFINI_FLASH_WG=0, a temporary test knob: the lent GPUs otherwise take the wgmma
# form), then the tool over attention and paged_attention_prefill against SDPA.
bash benchmarks/gpu_verify.sh suite_attention; echo "verify rc $?"
export INFINI_FLASH_WG=0
timeout 100 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > $OUT/tests_mma.txt 2>&1; echo "mma.sync form: $(tail -1 $OUT/tests_mma.txt)"; grep -E "^FAILED" $OUT/tests_mma.txt | head
timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -p no:cacheprovider > /tmp/mc_mma.txt 2>&1; echo "memcheck mma.sync rc $?"; grep -E "passed|failed|ERROR SUMMARY" /tmp/mc_mma.txt | tail -2 | tee $OUT/memcheck_mma_tail.txt
unset INFINI_FLASH_WG
t=$(date +%s); timeout 100 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops attention,paged_attention_prefill --impls infini,torch --dtypes bfloat16 --out /tmp/e > $OUT/bench_attention.txt 2>&1; echo "bench rc $? $(( $(date +%s) - t )) s"
grep -E "^(attention|paged_attention_prefill) .* (infini|torch) " $OUT/bench_attention.txt
rm -f $OUT/build.log $OUT/pip_wheels.log
