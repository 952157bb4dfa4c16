"""Ordinary aten ops on the infini device (the nvidia backend's kernel families, part A: pointwise, reduce, index
and the pointwise COPY behind cat) against the same ops on torch's CUDA device, on one GPU.

`cases()` returns (name, fn_infini, fn_cuda) tuples whose inputs are made once (4096 x 4096 bfloat16 unless the name
says otherwise); `python benchmarks/aten_gpu_a.py` times each pair with device events and prints a table of the
median per-call time over several timed runs and the ratio infini / cuda (the target: at most 1.1)."""

from __future__ import annotations

import statistics
import sys

import torch

import infinicore_torch  # noqa: F401  (registers the infini device)


def _pair(make):
    """make(device) -> tensors, once on cuda and copied to infini (through the host: no direct cuda <-> infini copy
    is assumed)."""
    cuda = make("cuda")
    infini = tuple(t.cpu().to("infini") for t in cuda)
    return infini, cuda


def cases(n: int = 4096, vocab: int = 128256):
    g = torch.Generator(device="cuda").manual_seed(0)
    bf, f32 = torch.bfloat16, torch.float32

    def randn(*shape, dtype=bf, device="cuda"):
        return torch.randn(*shape, generator=g, device=device, dtype=torch.float32).to(dtype)

    out = []

    def binary(name, make, fn):
        (xi, yi), (xc, yc) = _pair(make)
        out.append((name, lambda: fn(xi, yi), lambda: fn(xc, yc)))

    binary("add bf16", lambda d: (randn(n, n), randn(n, n)), torch.add)
    binary("mul bf16", lambda d: (randn(n, n), randn(n, n)), torch.mul)
    binary("add bf16 [n,n]+[n]", lambda d: (randn(n, n), randn(n)), torch.add)
    binary("add bf16 [n,n]+[n,1]", lambda d: (randn(n, n), randn(n, 1)), torch.add)
    binary("add f32", lambda d: (randn(n, n, dtype=f32), randn(n, n, dtype=f32)), torch.add)
    binary("mul f32", lambda d: (randn(n, n, dtype=f32), randn(n, n, dtype=f32)), torch.mul)
    (xi,), (xc,) = _pair(lambda d: (randn(n, n),))
    out.append(("add bf16 + 2.5", lambda: xi + 2.5, lambda: xc + 2.5))
    out.append(("sum(-1) bf16", lambda: xi.sum(-1), lambda: xc.sum(-1)))
    out.append(("sum(0) bf16", lambda: xi.sum(0), lambda: xc.sum(0)))
    (ai, bi), (ac, bc) = _pair(lambda d: (randn(n, n // 2), randn(n, n // 2)))
    out.append(("cat 2 x [n,n/2] bf16", lambda: torch.cat([ai, bi], 1), lambda: torch.cat([ac, bc], 1)))
    table_c = randn(vocab, n)
    idx_c = torch.randint(0, vocab, (n,), generator=g, device="cuda")
    table_i, idx_i = table_c.cpu().to("infini"), idx_c.cpu().to("infini")
    out.append(
        (
            f"index_select [{vocab},n] bf16",
            lambda: table_i.index_select(0, idx_i),
            lambda: table_c.index_select(0, idx_c),
        )
    )
    out.append(
        (
            f"embedding [{vocab},n] bf16",
            lambda: torch.nn.functional.embedding(idx_i, table_i),
            lambda: torch.nn.functional.embedding(idx_c, table_c),
        )
    )
    return out


def time_us(fn, device: str, reps: int = 50, runs: int = 5) -> float:
    """The median over `runs` of the mean device time of `reps` back-to-back calls, by events on the device's
    current stream."""
    sync = torch.infini.synchronize if device == "infini" else torch.cuda.synchronize
    for _ in range(5):
        fn()
    sync()
    times = []
    for _ in range(runs):
        start, end = torch.Event(device=device, enable_timing=True), torch.Event(device=device, enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / reps)
    return statistics.median(times)


def check(fn_infini, fn_cuda) -> float:
    """The largest absolute difference of the two results (the infini one brought to the host)."""
    a, b = fn_infini(), fn_cuda()
    return (a.cpu().float() - b.cpu().float()).abs().max().item()


def main() -> int:
    if not torch.cuda.is_available() or torch.infini.backend() == "cpu":
        print("needs the nvidia backend as the infini device and torch's CUDA device")
        return 1
    print(f"{'case':40s} {'infini us':>10s} {'cuda us':>10s} {'ratio':>7s} {'max |diff|':>11s}")
    for name, fi, fc in cases():
        ti, tc = time_us(fi, "infini"), time_us(fc, "cuda")
        print(f"{name:40s} {ti:10.1f} {tc:10.1f} {ti / tc:7.2f} {check(fi, fc):11.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
