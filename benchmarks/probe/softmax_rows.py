"""Kernel durations of torch.ops.infini.softmax over [rows, cols] bf16 lines for given row counts under
each value of an environment knob, rounds interleaved (as ab_knobs.py); --copy: torch's copy of the same bytes
alongside, and each case's GB/s (read + write). Usage:
python3 benchmarks/probe/softmax_rows.py VAR=a,b --rows 66,132,256 [--cols 128256] [--rounds 3] [--reps 20] [--copy]"""
import statistics
import argparse

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import knob_rounds  # (benchmarks/probe, this script's folder)

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("knob")
ap.add_argument("--rows", default="66,132,256,512")
ap.add_argument("--cols", type=int, default=128256)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--copy", action="store_true")
args = ap.parse_args()
var, _, values = args.knob.partition("=")
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
work = []
for r in (int(v) for v in args.rows.split(",")):
    x = (torch.randn(r, args.cols, device=dev) * 3).to(torch.bfloat16)
    fn = lambda t: torch.ops.infini.softmax(t, -1)  # noqa: E731
    for v in values.split(","):
        work.append((("softmax", f"{r}x{args.cols}", f"{var}={v}"), v, fn, (x,)))
    if args.copy:
        work.append((("copy", f"{r}x{args.cols}", "torch"), None, lambda a, b: b.copy_(a), (x, torch.empty_like(x))))
got = knob_rounds(timer, work, args.rounds, args.reps, var)
if args.copy:
    print("GB/s (read + write):")
    for key, ts in got.items():
        r = int(key[1].split("x")[0])
        print(" ".join(f"{k:20s}" for k in key) + f" {4 * r * args.cols / statistics.median(ts) / 1e3:8.1f}")
