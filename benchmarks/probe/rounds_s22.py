"""Twenty-second session: how the stream softmax kernel's time grows with the rounds its persistent clusters
take (rows = 57 k on an H200: k lines a cluster), beside torch's copy of the same bytes, bf16 lines of n;
kernel durations as the tool times them. A fit time = a + b k for each says how much is fixed (start and
end) and how much a round costs. Usage: python3 rounds_s22.py [--reps N] [--n 128256] [--g 57] [--knob VAR=v1,v2]"""
import argparse
import os
import statistics

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import kernel_durations

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=30)
ap.add_argument("--n", type=int, default=128256)
ap.add_argument("--g", type=int, default=57)
ap.add_argument("--knob", default="SM_K=0")
args = ap.parse_args()
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
base = set(kernel_durations(timer, lambda: None, (), 3))


def ktime(fn, inputs):
    for _ in range(3):
        fn(*inputs)
    torch.cuda.synchronize()
    rows = [d for k, d in kernel_durations(timer, fn, inputs, args.reps).items() if k not in base]
    return sum(statistics.median(d) * len(d) / args.reps for d in rows)


def fit(ks, ts):
    mk, mt = statistics.mean(ks), statistics.mean(ts)
    b = sum((k - mk) * (t - mt) for k, t in zip(ks, ts)) / sum((k - mk) ** 2 for k in ks)
    return mt - b * mk, b


var, _, vals = args.knob.partition("=")
ks = [3, 5, 7, 9]
res = {}
for k in ks:
    rows = args.g * k
    x = torch.randn(rows, args.n, device=dev).mul_(3).to(torch.bfloat16)
    y = torch.empty_like(x)
    res[("copy", k)] = ktime(lambda a, b: b.copy_(a), (x, y))
    for v in vals.split(","):
        os.environ[var] = v
        res[(v, k)] = ktime(lambda a: torch.ops.infini.softmax(a, -1), (x,))
    os.environ.pop(var, None)
    print(f"k={k} rows={rows}: copy {res[('copy', k)]:7.2f}  " + "  ".join(f"{var}={v} {res[(v, k)]:7.2f}" for v in vals.split(",")), flush=True)
for name in ["copy"] + vals.split(","):
    a, b = fit(ks, [res[(name, k)] for k in ks])
    print(f"{name:8s} time = {a:6.2f} + {b:6.3f} k us")
