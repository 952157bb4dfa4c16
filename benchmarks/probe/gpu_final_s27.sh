# Twenty-seventh session, ninth call (H200): paged_caching in 16-byte pieces from 9 tokens (final code): its tests
# and memcheck over them, kernel us against compile from 1 to 64 tokens, the tool's paged_caching rows twice.
# Usage: bash benchmarks/probe/gpu_final_s27.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
timeout 100 python3 -m pytest -q test/test_ops_sampling.py -k "paged_caching" -p no:cacheprovider > $OUT/tests.txt 2>&1; echo "tests rc $?: $(tail -1 $OUT/tests.txt)"
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_sampling.py -k "paged_caching" -p no:cacheprovider > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck.txt | tail -2
(cd benchmarks/probe && timeout 120 python3 caching_tokens.py X=0 --tokens 1,4,8,9,16,32,64 --rounds 3 > $OUT/tokens.txt 2>&1; echo "tokens rc $?"; sed -n '/medians/,$p' $OUT/tokens.txt)
B="python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 --no-plots"
for r in 1 2; do timeout 60 $B --ops paged_caching --impls infini,compile --dtypes bfloat16 --out /tmp/t$r > $OUT/tool_$r.txt 2>&1; echo "tool $r rc $?"; done
awk '$1=="paged_caching" && ($4=="infini" || $4=="compile") {print FILENAME, $2, $4, $5}' $OUT/tool_*.txt | sed "s#$OUT/##"
