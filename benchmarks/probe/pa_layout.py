"""paged_attention decode: kernel durations (profiler, flushed, the tool's Timer) of ours with the cache's
blocks shuffled (the tool's layout) and in order, and (--head-major) with each kv head's blocks stored
together (a [kv_heads, blocks, block_size, d] buffer viewed as the cache: in order, a sequence's keys of
one head are contiguous as SDPA reads them), for each value of a temporary launch-time knob, against
SDPA on the same keys and values stored contiguously. Rounds interleave everything; prints medians.
Usage: python3 benchmarks/probe/pa_layout.py [VAR=v1,v2] [--shapes 64x2048x8,64x2048x32] [--rounds 3] [--head-major]"""
import argparse

import torch
import torch.nn.functional as F
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure
from cases import knob_rounds

ap = argparse.ArgumentParser()
ap.add_argument("knob", nargs="?", default="")
ap.add_argument("--shapes", default="64x2048x8,64x2048x32,16x1024x8,8x512x8")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--reps", type=int, default=30)
ap.add_argument("--head-major", action="store_true")
args = ap.parse_args()
var, _, vals = args.knob.partition("=")
vals = vals.split(",") if var else [None]
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
HEADS, D, BS = 32, 128, 16


def make(seqs, ctx, kvh, shuffled, g, head_major=False):
    k = torch.randn(seqs, kvh, ctx, D, generator=g).to(dev, torch.bfloat16)
    v = torch.randn(seqs, kvh, ctx, D, generator=g).to(dev, torch.bfloat16)
    nb = seqs * ctx // BS
    perm = torch.randperm(nb, generator=g) if shuffled else torch.arange(nb)
    if head_major:
        kc = torch.empty(kvh, nb, BS, D, dtype=torch.bfloat16, device=dev).transpose(0, 1)
        vc = torch.empty(kvh, nb, BS, D, dtype=torch.bfloat16, device=dev).transpose(0, 1)
    else:
        kc = torch.empty(nb, kvh, BS, D, dtype=torch.bfloat16, device=dev)
        vc = torch.empty_like(kc)
    kc[perm.to(dev)] = k.view(seqs, kvh, ctx // BS, BS, D).transpose(1, 2).reshape(nb, kvh, BS, D)
    vc[perm.to(dev)] = v.view(seqs, kvh, ctx // BS, BS, D).transpose(1, 2).reshape(nb, kvh, BS, D)
    tables = perm.view(seqs, ctx // BS).to(device=dev, dtype=torch.int32)
    lens = torch.full((seqs,), ctx, dtype=torch.int32, device=dev)
    q = torch.randn(seqs, HEADS, D, generator=g).to(dev, torch.bfloat16)
    return q, kc, vc, tables, lens, k, v


def ours(q, kc, vc, tables, lens, k, v):
    return torch.ops.infini.paged_attention(q, kc, vc, tables, lens, None, D ** -0.5)


def sdpa(q, kc, vc, tables, lens, k, v):
    return F.scaled_dot_product_attention(q.unsqueeze(2), k, v, enable_gqa=True).squeeze(2)


g = torch.Generator().manual_seed(0)
cases = []
for sh in args.shapes.split(","):
    seqs, ctx, kvh = map(int, sh.split("x"))
    for shuffled, hm in [(True, False), (False, False)] + ([(True, True), (False, True)] if args.head_major else []):
        inputs = make(seqs, ctx, kvh, shuffled, g, hm)
        ref = sdpa(*inputs).float()
        got = ours(*inputs).float()
        err = (got - ref).abs().max().item()
        assert err < 0.05, f"{sh} shuffled={shuffled}: max error {err}"
        for v in vals:
            lay = ("shuffled" if shuffled else "in-order") + (" head-major" if hm else "")
            cases.append(((sh, lay, f"ours {var}={v}" if v else "ours"), v, ours, inputs))
        if shuffled and not hm:
            cases.append(((sh, "contiguous", "sdpa"), None, sdpa, inputs))
knob_rounds(timer, cases, args.rounds, args.reps, var)
