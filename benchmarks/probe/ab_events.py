"""A/B of a temporary environment knob timed as the comparison tool times (its Timer: L2 flush, GPU kept
busy, events around the call), ours under each knob value interleaved with the peers in every round (the
knob set on the host before each call). Prints the medians per round and over rounds. Usage:
    python3 benchmarks/probe/ab_events.py VAR=0,1,2 op[:set] ... [--reps N] [--rounds R] [--impls peers]"""
import argparse
import os
import statistics

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import cases  # (benchmarks/probe, this script's folder)

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("knob", help="VAR=v1,v2,...")
ap.add_argument("items", nargs="+")
ap.add_argument("--reps", type=int, default=150)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--busy-us", type=float, default=100.0)
ap.add_argument("--impls", default="compile,triton")
args = ap.parse_args()
var, _, values = args.knob.partition("=")
values = values.split(",")
timer = measure.Timer(torch.device("cuda"), args.busy_us)


def with_knob(fn, v):
    def call(*a):
        os.environ[var] = v
        return fn(*a)
    return call


groups = {}
for op, label, impl, fn, inputs in cases(args.items, ["infini"] + [i for i in args.impls.split(",") if i], torch.device("cuda")):
    g = groups.setdefault((op, label), {"inputs": inputs, "fns": []})
    if impl == "infini":
        g["fns"] += [(f"infini {var}={v}", with_knob(fn, v)) for v in values]
    else:
        g["fns"].append((impl, fn))
for (op, label), g in groups.items():
    per = {name: [] for name, _ in g["fns"]}
    for rnd in range(args.rounds):
        ts = timer.time_interleaved([f for _, f in g["fns"]], g["inputs"], min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
        for (name, _), t in zip(g["fns"], ts):
            per[name].append(statistics.median(t) * 1e6)
    os.environ.pop(var, None)
    for name, ms in per.items():
        print(f"{op:14s} {label:14s} {name:16s} {statistics.median(ms):8.2f} us  ({' '.join(f'{m:.2f}' for m in ms)})", flush=True)
