# Prepared in the 43rd session (not run: no device time was left): why gemm bf16 1x4096x4096 read 0.967-0.983x torch.mm
# in that session's calls 6-7 (0.992-1.00 before). Applies gemm_algos_s43.patch (knob INFINI_PROBE_GEMM=rK / aK: the
# heuristic's K-th algorithm with float32 split-K reductions only (r, as landed) or any reduction (a);
# INFINI_PROBE_GEMM_LIST=1 prints each candidate's algo id, tile, stages, split-K and reduction scheme at plan time),
# builds, lists the candidates at the decode shapes, the kernels each implementation launches, then the A/B.
git apply benchmarks/probe/gemm_algos_s43.patch || exit 1
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep build $OUT/setup.txt; cat $OUT/gpu.txt; rm -f $OUT/build.log $OUT/pip_wheels.log
INFINI_PROBE_GEMM_LIST=1 timeout 60 python3 -c "
import torch, infinicore_torch
m = torch.backends.cuda.matmul
print('torch: bf16 reduced-precision reduction', m.allow_bf16_reduced_precision_reduction, 'fp16', m.allow_fp16_reduced_precision_reduction, 'blas backend', torch.backends.cuda.preferred_blas_library())
for m, n, k in [(1, 4096, 4096), (16, 11008, 4096)]:
    a = torch.randn(m, k, device='cuda', dtype=torch.bfloat16); b = torch.randn(k, n, device='cuda', dtype=torch.bfloat16)
    torch.ops.infini.gemm(a, b); torch.cuda.synchronize()
" 2>&1 | tee $OUT/algos.txt | grep -E "gemm probe|^torch:"
for v in a0 a1; do INFINI_PROBE_GEMM=$v timeout 60 python3 -m pytest -q test/test_ops_gemm.py -p no:cacheprovider > $OUT/tests_$v.txt 2>&1; echo "gemm tests under $v: $(tail -1 $OUT/tests_$v.txt)"; done
cd benchmarks/probe
timeout 90 python3 kernel_times.py gemm linear --impls infini,torch 2>&1 | tee $OUT/kernels.txt
timeout 200 python3 ab_events.py INFINI_PROBE_GEMM=r0,r1,r2,r3,a0,a1,a2,a3 gemm --impls torch --rounds 3 --reps 60 --busy-us 300 2>&1 | tee $OUT/ab.txt
