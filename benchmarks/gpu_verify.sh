#!/bin/bash
# Verification and measurement on a GPU machine (no network needed): installs the carried wheels and builds with
# the nvidia backend (.ci/gpu_setup.sh), then runs one mode. Outputs go under $OUT (default /tmp/gpu_verify).
#
#   bash benchmarks/gpu_verify.sh check | suite | memcheck | sanitizers | two | bars | full | models
#
#   check       the build, the whole suite and compute-sanitizer memcheck over the op tests (beside each other)
#   suite       the whole suite, in four pytest processes at once
#   memcheck    memcheck over the op tests
#   sanitizers  racecheck, synccheck and initcheck over the op tests on the infini device, each spread over
#               SHARDS processes (benchmarks/shard.py), digested by benchmarks/sanitize_digest.py
#   two         (two GPUs) the suite, where the two-device and distributed tests run, then allreduce_gpu.py
#   bars        host_overhead.py, and the comparison tool over the best-peer ops against every peer (bf16)
#   full        bars, then every other op of the tool against every peer (bf16) and gemm, linear and
#               random_sample in float32 against torch
#   models      ordinary PyTorch and whole models: aten_gpu.py (ops and the Llama on infini against cuda),
#               llm_gpu.py (the LLM engine against HF generate), compile_gpu.py (the compiled Llama)
#
# Environment: DEADLINE_S (seconds from the start that every step must end by; default: no limit), SHARDS
# (sanitizers; default 4), CSV (bars/full/two: the CSV the tools merge their rows into; default $OUT/results.csv),
# COMPUTE_SANITIZER (its path; default: on PATH, else /usr/local/cuda/bin).
# Test files are found by name anywhere under test/, so the suite's layout into subfolders does not matter.
export OUT=${OUT:-/tmp/gpu_verify}
mkdir -p "$OUT"
START=$(date +%s)
mode=$1
case "$mode" in check|suite|memcheck|sanitizers|two|bars|full|models) ;; *)
  echo "usage: bash benchmarks/gpu_verify.sh check|suite|memcheck|sanitizers|two|bars|full|models"; exit 2 ;;
esac
source .ci/gpu_setup.sh > "$OUT/setup.txt" 2>&1 || { tail -30 "$OUT/setup.txt"; exit 1; }
grep -E "^build" "$OUT/setup.txt"; cat "$OUT/gpu.txt"
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/benchmarks
CSV=${CSV:-$OUT/results.csv}
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}

# left [MARGIN]: seconds to DEADLINE_S less MARGIN (a day when no deadline is set)
left() { [ -z "$DEADLINE_S" ] && { echo 86400; return; }; echo $(( START + DEADLINE_S - $(date +%s) - ${1:-0} )); }
# files PATTERN...: the test files under test/ whose names match
files() { local p; for p in "$@"; do find test -type f -name "$p"; done | sort -u; }
ignores() { local f; for f in "$@"; do echo "--ignore=$f"; done; }

# suite LIMIT: the whole suite as pytest processes at once (the attention and sanitizer tests, test_ops.py, and the
# rest in REST_SHARDS parts by shard.py, default 4), each with its 10 slowest tests, its failures and its skip
# reasons; $OUT/suite.txt. timeout sends SIGINT first, so that a part cut by the limit still prints its summary.
suite() {
  local t=$(date +%s) rc=0 p pids=() i n=${REST_SHARDS:-4} summary
  # the processes share the host's cores: OpenMP teams (the cpu backend's, torch's) each of a share, else the
  # oversubscribed teams spin against each other and the CPU-device tests run tens of times slower
  local OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( $(nproc) / (n + 2) > 0 ? $(nproc) / (n + 2) : 1 ))}; export OMP_NUM_THREADS
  local att=($(files test_ops_attention.py test_sanitizers.py)) ops=($(files test_ops.py))
  local py=(timeout -s INT -k 15 $1 python3 -m pytest -q -rfEs --durations=10 -p no:cacheprovider)
  rm -f /tmp/suite_*.txt; : > /tmp/suite_att.txt; : > /tmp/suite_ops.txt
  [ ${#att[@]} -gt 0 ] && { "${py[@]}" "${att[@]}" > /tmp/suite_att.txt 2>&1 & pids+=($!); }
  [ ${#ops[@]} -gt 0 ] && { "${py[@]}" "${ops[@]}" > /tmp/suite_ops.txt 2>&1 & pids+=($!); }
  for ((i = 0; i < n; i++)); do
    SHARD=$i/$n "${py[@]}" test $(ignores "${att[@]}" "${ops[@]}") -p shard > /tmp/suite_rest$i.txt 2>&1 & pids+=($!)
  done
  for p in "${pids[@]}"; do wait $p || rc=1; done
  cat /tmp/suite_att.txt /tmp/suite_ops.txt /tmp/suite_rest*.txt > "$OUT/suite.txt"
  summary="attention $(tail -1 /tmp/suite_att.txt); test_ops.py $(tail -1 /tmp/suite_ops.txt); the rest"
  for ((i = 0; i < n; i++)); do summary="$summary | $(tail -1 /tmp/suite_rest$i.txt)"; done
  echo "suite rc $rc $(( $(date +%s) - t )) s: $summary"
  grep -hE "^FAILED|^ERROR|KeyboardInterrupt" /tmp/suite_*.txt | head -20; return $rc
}

# memcheck LIMIT: compute-sanitizer memcheck over the op tests; $OUT/memcheck_tail.txt, the first errors in
# $OUT/memcheck_errors.txt
memcheck() {
  local t=$(date +%s) rc
  timeout -s INT -k 15 $1 "$CS" --tool memcheck --error-exitcode 7 python3 -m pytest -q -p no:cacheprovider \
    $(files 'test_ops*.py') > /tmp/memcheck.txt 2>&1; rc=$?
  echo "memcheck rc $rc $(( $(date +%s) - t )) s"; grep -E "passed|failed|ERROR SUMMARY" /tmp/memcheck.txt | tail -2 | tee "$OUT/memcheck_tail.txt"
  grep -B2 -A12 -m3 "Invalid\|Error" /tmp/memcheck.txt > "$OUT/memcheck_errors.txt"; return $rc
}

# sanitize TOOL NAME LIMIT PYTEST-ARGS...: compute-sanitizer's TOOL over the tests, a digest of its reports (each
# distinct report once, with its count, lanes, blocks and test) in $OUT/NAME.txt. racecheck instruments every
# kernel and keeps the reports in ours (with only ours selected it stops at cuBLAS's sm90 kernels); synccheck
# instruments ours; initcheck every kernel (it must see torch's writes to the inputs). A kernel a tool stops leaves
# the process's context broken, so each shard is a process of its own.
sanitize() {
  local tool=$1 name=$2 lim=$3 t=$(date +%s) rc bt=device dig=(); shift 3
  local args=(--tool $tool --error-exitcode 7 --print-limit 20000 --log-file /tmp/$name.log)
  case $tool in
    racecheck) args+=(--racecheck-report all); dig=(--ours) ;;
    synccheck) args+=(--kernel-name kns=infini) ;;
    initcheck) bt=host ;;
  esac
  timeout -s INT -k 15 $lim "$CS" "${args[@]}" --show-backtrace $bt python3 -m pytest -q -p no:cacheprovider "$@" \
    > /tmp/$name.pytest.txt 2>&1; rc=$?
  { echo "$name: $tool rc $rc $(( $(date +%s) - t )) s over $*"; tail -1 /tmp/$name.pytest.txt
    grep -hE "^FAILED|^ERROR" /tmp/$name.pytest.txt | head -5
    python3 benchmarks/sanitize_digest.py /tmp/$name.log "${dig[@]}"; } > "$OUT/$name.txt" 2>&1
  head -3 "$OUT/$name.txt"
}

# bench NAME ARGS...: the comparison tool over every shape set, its rows merged into $CSV, its table in $OUT/NAME.txt
bench() {
  local name=$1 t=$(date +%s); shift
  timeout $(left 30) python3 -m infinicore_torch.bench --device cuda --shapes decode,prefill,large --budget 0.2 --busy-us 100 \
    --out "$OUT/plots_$name" --csv "$CSV" "$@" > "$OUT/$name.txt" 2>&1
  echo "$name rc $? $(( $(date +%s) - t )) s"
}

case "$mode" in
check)  # the suite and memcheck at once: the test processes and the sanitizer, 2 CPU threads each
  export OMP_NUM_THREADS=2
  suite $(left 10) & s=$!; memcheck $(left 10) & m=$!
  wait $s; a=$?; wait $m; b=$?
  exit $(( a || b )) ;;
suite)
  suite $(left 10); exit ;;
memcheck)
  memcheck $(left 10); exit ;;
sanitizers)  # the infini device's tests only: the cuda variants run the same kernels, the cpu ones none
  export OMP_NUM_THREADS=1
  n=${SHARDS:-4}; l=$(left 20); names=()
  for ((i = 0; i < n; i++)); do
    SHARD=$i/$n sanitize racecheck race$i $l $(files 'test_ops*.py') -p shard -k infini &
    SHARD=$i/$n sanitize synccheck sync$i $l $(files 'test_ops*.py') -p shard -k infini &
    SHARD=$i/$n sanitize initcheck init$i $l $(files 'test_ops*.py') -p shard -k "infini and not opcheck" &
    names+=(race$i sync$i init$i)
  done
  wait
  for f in "${names[@]}"; do cat "$OUT/$f.txt"; echo; rm -f "$OUT/$f.txt"; done > "$OUT/sanitizers.txt"
  "$CS" --version | tail -1; exit 0 ;;
two)  # two GPUs: the tests marked two_devices and test_distributed.py run (they skip on one GPU)
  suite $(left 150); a=$?
  timeout $(left 5) python3 benchmarks/allreduce_gpu.py --world 2 --out "$OUT/allreduce" --csv "$CSV" > "$OUT/allreduce.txt" 2>&1
  echo "allreduce rc $?"; tail -15 "$OUT/allreduce.txt"
  exit $a ;;
models)  # each tool's table in $OUT/NAME.txt, its rows merged into $CSV; a tool cut by the deadline keeps its rows out
  rc=0
  for tool in aten_gpu llm_gpu compile_gpu; do
    t=$(date +%s)
    timeout -s INT $(left 5) python3 benchmarks/$tool.py --csv "$CSV" > "$OUT/$tool.txt" 2>&1; r=$?
    [ $r -eq 0 ] || rc=1
    echo "$tool rc $r $(( $(date +%s) - t )) s"; tail -20 "$OUT/$tool.txt"
  done
  exit $rc ;;
esac

# bars and full
timeout 120 python3 benchmarks/host_overhead.py > "$OUT/host.txt" 2>&1; tail -1 "$OUT/host.txt"
peers=infini,torch,compile,triton,liger
bench bars --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching,embedding \
  --impls $peers --dtypes bfloat16
if [ "$mode" = full ]; then
  bench others --ops add,mul,silu,relu,gelu,layer_norm,topk_softmax,gemm,linear,random_sample,paged_attention,attention,paged_attention_prefill \
    --impls $peers --dtypes bfloat16
  bench fp32 --ops gemm,linear,random_sample --impls infini,torch --dtypes float32
fi
python3 benchmarks/best_peer.py --above "$CSV"; grep -h "copy" "$OUT"/bars.txt | head -1
python3 benchmarks/best_peer.py "$CSV" > "$OUT/best_peer.md" 2>&1
exit 0
