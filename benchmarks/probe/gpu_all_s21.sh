# Twenty-first session, sixth call (H200): the comparison tool over every op, bfloat16, every shape set,
# every peer, at that call's GPU kernels; best peer per row; host overhead: the eighteenth session's
# script, unchanged. Usage: bash benchmarks/probe/gpu_all_s21.sh
exec bash benchmarks/probe/gpu_bench_s18.sh
