# The final verification on the lent GPU, one mode a call (each fits the 600 s limit with a cold ~1.5-2.5 min build;
# first used, as probe/gpu_fin_s30.sh, in the thirtieth session): "check": the build, the whole test suite with the
# nvidia backend and compute-sanitizer memcheck over the op tests in one command (the verification). Run one
# after the other they no longer fit one call after a cold build (H100, 47th session: cold build 212-225 s; the
# suite's parts 145 / 217 / 235 s; memcheck over the op tests 183-189 s in the 45th), so check runs memcheck beside
# the suite's three pytest processes (four processes on the machine's 16 cores, 4 CPU threads each; the GPU's work in
# either is small), all to the call's deadline: H100, 48th session, 470 s in all (build 186 s, suite 253 s, memcheck
# 268 s beside it). (Before: on the H200 of the thirty-second session build 82-96 s, suite 167 s,
# memcheck 125 s; the thirty-fourth's cold build 109-133 s, suite 225-262 s, memcheck 165-185 s.) "suite" or
# "memcheck": one of the
# two (cold compile caches took > 230 s for the suite on the H100 of the thirtieth session); "bars": the comparison
# tool over the best-peer bar ops and embedding (every shape set, every peer, bfloat16, plots tarred), the best-peer
# table and the host-overhead loop; "full": bars and the tool over the other element-wise ops, norms and topk_softmax
# (to the call's deadline; with "others" every op of the tool); "others": the tool over the other bars' ops (paged_attention and SDPA,
# random_sample and torch's sampler, gemm/linear and torch, bf16 and fp32; attention and paged_attention_prefill
# (the tiled kernel) against SDPA, bf16; ~150 s). Logs under $OUT.
# "sanitizers": racecheck, synccheck and initcheck over the op tests at once, to the deadline (first in the 54th session);
# "sanitizers2": the areas those calls did not reach, in eleven processes (prepared in the 54th session).
# "sanitizers3": what sanitizers2 left unfinished, sharded (55th session; first run in the 56th: 519 s, every process finished); "step": racecheck over the decode step's chain with and without dependent launches (55th session).
# "two": on a two-GPU machine, the suite with the tests that need two devices and the distributed tests (56th session).
# Usage (device tool, carry .whl): bash benchmarks/gpu_verify.sh check|suite|suite_attention|memcheck|sanitizers|sanitizers2|sanitizers3|step|two|bars|full|others
START=$(date +%s)  # the call's start: check's limits count to START + DEADLINE_S (the device tool stops a call at 600 s)
DEADLINE_S=${DEADLINE_S:-585}
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
# the backend build's ten longest steps (ninja's log: start, end ms, ..., output)
sort -t$'\t' -k2,2n build/backends/.ninja_log 2>/dev/null | awk -F'\t' 'NF>=4 {printf "%6.1f s %6.1f-%6.1f %s\n", ($2-$1)/1e3, $1/1e3, $2/1e3, $4}' \
  | sort -rn | head -10 >> $OUT/setup.txt
left() { echo $(( START + DEADLINE_S - $(date +%s) )); }  # seconds to the deadline
# sample: every 5 s the load average, the busy CPU share and the GPU's utilization, into $OUT/sample.txt
sample() {
  while true; do
    read -r _ a1 a2 a3 a4 _ < /proc/stat; sleep 5; read -r _ b1 b2 b3 b4 _ < /proc/stat
    echo "$(( $(date +%s) - START )) s load $(cut -d' ' -f1 /proc/loadavg) cpu $(( 100 * ((b1+b2+b3)-(a1+a2+a3)) / ((b1+b2+b3+b4)-(a1+a2+a3+a4)) ))% gpu $(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits)%"
  done >> $OUT/sample.txt
}
# bench NAME SECONDS ARGS...: the comparison tool (every shape set) into $OUT/NAME.txt, its exit status and time
bench() {
  local name=$1 limit=$2 t=$(date +%s); shift 2
  timeout $limit python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 "$@" > $OUT/$name.txt 2>&1
  echo "$name rc $? $(( $(date +%s) - t )) s"
}
# suite LIMIT / memcheck LIMIT: the whole suite, or memcheck over the op tests, each under a time limit (s). The suite
# runs as four pytest processes at once: the attention tests with the sanitizer tests (the shortest part, 50 s in the
# 54th session), test_ops.py, and the rest in two halves (56th session's review; as one part the rest was the longest,
# 235-252 s, and with the two-device and distributed tests on two GPUs it would pass the limit). As two parts the suite
# was cut at 94% by 300 s on the H100 of the forty-seventh session. suite.txt has every part's output, with its
# 10 slowest tests and its skip reasons
# (timeout sends SIGINT first, so that an interrupted part still prints its slowest tests)
suite() {
  local t=$(date +%s) rc=0 p pids=() i
  timeout -s INT -k 15 $1 python3 -m pytest -q -rs --durations=10 test/test_ops_attention.py test/test_sanitizers.py -p no:cacheprovider > /tmp/suite_att.txt 2>&1 & pids+=($!)
  timeout -s INT -k 15 $1 python3 -m pytest -q -rs --durations=10 test/test_ops.py -p no:cacheprovider > /tmp/suite_ops.txt 2>&1 & pids+=($!)
  for i in 0 1; do  # the rest in two halves (benchmarks/shard.py: every other test), the longest part before
    SHARD=$i/2 PYTHONPATH=$PYTHONPATH:benchmarks timeout -s INT -k 15 $1 python3 -m pytest -q -rs --durations=10 test \
      --ignore=test/test_ops_attention.py --ignore=test/test_ops.py --ignore=test/test_sanitizers.py -p shard \
      -p no:cacheprovider > /tmp/suite_rest$i.txt 2>&1 & pids+=($!)
  done
  for p in "${pids[@]}"; do wait $p || rc=1; done
  cat /tmp/suite_att.txt /tmp/suite_ops.txt /tmp/suite_rest0.txt /tmp/suite_rest1.txt > $OUT/suite.txt
  echo "suite rc $rc $(( $(date +%s) - t )) s: attention $(tail -1 /tmp/suite_att.txt); test_ops.py $(tail -1 /tmp/suite_ops.txt);" \
    "the rest $(tail -1 /tmp/suite_rest0.txt) + $(tail -1 /tmp/suite_rest1.txt)"
  grep -hE "^FAILED|^ERROR" /tmp/suite_att.txt /tmp/suite_ops.txt /tmp/suite_rest[01].txt | head; return $rc
}
memcheck() {  # LIMIT [TEST FILES] (default: the op tests)
  local t=$(date +%s) rc; timeout -s INT -k 15 $1 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 7 python3 -m pytest -q ${2:-test/test_ops*.py} -p no:cacheprovider > /tmp/memcheck.txt 2>&1; rc=$?
  echo "memcheck rc $rc $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" /tmp/memcheck.txt | tail -2 | tee $OUT/memcheck_tail.txt
  grep -B2 -A12 -m3 "Invalid\|Error" /tmp/memcheck.txt > $OUT/memcheck_errors.txt; return $rc
}
# sanitize TOOL NAME LIMIT FILTER PYTEST ARGS...: compute-sanitizer's TOOL (racecheck: shared-memory hazards; synccheck:
# barrier misuse; initcheck: reads of global memory never written) over the tests, a digest of its reports
# (benchmarks/sanitize_digest.py: each distinct report once, with its count, lanes, blocks and test) into $OUT/NAME.txt.
# FILTER "ours": only our kernels instrumented (their names hold infini::nvidia::ops), the rest run as they are
# (racecheck and synccheck look inside one kernel, so torch's need not be watched); "all": every kernel (initcheck
# must see torch's writes, or the inputs they fill read as never written); "mixed": every kernel instrumented, only
# the reports in ours kept (sanitize_digest.py --ours): racecheck with our kernels selected stops at cuBLAS's sm90
# bf16 kernels ("failed to handle a hardware exception", torch's F.linear alone too: 55th session), so tests that
# reach cuBLAS (16-bit linear of 2+ rows) run so. A kernel a tool stops leaves the process's
# context broken: the tests after it then error, so each area runs in a process of its own.
sanitize() {
  local tool=$1 name=$2 lim=$3 filt=$4 t=$(date +%s) rc bt=device dig=(); shift 4
  [ $tool = initcheck ] && bt=host
  [ $filt = mixed ] && dig=(--ours)
  local args=(--tool $tool --error-exitcode 7 --print-limit 20000 --show-backtrace $bt --log-file /tmp/$name.log)
  [ $filt = ours ] && args+=(--kernel-name kns=infini)
  [ $tool = racecheck ] && args+=(--racecheck-report all)
  timeout -s INT -k 15 $lim /usr/local/cuda/bin/compute-sanitizer "${args[@]}" python3 -m pytest -q "$@" -p no:cacheprovider \
    > /tmp/$name.pytest.txt 2>&1; rc=$?
  { echo "$name: $tool ($filt) rc $rc $(( $(date +%s) - t )) s over $*"; tail -1 /tmp/$name.pytest.txt
    grep -hE "^FAILED|^ERROR" /tmp/$name.pytest.txt | head -5; python3 benchmarks/sanitize_digest.py /tmp/$name.log "${dig[@]}"; } > $OUT/$name.txt 2>&1
  head -3 $OUT/$name.txt
}
# syncprobe: synccheck over one random_sample call a process (benchmarks/sync_sample.py), a line each
syncprobe() {
  local c
  for c in "140 40000 50 0.9 0.7 float32 0" "140 40000 1000000 0.8 1.0 float32 1" "140 40000 50 0.9 1.0 float32 1" \
           "140 1000 50 0.9 0.7 float32 0" "140 40000 50 0.9 0.7 bfloat16 0" "132 40000 50 0.9 0.7 float32 0" \
           "16 40000 50 0.9 0.7 float32 0" "4 1000 50 0.9 1.0 float32 0"; do
    timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool synccheck --kernel-name kns=infini --print-limit 2000 --show-backtrace device \
      --log-file /tmp/sp.log python3 benchmarks/sync_sample.py $c > /tmp/sp.txt 2>&1
    echo "[$c] rc $? $(tail -1 /tmp/sp.txt | cut -c1-60) | $(grep -h SUMMARY /tmp/sp.log | head -1)"
    python3 benchmarks/sanitize_digest.py /tmp/sp.log --top 3 | sed -n 3,8p
  done
}
if [ "$1" = sanitizers ]; then  # the tools at once (their GPU work is small), each to the deadline
  export OMP_NUM_THREADS=3
  # first, alone on the GPU: the changed kernels' tests, and paged decode timed (the cluster merge's wait)
  { timeout 120 python3 -m pytest -q -p no:cacheprovider test/test_ops_sampling.py test/test_ops_attention.py -k "sampl or decode or cache" 2>&1 | tail -3
    timeout 90 python3 -m infinicore_torch.bench --device cuda --ops paged_attention,attention --shapes decode --impls infini,torch \
      --dtypes bfloat16 --budget 0.2 --busy-us 100 2>&1 | grep -E "^(paged_attention|attention) " ; } > $OUT/tests.txt 2>&1
  cat $OUT/tests.txt
  l=$(( $(left) - 30 ))
  sanitize racecheck race_attention $l ours test/test_ops_attention.py -k "decode or cache or opcheck" &
  sanitize racecheck race_ops $l ours test/test_ops_sampling.py test/test_ops_gemm.py test/test_ops.py -k "sampl or caching or topk or few_rows or norm or softmax or embedding or rope" &
  sanitize synccheck sync $l ours test/test_ops_attention.py test/test_ops.py test/test_ops_gemm.py &
  sanitize initcheck init $l all test/test_ops_sampling.py test/test_ops.py test/test_ops_gemm.py &
  syncprobe > $OUT/syncprobe.txt 2>&1; wait
  /usr/local/cuda/bin/compute-sanitizer --version | tail -1; rm -f $OUT/build.log $OUT/pip_wheels.log
  exit 0
fi
if [ "$1" = sanitizers2 ]; then  # (prepared in the 54th session, not yet run) what calls 2 and 3 there did not reach,
  # in ten processes at once (each its own area, so that one stopped kernel spoils only its area), to the deadline:
  # racecheck over the tiled attention kernels, dense attention with a cache, the decode tests, the norms, softmax,
  # embedding / rope, sampling / gemv; the decode step's racecheck stop with and without dependent launches
  # (INFINI_PDL=0); synccheck over sampling (25f770f's barrier); initcheck over the attention tests. One file back.
  export OMP_NUM_THREADS=1
  l=$(( $(left) - 20 ))
  sanitize racecheck r_tiled $l ours test/test_ops_attention.py -k "prefill or persistent or many_rows" &
  sanitize racecheck r_dense $l ours test/test_ops_attention.py -k "attention_with_cache or after_long_history" &
  sanitize racecheck r_decode $l ours test/test_ops_attention.py -k "(decode or ignores or bad_indices) and not back_to_back" &
  sanitize racecheck r_step $l mixed test/test_ops_attention.py -k "back_to_back" &
  INFINI_PDL=0 sanitize racecheck r_step_nopdl $l mixed test/test_ops_attention.py -k "back_to_back" &
  sanitize racecheck r_norm $l ours test/test_ops.py -k "norm" &
  sanitize racecheck r_softmax $l ours test/test_ops.py -k "softmax" &
  sanitize racecheck r_emb $l ours test/test_ops.py test/test_ops_sampling.py -k "embedding or rope or caching or topk" &
  sanitize racecheck r_sample $l ours test/test_ops_sampling.py test/test_ops_gemm.py -k "random_sample or sampling or few_rows" &
  sanitize synccheck s_sample $l ours test/test_ops_sampling.py &
  sanitize initcheck i_attention $l all test/test_ops_attention.py &
  wait
  for f in r_tiled r_dense r_decode r_step r_step_nopdl r_norm r_softmax r_emb r_sample s_sample i_attention; do cat $OUT/$f.txt; echo; rm -f $OUT/$f.txt; done > $OUT/sanitizers.txt
  /usr/local/cuda/bin/compute-sanitizer --version | tail -1; rm -f $OUT/build.log $OUT/pip_wheels.log
  exit 0
fi
if [ "$1" = sanitizers3 ]; then  # (55th session; run in the 56th: 519 s on the H100, all nine finished, 0 reports
  # in our kernels; r_gemv exits 7 for cuBLAS's own hazards, counted and left out by `mixed`) the areas sanitizers2 did not finish in
  # 425 s (racecheck: the tiled prefill / attention kernels after ~43 tests, sampling / gemv after ~44; initcheck over
  # the attention tests after ~48): the infini device's tests only (the cuda variants run the same kernels, the cpu
  # ones none), spread over processes by benchmarks/shard.py (SHARD=i/n: every n-th test); the gemv tests
  # `mixed` (16-bit 2-4 rows go to cuBLASLt, which stops racecheck with our kernels selected); initcheck without
  # test_opcheck (its reports are opcheck's host copies of unwritten tensors). One file back.
  export OMP_NUM_THREADS=1 PYTHONPATH=$PYTHONPATH:benchmarks
  l=$(( $(left) - 20 )); names=(); pids=()
  for i in 0 1 2 3; do
    SHARD=$i/4 sanitize racecheck r_tiled$i $l ours test/test_ops_attention.py -p shard -k "(prefill or persistent or many_rows) and infini" &
    pids+=($!); names+=(r_tiled$i)
  done
  for i in 0 1; do
    SHARD=$i/2 sanitize racecheck r_sample$i $l ours test/test_ops_sampling.py -p shard -k "(random_sample or sampling) and infini" &
    pids+=($!)
    SHARD=$i/2 sanitize initcheck i_att$i $l all test/test_ops_attention.py -p shard -k "infini and not opcheck" &
    pids+=($!); names+=(r_sample$i i_att$i)
  done
  sanitize racecheck r_gemv $l mixed test/test_ops_gemm.py -k "few_rows and infini" & pids+=($!); names+=(r_gemv)
  sample & smp=$!; wait "${pids[@]}"; kill $smp
  for f in "${names[@]}"; do cat $OUT/$f.txt; echo; rm -f $OUT/$f.txt; done > $OUT/sanitizers.txt
  rm -f $OUT/build.log $OUT/pip_wheels.log
  exit 0
fi
if [ "$1" = two ]; then  # (56th session) on a two-GPU machine (kind nvidia-h100-x2 / nvidia-h200-x2): the whole suite,
  # where the tests that need two infini devices (marker two_devices: device guard, copies between devices, per-device
  # memory, streams, generators, threads, storage) and test_distributed.py (ProcessGroupInfiniCCL over NCCL, one rank
  # a GPU, against gloo in the same processes) run, which skip on one GPU; then benchmarks/allreduce_gpu.py (infiniccl
  # against ProcessGroupNCCL) to the deadline. (The 56th session's two runs had the two-device files as a fourth
  # process of their own, 59 s, beside the suite's three parts, the rest 226 s; the review folded that into `suite`,
  # whose rest now runs in two halves.)
  export OMP_NUM_THREADS=4
  sample & smp=$!
  suite $(( $(left) - 150 ))
  timeout $(( $(left) - 5 )) python3 benchmarks/allreduce_gpu.py --world 2 --out $OUT/allreduce > $OUT/allreduce.txt 2>&1
  echo "allreduce rc $?"; tail -15 $OUT/allreduce.txt
  kill $smp; rm -f $OUT/build.log $OUT/pip_wheels.log
  exit 0
fi
if [ "$1" = step ]; then  # racecheck over the decode step's chain (gemv / cuBLASLt -> decode -> linear as dependents),
  # every kernel instrumented, ours reported, with and without dependent launches (55th session; ~170 s held)
  export OMP_NUM_THREADS=4; l=$(( $(left) - 10 ))
  sanitize racecheck r_step $l mixed test/test_ops_attention.py -k "back_to_back" &
  INFINI_PDL=0 sanitize racecheck r_step_nopdl $l mixed test/test_ops_attention.py -k "back_to_back" &
  wait; cat $OUT/r_step.txt $OUT/r_step_nopdl.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
  exit 0
fi
if [ "$1" = check ]; then  # the suite and memcheck at once (their outputs in separate files; each prints its line)
  # Four test processes on 16 cores: each gets 4 of torch's CPU threads (with torch's default of one per core the
  # four oversubscribed the cores 4x; the 48th session's first call, so, finished none of its parts in 330 s)
  export OMP_NUM_THREADS=4
  sample & smp=$!
  l=$(left); suite $l & s=$!; memcheck $l & m=$!
  wait $s; a=$?; wait $m; b=$?; kill $smp
  exit $(( a || b ))
elif [ "$1" = suite ]; then
  suite 330
  exit
elif [ "$1" = suite_attention ]; then  # the suite, then memcheck over the attention op tests only (a cold build fits)
  suite 300; a=$?; memcheck 160 test/test_ops_attention.py; b=$?
  exit $(( a || b ))
elif [ "$1" = memcheck ]; then
  memcheck 330
  exit
elif [ "$1" = others ]; then
  bench bench_bf16 200 --ops paged_attention,random_sample,gemm,linear --impls infini,torch,compile --dtypes bfloat16 --out /tmp/b
  bench bench_gemm_fp32 90 --ops gemm,linear --impls infini,torch --dtypes float32 --out /tmp/c
  bench bench_sample_fp32 100 --ops random_sample --impls infini,torch --dtypes float32 --out /tmp/d
  bench bench_attention 150 --ops attention,paged_attention_prefill --impls infini,torch --dtypes bfloat16 --out /tmp/e
  grep -hE "^(paged_attention|random_sample|gemm|linear|attention|paged_attention_prefill) .* (infini|torch) " $OUT/bench_bf16.txt \
    $OUT/bench_gemm_fp32.txt $OUT/bench_sample_fp32.txt $OUT/bench_attention.txt
  exit 0
elif [ "$1" != bars ] && [ "$1" != full ]; then
  echo "usage: bash benchmarks/gpu_verify.sh check|suite|suite_attention|memcheck|sanitizers|sanitizers2|sanitizers3|step|two|bars|full|others"; exit 2
fi
timeout 60 python3 benchmarks/host_overhead.py > $OUT/host.txt 2>&1; tail -3 $OUT/host.txt
lim=330; [ "$1" = full ] && lim=$(( $(left) - 60 < 330 ? $(left) - 60 : 330 ))
bench bench $lim --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,embedding \
  --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b
if [ "$1" = full ]; then  # and the other ops with a peer beside torch (every peer the tool has for each), to the deadline
  bench bench_extra $(( $(left) - 8 )) --ops add,mul,silu,relu,gelu,layer_norm,topk_softmax \
    --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/b/extra
  rm -f $OUT/pip_wheels.log  # (at most 8 files come back: setup, gpu, build, host, the two tables, plots)
fi
(cd /tmp/b && tar cf $OUT/plots.tar *.png results.json extra 2>/dev/null); ls /tmp/b | wc -l
python3 benchmarks/best_peer.py --above $OUT/bench.txt; grep -i "copy" $OUT/bench.txt | head -2
[ "$1" = bars ] && python3 benchmarks/best_peer.py $OUT/bench.txt > $OUT/best_peer.md 2>&1
exit 0
