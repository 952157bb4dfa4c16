# Twenty-fourth session, ninth call (H200): the comparison tool over every op, bfloat16, every shape set, every
# peer, at the session's final GPU kernels; best peer per row; host overhead (the eighteenth session's script).
# Usage: bash benchmarks/probe/gpu_all_s24.sh
exec bash benchmarks/probe/gpu_bench_s18.sh
