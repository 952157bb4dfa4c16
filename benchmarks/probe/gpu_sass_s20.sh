# Twentieth session, second call (H200): the binary kernels at 2 vectors a thread (kernel times against
# compile, elementwise tests); the SASS of the softmax stream kernel (bf16): opcode counts, and the
# disassembly for reading. Usage: bash benchmarks/probe/gpu_sass_s20.sh
source .ci/gpu_setup.sh || exit 1
t=$(date +%s); timeout 120 python3 -m pytest -q test/test_ops.py -k "add or mul or swiglu" -p no:cacheprovider > $OUT/t.log 2>&1; echo "tests rc $? $(( $(date +%s) - t )) s: $(tail -1 $OUT/t.log)"; grep -E "^FAILED" $OUT/t.log | head -3
SO=infinicore_torch/lib/libinfini_backend_nvidia.so
F=$(cuobjdump -symbols $SO 2>/dev/null | grep -o "_ZN[A-Za-z0-9_]*softmaxStreamKernelI13__nv_bfloat16[A-Za-z0-9_]*" | head -1); echo "fn $F"
cuobjdump -sass -fun "$F" $SO > $OUT/stream_bf16.sass 2>&1; wc -l $OUT/stream_bf16.sass
grep -E "^\s+/\*[0-9a-f]+\*/" $OUT/stream_bf16.sass | sed -E 's/^\s+\/\*[0-9a-f]+\*\/\s+(@!?U?P[T0-9]+\s+)?([A-Z0-9_]+)(\.[A-Z0-9_.]*)?.*/\2\3/' | sort | uniq -c | sort -rn | head -45
cd benchmarks/probe
t=$(date +%s); timeout 100 python3 kernel_times.py swiglu:prefill,large add:prefill mul:prefill --impls infini,compile --reps 30 2>&1 | grep -v -i warn > $OUT/kt.txt; echo "kt rc $? $(( $(date +%s) - t )) s"; cut -c1-110 $OUT/kt.txt
