"""A/B of a temporary environment knob timed as the comparison tool times (its Timer: L2 flush, GPU kept
busy, events around the call), ours under each knob value interleaved with the peers in every round (the
knob set on the host before each call). Prints the medians per round and over rounds. Usage:
    python3 benchmarks/probe/ab_events.py VAR=0,1,2 op[:set] ... [--reps N] [--rounds R] [--impls peers]"""
import os
import statistics

import torch
import infinicore_torch  # noqa: F401
from cases import grouped, knob_setup  # (benchmarks/probe, this script's folder)

args, var, values, dev, timer = knob_setup(__doc__, reps=150)


groups = grouped(args.items, args.impls, dev, var, values)
for (op, label), g in groups.items():
    per = {name: [] for name, _ in g["fns"]}
    for rnd in range(args.rounds):
        ts = timer.time_interleaved([f for _, f in g["fns"]], g["inputs"], min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
        for (name, _), t in zip(g["fns"], ts):
            per[name].append(statistics.median(t) * 1e6)
    os.environ.pop(var, None)
    for name, ms in per.items():
        print(f"{op:14s} {label:14s} {name:16s} {statistics.median(ms):8.2f} us  ({' '.join(f'{m:.2f}' for m in ms)})", flush=True)
