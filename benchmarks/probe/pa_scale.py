"""paged_attention decode against SDPA as the work grows: fixed cost or rate? For 32 query heads of 128, bf16,
the tool's inputs (shuffled 16-token blocks; SDPA on the same keys/values stored contiguously) at several context
lengths (64 sequences) and sequence counts (2048 tokens), MHA and GQA (8 kv heads); each call timed as the tool
times it (L2 flushed, GPU kept busy, interleaved, medians). A least-squares line through (MB read, us) per
implementation: the slope is the steady rate (GB/s), the intercept the fixed cost of a call (ramp, tail, merge).

    python3 benchmarks/probe/pa_scale.py [--reps 30]
"""
import argparse
import statistics

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from infinicore_torch.bench import specs as S

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=30)
ap.add_argument("--kv", default="8,32")
args = ap.parse_args()
dev = torch.device("cuda")
spec = S.specs()["paged_attention"]
timer = measure.Timer(dev, busy_us=100)


def fit(xs, ys):
    n, mx, my = len(xs), statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx


for kvh in [int(x) for x in args.kv.split(",")]:
    for sweep, shapes in (("ctx", [(64, c) for c in (512, 1024, 2048, 4096)]),
                          ("seqs", [(s, 2048) for s in (16, 32, 48, 64, 96, 128)])):
        pts = {"infini": [], "sdpa": []}
        print(f"\nkv heads {kvh}, by {sweep}:  seqs x ctx | MB | infini us | sdpa us | sdpa/infini (speed)", flush=True)
        for seqs, ctx in shapes:
            p = {"seqs": seqs, "ctx": ctx, "kv_heads": kvh}
            inputs = spec.make(p, torch.bfloat16, dev, torch.Generator().manual_seed(0))
            mb = spec.bytes(p, torch.bfloat16) / 1e6
            t = timer.time_interleaved([spec.infini, spec.reference], inputs, min_reps=args.reps, max_reps=args.reps,
                                       budget_s=0.0)
            a, b = (statistics.median(x) * 1e6 for x in t)
            pts["infini"].append((mb, a))
            pts["sdpa"].append((mb, b))
            print(f"  {seqs:4d} x {ctx:5d} | {mb:8.1f} | {a:9.2f} | {b:9.2f} | {b / a:.3f}", flush=True)
            del inputs
            torch.cuda.empty_cache()
        for impl, xy in pts.items():
            slope, icpt = fit([x for x, _ in xy], [y for _, y in xy])
            print(f"  fit {impl:6s}: {1e3 / slope:7.1f} GB/s steady, {icpt:6.2f} us fixed", flush=True)
