# Twenty-sixth session, seventh call (H200): paged_caching with TZ tokens a thread (temporary knob XPC: 1 as
# is, 2, 4) over token counts, torch.compile alongside; the paged_caching tests (a new many-token test among
# them) under each. Usage: bash benchmarks/probe/gpu_pc2_s26.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
for v in 1 2 4; do XPC=$v timeout 60 python3 -m pytest -q test/test_ops_sampling.py -k "paged_caching" -p no:cacheprovider > $OUT/tests_pc$v.txt 2>&1; echo "paged_caching tests XPC=$v rc $?: $(tail -1 $OUT/tests_pc$v.txt)"; done
cd benchmarks/probe
t=$(date +%s); timeout 150 python3 caching_tokens.py XPC=1,2,4 --tokens 512,1024,2048,4096,8192,16384 > $OUT/tokens.txt 2>&1; echo "tokens rc $? $(( $(date +%s) - t )) s"; sed -n '/medians/,$p' $OUT/tokens.txt | cut -c1-150
