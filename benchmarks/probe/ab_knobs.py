"""A/B of a temporary environment knob inside one build: for each round, the kernel durations of ours
under each knob value (the knob is read at every launch), interleaved with the peers', as kernel_times.py
measures them (profiler, the tool's Timer: flush, GPU kept busy). Prints each round and the medians over
rounds. Usage: python3 benchmarks/probe/ab_knobs.py VAR=0,1,2 op[:set] ... [--reps N] [--rounds R] [--impls peers]"""
import argparse

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import cases, knob_rounds  # (benchmarks/probe, this script's folder)

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
todo = list(cases(args.items, ["infini"] + [i for i in args.impls.split(",") if i], dev))
work = []
for op, label, impl, fn, inputs in todo:
    for v in values if impl == "infini" else [None]:
        work.append(((op, label, f"infini {var}={v}" if v is not None else impl), v, fn, inputs))
knob_rounds(timer, work, args.rounds, args.reps, var)
