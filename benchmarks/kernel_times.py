"""The GPU kernels each implementation launches for one call, with their device durations (torch.profiler,
CUPTI), each call timed as the comparison tool times it (its Timer: L2 flush, GPU kept busy): tells a slow
kernel from extra kernels or gaps. Eager torch is left out (many kernels a call, never the closest peer
at these shapes). Usage: python3 benchmarks/kernel_times.py op[:set[,set]] ... [--reps N] [--busy-us U] [--impls a,b]"""

import statistics

import torch
from cases import cases, kernel_durations, probe_setup  # (benchmarks, this script's folder)

import infinicore_torch  # noqa: F401

args, dev, timer = probe_setup(__doc__, reps=30)


def kernels(fn, inputs):
    return kernel_durations(timer, fn, inputs, args.reps)


base = set(kernels(lambda: None, ()))  # the timer's own kernels (flush, spin)
for op, label, impl, fn, inputs in cases(args.items, args.impls.split(","), dev):
    for _ in range(3):
        fn(*inputs)
    torch.cuda.synchronize()
    rows = [(k, v) for k, v in kernels(fn, inputs).items() if k not in base]
    total = sum(statistics.median(v) * len(v) / args.reps for k, v in rows)
    desc = "; ".join(f"{k[:60]} x{len(v) / args.reps:g} {statistics.median(v):.2f}" for k, v in rows)
    print(f"{op:16s} {label:16s} {impl:8s} kernels {total:6.2f} us | {desc}", flush=True)
