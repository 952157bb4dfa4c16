"""A/B of a temporary knob of the paged decode's plan over decode shapes, timed as the comparison tool times (L2
flushed, GPU kept busy, interleaved, medians): ours under each knob value and SDPA on the same keys and values
stored contiguously (where every sequence is full: with ragged lengths SDPA is not the same work and is left
out). 32 query heads of 128, bf16, 16-token blocks, the tool's shuffled pages.

    python3 benchmarks/probe/pa_rule.py VAR=0,1 [--reps 30]
"""
import argparse
import statistics

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from infinicore_torch.bench import specs as S
from cases import with_knob  # (benchmarks/probe, this script's folder)

ap = argparse.ArgumentParser()
ap.add_argument("knob")
ap.add_argument("--reps", type=int, default=30)
args = ap.parse_args()
var, _, values = args.knob.partition("=")
values = values.split(",")
dev = torch.device("cuda")
spec = S.specs()["paged_attention"]
timer = measure.Timer(dev, busy_us=100)
# (seqs, ctx, kv heads, lengths): "full", "random" (uniform 1..ctx, the first full), "skew" (the first full, the
# others ctx / 8), "near" (uniform 0.9 ctx..ctx, the first full)
shapes = [(32, 2048, 8, "full"), (48, 2048, 8, "full"), (64, 1024, 8, "full"), (64, 2048, 8, "full"),
          (64, 4096, 8, "full"), (96, 2048, 8, "full"), (128, 2048, 8, "full"), (64, 2048, 2, "full"),
          (64, 2048, 8, "random"), (64, 2048, 8, "skew"), (64, 2048, 8, "near"), (32, 2048, 8, "near"), (64, 8192, 8, "full"), (64, 8192, 8, "random"),
          (64, 8192, 8, "skew"), (32, 8192, 8, "skew")]
print(f"{torch.cuda.get_device_name(dev)}; us, medians of {args.reps} interleaved calls")
print(f"{'seqs x ctx, kv heads, lengths':34s} " + " ".join(f"{var + '=' + v:>16s}" for v in values) + f" {'sdpa':>9s}")
for seqs, ctx, kvh, kind in shapes:
    g = torch.Generator().manual_seed(0)
    inputs = list(spec.make({"seqs": seqs, "ctx": ctx, "kv_heads": kvh}, torch.bfloat16, dev, g))
    if kind != "full":
        lo = {"random": 1, "near": ctx * 9 // 10}.get(kind)
        lens = torch.randint(lo, ctx + 1, (seqs,), generator=g) if lo else torch.full((seqs,), ctx // 8)
        lens[0] = ctx
        inputs[4] = lens.to(device=dev, dtype=torch.int32)
    fns = [with_knob(var, spec.infini, v) for v in values]
    outs = [f(*inputs).float() for f in fns]
    diff = max((outs[0] - o).abs().max().item() for o in outs[1:]) if len(outs) > 1 else 0.0
    if kind == "full":
        fns.append(spec.reference)
    t = timer.time_interleaved(fns, tuple(inputs), min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
    med = [statistics.median(x) * 1e6 for x in t]
    cells = " ".join(f"{m:16.2f}" for m in med[:len(values)])
    sd = f" {med[-1]:9.2f}" if kind == "full" else " " * 10
    print(f"{f'{seqs} x {ctx}, {kvh}, {kind}':34s} {cells}{sd}  max |diff| {diff:.2e}", flush=True)
    del inputs, outs
    torch.cuda.empty_cache()
