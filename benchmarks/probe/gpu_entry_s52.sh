# 52nd session: does the dependent-launch entry (griddepcontrol at each kernel's start) cost the one-call time the
# comparison tool measures? With probe/entry_s52.patch applied: build A (the package, as committed) and build B (the
# nvidia backend alone with -DINFINI_PROBE_NOENTRY: no griddepcontrol instruction, the 50th session's kernels), then
# the tool over the bar ops' decode shapes (bf16, every peer), one process at a time cycling A with INFINI_PDL=1,
# A with INFINI_PDL=0, B (INFINI_BACKEND_PATH, INFINI_PDL=0), to the call's deadline; each process's rows above their
# best peer, and every table.
START=$(date +%s); left() { echo $(( START + 585 - $(date +%s) )); }
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt; cat $OUT/gpu.txt
t=$(date +%s)
cmake -S backends -B /tmp/bB -G Ninja -DCMAKE_BUILD_TYPE=Release -DINFINI_WITH_NVIDIA=ON -DINFINI_OPENBLAS_DIR= \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_FLAGS=-DINFINI_PROBE_NOENTRY > /tmp/bB.log 2>&1 &&
  cmake --build /tmp/bB --target infini_backend_nvidia --parallel 16 >> /tmp/bB.log 2>&1; echo "build B rc $? $(( $(date +%s) - t )) s"
ls /tmp/bB/*.so
INFINI_BACKEND_PATH=/tmp/bB python3 -m infinicore_torch 2>&1 | grep -i "nvidia" | head -3
i=0
while [ $(left) -gt 60 ] && [ $i -lt 12 ]; do
  case $(( i % 3 )) in 0) cfg=A1; env="INFINI_PDL=1";; 1) cfg=A0; env="INFINI_PDL=0";; 2) cfg=B0; env="INFINI_PDL=0 INFINI_BACKEND_PATH=/tmp/bB";; esac
  t=$(date +%s)
  env $env timeout $(( $(left) - 5 )) python3 -m infinicore_torch.bench --device cuda --shapes decode --budget 0.2 --busy-us 100 \
    --ops rms_norm,add_rms_norm,swiglu,silu_and_mul,rope,softmax,causal_softmax,paged_caching \
    --impls infini,torch,compile,triton,liger --dtypes bfloat16 --out /tmp/r$i > $OUT/entry_${i}_$cfg.txt 2>&1
  echo "round $i $cfg rc $? $(( $(date +%s) - t )) s"
  python3 benchmarks/best_peer.py --above $OUT/entry_${i}_$cfg.txt | tail -n +3
  i=$(( i + 1 ))
done
