"""Decode-sized `attention` (one new row, bf16, 32/8 heads of 128) over caches whose max_seq is not a multiple of
8, timed as the tool times (L2 flush, GPU kept busy, events; medians), interleaved with SDPA over the same keys:
the rows (pos, max_seq) whose pages of 16 or 8 lie inside the cache take the paged decode kernels since the
thirty-sixth session, the last (its keys end 3 rows short of a page past the cache's end) the general kernel.
    python3 benchmarks/probe/odd_cache.py [--reps N]"""
import argparse
import statistics

import torch
import torch.nn.functional as F
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import measure

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--reps", type=int, default=200)
args = ap.parse_args()
dev = torch.device("cuda")
timer = measure.Timer(dev, 100.0)
g = torch.Generator(device=dev).manual_seed(0)
for pos, max_seq in [(511, 512), (511, 515), (2047, 2048), (2047, 2051), (2040, 2045)]:
    q = torch.randn(32, 1, 128, device=dev, dtype=torch.bfloat16, generator=g)
    k = torch.randn(8, 1, 128, device=dev, dtype=torch.bfloat16, generator=g)
    v = torch.randn(8, 1, 128, device=dev, dtype=torch.bfloat16, generator=g)
    kc = torch.randn(8, max_seq, 128, device=dev, dtype=torch.bfloat16, generator=g)
    vc = torch.randn(8, max_seq, 128, device=dev, dtype=torch.bfloat16, generator=g)
    ours = lambda q, k, v, kc, vc: torch.ops.infini.attention(q, k, v, kc, vc, pos)  # noqa: E731
    sdpa = lambda q, k, v, kc, vc: F.scaled_dot_product_attention(  # noqa: E731
        q.unsqueeze(0), kc[:, :pos + 1].unsqueeze(0), vc[:, :pos + 1].unsqueeze(0), enable_gqa=True)
    ref = sdpa(q, k, v, kc.clone().index_copy_(1, torch.tensor([pos], device=dev), k),
               vc.clone().index_copy_(1, torch.tensor([pos], device=dev), v)).squeeze(0)
    err = (ours(q, k, v, kc, vc).float() - ref.float()).abs().max().item()
    ts = timer.time_interleaved([ours, sdpa], (q, k, v, kc, vc), min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
    print(f"pos {pos:5d} max_seq {max_seq:5d}: infini {statistics.median(ts[0]) * 1e6:7.2f} us  sdpa "
          f"{statistics.median(ts[1]) * 1e6:7.2f} us  max err {err:.1e}", flush=True)
