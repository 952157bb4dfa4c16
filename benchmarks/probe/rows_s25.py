"""Twenty-fifth session: kernel us of the stream softmax kernel's variants (temporary knob XSV) at lines of
128256 bf16 over given row counts, and torch's copy of the same bytes, in interleaved rounds; per-byte rates.
Usage: python3 rows_s25.py XSV=16,6 512 528 [--reps N]"""
import argparse

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import knob_rounds

ap = argparse.ArgumentParser()
ap.add_argument("knob")
ap.add_argument("rows", nargs="+", type=int)
ap.add_argument("--n", type=int, default=128256)
ap.add_argument("--reps", type=int, default=30)
ap.add_argument("--rounds", type=int, default=3)
args = ap.parse_args()
var, _, values = args.knob.partition("=")
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
work = []
for r in args.rows:
    x = torch.randn(r, args.n, device=dev).to(torch.bfloat16)
    y = torch.empty_like(x)
    for v in values.split(","):
        work.append(((f"{r}x{args.n}", f"{var}={v}"), v, lambda a: torch.ops.infini.softmax(a, -1), (x,)))
    work.append(((f"{r}x{args.n}", "copy"), None, lambda a, b: b.copy_(a), (x, y)))
got = knob_rounds(timer, work, args.rounds, args.reps, var)
import statistics
print("GB/s (read + write):")
for key, ts in got.items():
    r = int(key[0].split("x")[0])
    print(f"{key[0]:12s} {key[1]:10s} {4 * r * args.n / statistics.median(ts) / 1e3:8.1f}")
