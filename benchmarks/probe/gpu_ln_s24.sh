# Twenty-fourth session, second call (H200): layer_norm's registers path (weights and bias as stored, loaded
# with the row when rows are few): its tests, kernel times against the peers, the tool's rows for
# layer_norm and rms_norm (same kernel family), then the whole suite with the nvidia backend.
# Usage: bash benchmarks/probe/gpu_ln_s24.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
t=$(date +%s); timeout 120 python3 -m pytest -q test -k "layer_norm or LayerNorm or rms_norm" -p no:cacheprovider > $OUT/ln_tests.txt 2>&1; echo "ln tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/ln_tests.txt)"; grep -E "^FAILED" $OUT/ln_tests.txt | head
(cd benchmarks/probe && timeout 90 python3 kernel_times.py layer_norm:decode,prefill,large --impls infini,compile,triton,liger --reps 30 2>&1 | grep -v -i warn | cut -c1-130 | tee $OUT/kernel.txt)
t=$(date +%s); timeout 200 python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --ops layer_norm,rms_norm,embedding --impls infini,torch,compile,triton,liger --dtypes bfloat16,float16 --no-plots --out $OUT/tool > $OUT/tool.txt 2>&1; echo "tool rc $? $(( $(date +%s) - t )) s"; grep -E "layer_norm|rms_norm|embedding|copy" $OUT/tool.txt | cut -c1-150
t=$(date +%s); timeout 280 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.txt 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.txt; grep -E "^FAILED|^ERROR" $OUT/suite.txt | head
