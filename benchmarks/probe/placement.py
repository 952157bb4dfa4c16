"""How much a decode row's tool time depends on where its buffers land (what moves a row between separate tool
runs, each of which allocates afresh) and how the per-call times spread within one placement. For each
`op[:set]` item and each of --placements placements: a spacer of a random size (1-64 MiB) is allocated, the
inputs are cloned after it (new addresses), and the implementations are timed interleaved as the comparison tool
times them (its Timer: L2 flush, GPU kept busy). Prints, per placement, each implementation's median and ours
over the best peer; then over placements the median of each, how often ours was at or under the best peer, and
each implementation's per-call histogram in 32 ns ticks of the event clock (all placements pooled). Per placement
also each implementation's output's 2 MiB page against its first input's (0: the same page). Optional knob
`--knob VAR=a,b`: ours under each value as separate implementations.

    python3 benchmarks/probe/placement.py silu_and_mul causal_softmax ... [--placements 8] [--reps 100]
"""
import argparse
import random
import statistics
from collections import Counter

import torch
import infinicore_torch  # noqa: F401
from cases import grouped  # (benchmarks/probe, this script's folder)
from infinicore_torch.bench import measure

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("items", nargs="+")
ap.add_argument("--placements", type=int, default=8)
ap.add_argument("--reps", type=int, default=100)
ap.add_argument("--busy-us", type=float, default=100.0)
ap.add_argument("--impls", default="compile,triton,liger")
ap.add_argument("--knob", default="")
args = ap.parse_args()
dev = torch.device("cuda")
timer = measure.Timer(dev, args.busy_us)
rng = random.Random(1)
var, _, vals = args.knob.partition("=")

groups = grouped(args.items, args.impls, dev, var, vals.split(","))

TICK = 1e6 / 31.25e6  # us a tick of the 32 ns event clock
for (op, label), g in groups.items():
    names = [n for n, _ in g["fns"]]
    ours = [i for i, n in enumerate(names) if n.startswith("infini")]
    peers = [i for i, n in enumerate(names) if not n.startswith("infini")]
    meds = {n: [] for n in names}
    pooled = {n: [] for n in names}
    wins = Counter()
    for k in range(args.placements):
        spacer = torch.empty(rng.randint(1, 64) << 20, dtype=torch.uint8, device=dev)
        inputs = tuple(t.clone() if isinstance(t, torch.Tensor) else t for t in g["inputs"])
        fns = [f for _, f in g["fns"]]
        for f in fns:  # warm (compile's graphs, the outputs' blocks)
            f(*inputs)
        torch.cuda.synchronize()
        pages = []  # each implementation's first output against the first input, in 2 MiB pages (TLB reach)
        for n, f in zip(names, fns):
            o = f(*inputs)
            o = next((t for t in (o if isinstance(o, (tuple, list)) else (o,)) if isinstance(t, torch.Tensor)), None)
            pages.append(f"{n} " + ("-" if o is None else f"{(o.data_ptr() >> 21) - (inputs[0].data_ptr() >> 21):+d}"))
            del o
        torch.cuda.synchronize()
        ts = timer.time_interleaved(fns, inputs, min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
        m = [statistics.median(t) * 1e6 for t in ts]
        for n, t, mm in zip(names, ts, m):
            meds[n].append(mm)
            pooled[n] += [x * 1e6 for x in t]
        best = min(m[i] for i in peers) if peers else float("nan")
        for i in ours:
            wins[names[i]] += m[i] <= best
        print(f"{op:14s} {label:12s} placement {k}: " + "  ".join(f"{n} {x:.2f}" for n, x in zip(names, m)) +
              "  | ours/best peer " + " ".join(f"{m[i] / best:.3f}" for i in ours) +
              "  | output page - input page: " + ", ".join(pages), flush=True)
        del spacer, inputs
    print(f"{op:14s} {label:12s} over {args.placements} placements (median of medians; range):")
    for n in names:
        print(f"    {n:22s} {statistics.median(meds[n]):.2f}  ({min(meds[n]):.2f}-{max(meds[n]):.2f})"
              + (f"  at or under the best peer in {wins[n]} of {args.placements}" if n in wins or n.startswith("infini") else ""))
    for n in names:
        c = Counter(round(x / TICK) for x in pooled[n])
        tot = sum(c.values())
        top = sorted(c.items())
        print(f"    hist {n:18s} " + " ".join(f"{t * TICK:.2f}:{100 * v / tot:.0f}%" for t, v in top if v / tot >= 0.02))
    print(flush=True)
print(f"late calls re-timed: {timer.late}; widest busy window {timer.busy_max_cycles / 2000:.0f} us")
