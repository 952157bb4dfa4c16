# Thirteenth session, review mend: the probes' shared command line (cases.probe_setup) smoke-run on the
# GPU. Usage: bash benchmarks/probe/gpu_smoke_s13.sh
source .ci/gpu_setup.sh || exit 1
cd benchmarks/probe
timeout 60 python3 kernel_times.py rms_norm:decode --reps 5 --impls infini,triton 2>&1 | grep -v -i warn | cut -c1-90
timeout 60 python3 launch_gap.py rms_norm:decode --reps 5 --impls infini,triton 2>&1 | grep -v -i warn
timeout 60 python3 warm_probe.py rms_norm:decode --reps 5 --rounds 1 --modes flush,old,noflush --impls infini,triton 2>&1 | grep -v -i warn | tail -3
