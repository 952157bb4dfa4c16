# 52nd session: rope 1x32x128 and embedding 1x32000 come out ~0.16 us above torch.compile as the tool times one call,
# in every process (calls 7-8), with the kernels' own durations level. With probe/emb_s52.patch applied, knobs read at
# launch: INFINI_PROBE_EMB (embedding's row kernel: 0 as committed, 1 launched by <<<>>>, 2 without the index check,
# 3 one block of 128 threads taking 512 pieces, 4 <<<>>> and no check) and INFINI_PROBE_ROPE=1 (the rope row kernel
# by <<<>>>), timed as the tool times (probe/ab_events.py), interleaved with compile's in every round.
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
for v in 1 3; do INFINI_PROBE_EMB=$v INFINI_PROBE_ROPE=1 timeout 60 python3 -m pytest -q test/test_ops.py -p no:cacheprovider -k "embedding or rope" > /tmp/t$v.txt 2>&1
  echo "tests EMB=$v ROPE=1 rc $?: $(tail -1 /tmp/t$v.txt)"; done
cd benchmarks/probe
timeout 120 python3 ab_events.py INFINI_PROBE_EMB=0,1,2,3,4 embedding --rounds 7 --impls compile > $OUT/emb.txt 2>&1; echo "emb rc $?"; cat $OUT/emb.txt
timeout 90 python3 ab_events.py INFINI_PROBE_ROPE=0,1 rope --rounds 7 --impls compile,triton > $OUT/rope.txt 2>&1; echo "rope rc $?"; cat $OUT/rope.txt
