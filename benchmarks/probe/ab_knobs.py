"""A/B of a temporary environment knob inside one build: for each round, the kernel durations of ours
under each knob value (the knob is read at every launch), interleaved with the peers', as kernel_times.py
measures them (profiler, the tool's Timer: flush, GPU kept busy). Prints each round and the medians over
rounds. Usage: python3 benchmarks/probe/ab_knobs.py VAR=0,1,2 op[:set] ... [--reps N] [--rounds R] [--impls peers]"""
import argparse
import os
import statistics
from collections import defaultdict

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import cases, kernel_durations  # (benchmarks/probe, this script's folder)

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("knob", help="VAR=v1,v2,...")
ap.add_argument("items", nargs="+")
ap.add_argument("--reps", type=int, default=40)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--busy-us", type=float, default=100.0)
ap.add_argument("--impls", default="compile,triton")
args = ap.parse_args()
var, _, values = args.knob.partition("=")
values = values.split(",")
dev = torch.device("cuda")
timer = measure.Timer(dev, args.busy_us)
base = set(kernel_durations(timer, lambda: None, (), 3))
got = defaultdict(list)
todo = list(cases(args.items, ["infini"] + [i for i in args.impls.split(",") if i], dev))


def total(fn, inputs):
    rows = [(k, v) for k, v in kernel_durations(timer, fn, inputs, args.reps).items() if k not in base]
    return sum(statistics.median(v) * len(v) / args.reps for k, v in rows)


for rnd in range(args.rounds):
    for op, label, impl, fn, inputs in todo:
        for v in values if impl == "infini" else [None]:
            name = f"infini {var}={v}" if v is not None else impl
            if v is not None:
                os.environ[var] = v
            for _ in range(3):
                fn(*inputs)
            torch.cuda.synchronize()
            t = total(fn, inputs)
            got[(op, label, name)].append(t)
            print(f"round {rnd} {op:14s} {label:14s} {name:22s} {t:6.2f} us", flush=True)
os.environ.pop(var, None)
print("medians over rounds (kernel us):")
for (op, label, name), ts in got.items():
    print(f"{op:14s} {label:14s} {name:22s} {statistics.median(ts):6.2f}  ({' '.join(f'{t:.2f}' for t in ts)})")
