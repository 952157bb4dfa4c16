"""A/B of an environment knob on paged_attention_prefill calls with history (chunked prefill: each sequence's
q_len new rows after ctx - q_len cached tokens), timed as the comparison tool times (L2 flush, events), the knob
values interleaved in every round. Usage: python3 prefill_hist.py VAR=0,1 [--bs 16] [--reps 40] [--rounds 3] [--shapes ...]
Shapes: seqs x q_len / ctx, 32 heads / 8 kv heads of 128, bf16; a mixed batch joins groups by '+' (for example
1x2048/2048+63x1/2048: one sequence of 2048 new rows and 63 decode rows after 2047 cached tokens)."""
import argparse
import os
import statistics

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure

ap = argparse.ArgumentParser()
ap.add_argument("knob")
ap.add_argument("--reps", type=int, default=40)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--bs", default="16")
ap.add_argument("--shapes", default="4x64/64,1x512/512,16x32/2048,64x16/1024,8x128/4096,1x512/8192,4x256/2048,2x1024/2048,1x4096/4096")
args = ap.parse_args()
var, _, values = args.knob.partition("=")
values = values.split(",")
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
H, KVH, D = 32, 8, 128
g = torch.Generator(device=dev).manual_seed(0)
for bs in [int(b) for b in args.bs.split(",")]:
    for shp in args.shapes.split(","):
        groups = []
        for grp in shp.split("+"):
            sq, ctx = grp.split("/")
            n, ql = map(int, sq.split("x"))
            groups += [(ql, int(ctx))] * n
        seqs = len(groups)
        nbs = (max(c for _, c in groups) + bs - 1) // bs
        nb = seqs * nbs
        kc = torch.randn(nb, KVH, bs, D, device=dev, dtype=torch.bfloat16, generator=g)
        vc = torch.randn(nb, KVH, bs, D, device=dev, dtype=torch.bfloat16, generator=g)
        tables = torch.randperm(nb, device=dev, generator=g).view(seqs, nbs).to(torch.int32)
        lens = torch.tensor([c for _, c in groups], dtype=torch.int32, device=dev)
        cu = torch.tensor([0] + [ql for ql, _ in groups], dtype=torch.int32).cumsum(0).to(torch.int32).to(dev)
        rows = sum(ql for ql, _ in groups)
        q = torch.randn(rows, H, D, device=dev, dtype=torch.bfloat16, generator=g)
        inputs = (q, kc, vc, tables, lens, cu)

        def mk(v):
            def call(q, kc, vc, tables, lens, cu):
                os.environ[var] = v
                return torch.ops.infini.paged_attention_prefill(q, kc, vc, tables, lens, cu, None, D ** -0.5)
            return call
        fns = [mk(v) for v in values]
        outs = [f(*inputs) for f in fns]
        torch.cuda.synchronize()
        same = all(torch.allclose(outs[0].float(), o.float(), atol=2e-2, rtol=2e-2) for o in outs[1:])
        per = [[] for _ in fns]
        for _ in range(args.rounds):
            ts = timer.time_interleaved(fns, inputs, min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
            for i, t in enumerate(ts):
                per[i].append(statistics.median(t) * 1e6)
        os.environ.pop(var, None)
        row = "  ".join(f"{var}={v} {statistics.median(m):8.2f}" for v, m in zip(values, per))
        ratio = f"  ratio {statistics.median(per[1]) / statistics.median(per[0]):.3f}" if len(per) > 1 else ""  # (one value: times only)
        print(f"bs {bs:3d} {shp:28s} {row}{ratio}  same {same}", flush=True)
