# Twenty-seventh session, first call (H200): where the last best-peer gaps sit. launch_gap.py and
# kernel_times.py over rms_norm large and silu_and_mul decode (ours, Liger, our Triton, compile); the
# silu_and_mul decode A/B of flat 1-D variants (XSM knob); the SASS of our silu_and_mul kernels and of
# inductor's Triton kernel, to read side by side. Usage: bash benchmarks/probe/gpu_gap_s27.sh
source .ci/gpu_setup.sh > $OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -E "^build" $OUT/setup.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
cd benchmarks/probe
I="--impls infini,liger,triton,compile"
timeout 150 python3 launch_gap.py rms_norm:large silu_and_mul:decode paged_caching:decode $I > $OUT/gap.txt 2>&1; echo "gap rc $?"; cat $OUT/gap.txt | grep -v Warn
timeout 120 python3 kernel_times.py rms_norm:large silu_and_mul:decode $I > $OUT/kt.txt 2>&1; echo "kt rc $?"; cut -c1-150 $OUT/kt.txt
timeout 150 python3 ab_knobs.py XSM=0,1,2,3 silu_and_mul:decode --impls compile,triton --rounds 3 > $OUT/ab_silu.txt 2>&1; echo "ab rc $?"; sed -n '/medians/,$p' $OUT/ab_silu.txt
cd ../..
CO=/usr/local/cuda/bin/cuobjdump
$CO -sass infinicore_torch/lib/libinfini_backend_nvidia.so | awk '/Function :/ {p = ($0 ~ /siluAndMul/ && $0 ~ /bfloat16/)} p' > $OUT/sass_ours.txt; echo "ours sass lines $(wc -l < $OUT/sass_ours.txt)"
for f in $(find ~/.triton /tmp/torchinductor_* -name "*.cubin" 2>/dev/null | grep -i -E "silu|swiglu|mul" | head -4); do echo "== $f"; $CO -sass $f; done > $OUT/sass_triton.txt 2>&1; echo "triton sass lines $(wc -l < $OUT/sass_triton.txt)"
