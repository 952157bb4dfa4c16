"""Device bandwidth of reading a KV cache's bytes contiguously against gathering them in chunks of one
paged block of one kv head (4 KiB at block_size 16, head_dim 128, bf16) in a shuffled order, as the
tool's paged_attention inputs lie: index_select of chunk rows (read + write; shuffled and in order) against a contiguous copy of
the same bytes, CUDA events, medians of 20 calls (536 MB moved each way: the L2 holds none of it).
Usage: python3 benchmarks/probe/gather_bw.py"""
import statistics

import torch

dev = torch.device("cuda")
total = 64 * 2048 * 8 * 128 * 2  # GQA 64x2048, 8 kv heads: keys + values, elements
src = torch.randn(total, device=dev).to(torch.bfloat16)


def timed(fn, reps=20):
    ts = []
    for _ in range(3):
        fn()
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3)
    return statistics.median(ts)


nbytes = total * 2
dst = torch.empty_like(src)
t = timed(lambda: dst.copy_(src))
print(f"contiguous copy {nbytes / 1e6:.0f} MB: {t:8.1f} us  {2 * nbytes / t / 1e3:7.1f} GB/s (read + write)")
for chunk_kib in (4, 32):
    elems = chunk_kib * 1024 // 2
    rows = src.view(-1, elems)
    out = torch.empty_like(rows)
    for name, perm in (("shuffled", torch.randperm(rows.shape[0], device=dev)), ("in order", torch.arange(rows.shape[0], device=dev))):
        t = timed(lambda: torch.index_select(rows, 0, perm, out=out))
        print(f"gather of {chunk_kib:2d} KiB chunks, {name}: {t:8.1f} us  {2 * nbytes / t / 1e3:7.1f} GB/s")
