# Twelfth session, the final GPU code: the whole suite with the nvidia backend (with the new much-work
# paged_attention test), memcheck over that test, and one short round of each A/B probe (shared rounds
# helper). Usage: bash benchmarks/probe/gpu_final2_s12.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 290 python3 -m pytest -q test -p no:cacheprovider > $OUT/suite.log 2>&1; echo "suite rc $? $(( $(date +%s) - t )) s"; tail -1 $OUT/suite.log; grep -E "^FAILED|^ERROR" $OUT/suite.log | head; grep -c "much_work" $OUT/suite.log
t=$(date +%s); timeout 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q test/test_ops_attention.py -k much_work -p no:cacheprovider > $OUT/memcheck_much.log 2>&1; echo "memcheck rc $? $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" $OUT/memcheck_much.log | tail -2
cd benchmarks/probe
timeout 60 python3 pa_layout.py --shapes 16x1024x8 --rounds 1 --reps 10 2>&1 | grep -v -i warn | tail -4
timeout 60 python3 ab_knobs.py X=0,1 rms_norm:decode --rounds 1 --reps 10 --impls compile 2>&1 | grep -v -i warn | tail -4
