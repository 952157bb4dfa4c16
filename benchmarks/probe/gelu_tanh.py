"""gelu's tanh form as the comparison tool times it (its Timer: L2 flush, GPU kept busy, events around each call;
interleaved), ours under each value of a launch-time knob, with torch's F.gelu(approximate="tanh") and its
torch.compile'd form; then the kernel-free check of ours against torch. bfloat16, the tool's gelu shapes.
49th session probe. Usage: python3 gelu_tanh.py VAR=0,1 [--rounds R] [--reps N]"""
import argparse
import os
import statistics

import torch
import torch.nn.functional as F
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure

ap = argparse.ArgumentParser()
ap.add_argument("knob")
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--reps", type=int, default=80)
args = ap.parse_args()
var, _, values = args.knob.partition("=")
values = values.split(",")
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
tanh = lambda x: F.gelu(x, approximate="tanh")  # noqa: E731
compiled = torch.compile(tanh)


def ours(v):
    def call(x):
        os.environ[var] = v
        return torch.ops.infini.gelu(x, "tanh")
    return call


g = torch.Generator().manual_seed(0)
for rows in (1, 16, 1024, 4096, 8192):
    x = (torch.randn(rows, 11008, generator=g) * 3).to(torch.bfloat16).to(dev)
    fns = [(f"infini {var}={v}", ours(v)) for v in values] + [("torch", tanh), ("compile", compiled)]
    want = tanh(x.float())
    for name, f in fns:
        err = (f(x).float() - want).abs().max().item()
        assert err <= 0.02 * want.abs().max().item(), (name, err)
    per = {n: [] for n, _ in fns}
    for _ in range(args.rounds):
        ts = timer.time_interleaved([f for _, f in fns], (x,), min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
        for (n, _), t in zip(fns, ts):
            per[n].append(statistics.median(t) * 1e6)
    for n, ms in per.items():
        print(f"gelu_tanh {rows}x11008 {n:18s} {statistics.median(ms):8.2f} us  ({' '.join(f'{m:.2f}' for m in ms)})", flush=True)
