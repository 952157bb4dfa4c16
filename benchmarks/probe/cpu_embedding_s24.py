"""Twenty-fourth session: embedding of cold rows on the CPU, ours against torch in the same process, the rows
drawn from a pool of index sets (64 by default) over one table, so that no row is in cache when it is
copied (a 32000 x 4096 float32 table is 512 MiB). Run once per build of the backend to compare builds.
Usage: python benchmarks/probe/cpu_embedding_s24.py [--dtype bfloat16] [--tokens 512] [--pool 64] [--reps 60]"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import infinicore_torch

ap = argparse.ArgumentParser()
ap.add_argument("--dtype", default="float32")
ap.add_argument("--tokens", type=int, default=512)
ap.add_argument("--pool", type=int, default=64)
ap.add_argument("--reps", type=int, default=60)
args = ap.parse_args()
dtype = getattr(torch, args.dtype)
torch.manual_seed(0)
w = torch.randn(32000, 4096).to(dtype)
pool = [torch.randint(0, 32000, (args.tokens,)) for _ in range(args.pool)]
ours, theirs = infinicore_torch.ops.embedding, lambda i, t: F.embedding(i, t)
for i in pool[:4]:
    assert torch.equal(ours(i, w), theirs(i, w))
times = ([], [])
for r in range(args.reps):
    for side in ((0, 1) if r % 2 == 0 else (1, 0)):
        idx = pool[(2 * r + side) % args.pool]
        fn = (ours, theirs)[side]
        t0 = time.perf_counter()
        fn(idx, w)
        times[side].append(time.perf_counter() - t0)
a, b = (statistics.median(t) * 1e6 for t in times)
print(f"embedding {args.tokens} rows {args.dtype} pool {args.pool}: ours {a:.1f} us, torch {b:.1f} us, ratio {a / b:.2f}")
