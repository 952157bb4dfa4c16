"""infinicore_torch.ops on CPU tensors against the best plain-PyTorch CPU equivalent, in the same run.

    python benchmarks/bench_cpu_ops.py [--dtype bfloat16] [--repeat 30] [--entry ops|torch.ops] [--block K] [--json out.json]
                                       [--csv benchmarks/results/cpu.csv]

`--entry ops` (default) calls infinicore_torch.ops.<op>, the package's Python API (a builtin straight
into the dispatcher); `--entry torch.ops` calls torch.ops.infini.<op> (the same kernels behind
torch's ~0.6 us Python layer for custom ops).

Inputs are built before timing; each measurement is the median of `repeat` timed calls after
warm-up, ours and torch's interleaved call by call (`--block K`: in alternating runs of K calls a side,
so that neither inherits the other's freed result block and cache state); a rotating set of input copies
keeps one call's data from sitting in cache for the next
where it would not in a model. Prints one table row per (op, shape): ours, torch's, and the ratio.
`--csv PATH` merges the rows into that CSV in place (the comparison tool's format: infinicore_torch.bench.report),
set "16 tokens" / "512 tokens", implementations infini and torch.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import time

import torch
import torch.nn.functional as F

import infinicore_torch

I = infinicore_torch.ops  # the entry measured (main: --entry)


def cpu_name() -> str:
    """The CPU's model name (/proc/cpuinfo), else platform's word for it."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def median_pair_us(ours, theirs, make_args, repeat, copies=4, block=1):
    """Median times of ours and theirs over the same inputs, their calls interleaved (ours, theirs,
    ours, ...) so that both see the same machine: a VM's noise moves in bursts. block > 1: each side's
    calls come in runs of `block` (the runs still alternate), so that a call does not follow the other
    side's call, whose freed result block and cache state it would inherit."""
    argsets = [make_args() for _ in range(copies)]
    for a in argsets:
        ours(*a)
        theirs(*a)
    times = ([], [])
    for run, r in enumerate(range(0, repeat, block)):
        sides = (0, 1) if run % 2 == 0 else (1, 0)
        for side in sides:
            fn = (ours, theirs)[side]
            for j in range(r, min(r + block, repeat)):
                a = argsets[j % copies]
                t0 = time.perf_counter()
                fn(*a)
                times[side].append(time.perf_counter() - t0)
    return statistics.median(times[0]) * 1e6, statistics.median(times[1]) * 1e6


def rope_torch(x, pos, sin, cos):
    s, c = sin[pos].unsqueeze(-2), cos[pos].unsqueeze(-2)
    d = x.shape[-1] // 2
    a, b = x[..., :d], x[..., d:]
    return torch.cat([a * c - b * s, b * c + a * s], -1)


def torch_sampler(logits, topp, topk, temperature):
    """The usual PyTorch top-k/top-p sampler: sort the whole vocabulary, softmax, cumsum, multinomial."""
    values, order = torch.sort(logits / temperature, descending=True)
    values, order = values[:, :topk], order[:, :topk]
    probs = torch.softmax(values, -1)
    keep = torch.cumsum(probs, -1) - probs < topp
    probs = probs * keep
    return order.gather(-1, torch.multinomial(probs, 1)).squeeze(-1)


def torch_paged_caching(k, v, kc, vc, slots):
    bs = kc.shape[2]
    kc[slots // bs, :, slots % bs] = k
    vc[slots // bs, :, slots % bs] = v


def paged_inputs(seqs, ctx, heads, kv_heads, hd, bs, dtype):
    """The same keys and values as a paged cache (for infini) and contiguous (for SDPA)."""
    k = torch.randn(seqs, kv_heads, ctx, hd).to(dtype)
    v = torch.randn(seqs, kv_heads, ctx, hd).to(dtype)
    kc = k.view(seqs, kv_heads, ctx // bs, bs, hd).transpose(1, 2).reshape(-1, kv_heads, bs, hd).contiguous()
    vc = v.view(seqs, kv_heads, ctx // bs, bs, hd).transpose(1, 2).reshape(-1, kv_heads, bs, hd).contiguous()
    q = torch.randn(seqs, heads, hd).to(dtype)
    return q, kc, vc, k, v


def cases(dtype, tokens):
    hidden, inter, heads, hd, vocab = 4096, 11008, 32, 128, 32000
    r = lambda *s: torch.randn(*s).to(dtype)  # noqa: E731
    angles = torch.arange(4096)[:, None] * (10000 ** (-torch.arange(0, hd, 2) / hd))[None, :]
    sin, cos = angles.sin().to(dtype), angles.cos().to(dtype)
    mask = torch.ones(tokens, tokens, dtype=torch.bool).triu(1)
    yield ("add", f"{tokens}x{hidden}", I.add, torch.add, lambda: (r(tokens, hidden), r(tokens, hidden)))
    yield ("mul", f"{tokens}x{hidden}", I.mul, torch.mul, lambda: (r(tokens, hidden), r(tokens, hidden)))
    yield ("silu", f"{tokens}x{inter}", I.silu, F.silu, lambda: (r(tokens, inter),))
    yield ("relu", f"{tokens}x{inter}", I.relu, F.relu, lambda: (r(tokens, inter),))
    yield ("gelu", f"{tokens}x{inter}", I.gelu, F.gelu, lambda: (r(tokens, inter),))
    yield (
        "swiglu",
        f"{tokens}x{inter}",
        I.swiglu,
        lambda a, b: a * F.silu(b),
        lambda: (r(tokens, inter), r(tokens, inter)),
    )
    yield (
        "silu_and_mul",
        f"{tokens}x{2 * inter}",
        I.silu_and_mul,
        lambda x: F.silu(x[:, :inter]) * x[:, inter:],
        lambda: (r(tokens, 2 * inter),),
    )
    yield (
        "rms_norm",
        f"{tokens}x{hidden}",
        lambda x, w: I.rms_norm(x, w, 1e-6),
        lambda x, w: F.rms_norm(x, (hidden,), w, 1e-6),
        lambda: (r(tokens, hidden), r(hidden)),
    )
    yield (
        "add_rms_norm",
        f"{tokens}x{hidden}",
        lambda a, b, w: I.add_rms_norm(a, b, w, 1e-6),
        lambda a, b, w: (lambda s: (F.rms_norm(s, (hidden,), w, 1e-6), s))(a + b),
        lambda: (r(tokens, hidden), r(tokens, hidden), r(hidden)),
    )
    yield (
        "layer_norm",
        f"{tokens}x{hidden}",
        lambda x, w, b: I.layer_norm(x, w, b, 1e-5),
        lambda x, w, b: F.layer_norm(x, (hidden,), w, b, 1e-5),
        lambda: (r(tokens, hidden), r(hidden), r(hidden)),
    )
    yield (
        "softmax",
        f"{tokens}x{vocab}",
        lambda x: I.softmax(x, -1),
        lambda x: torch.softmax(x, -1),
        lambda: (r(tokens, vocab),),
    )
    yield (
        "causal_softmax",
        f"{heads}x{tokens}x{tokens}",
        I.causal_softmax,
        lambda x: torch.softmax(x.masked_fill(mask, float("-inf")), -1),
        lambda: (r(heads, tokens, tokens),),
    )
    yield (
        "embedding",
        f"{tokens}->{vocab}x{hidden}",
        I.embedding,
        lambda i, w: F.embedding(i, w),
        lambda: (torch.randint(0, vocab, (tokens,)), r(vocab, hidden)),
    )
    yield (
        "linear",
        f"{tokens}x{hidden}->{hidden}",
        lambda x, w: I.linear(x, w),
        F.linear,
        lambda: (r(tokens, hidden), r(hidden, hidden)),
    )
    yield (
        "gemm",
        f"{tokens}x{hidden}x{hidden}",
        lambda a, b: I.gemm(a, b),
        torch.mm,
        lambda: (r(tokens, hidden), r(hidden, hidden)),
    )
    experts, topk = 64, 6
    yield (
        "topk_softmax",
        f"{tokens}x{experts} k{topk}",
        lambda x: I.topk_softmax(x, topk, True),
        lambda x: (lambda w: (w[0] / w[0].sum(-1, keepdim=True), w[1]))(torch.topk(torch.softmax(x.float(), -1), topk)),
        lambda: (r(tokens, experts),),
    )
    batch = min(tokens, 64)
    yield (
        "random_sample",
        f"{batch}x{vocab}",
        lambda x, u: I.random_sample(x, u, 0.9, 50, 0.7),
        lambda x, u: torch_sampler(x, 0.9, 50, 0.7),
        lambda: (torch.randn(batch, vocab), torch.rand(batch)),
    )
    blocks, bs, kvh = 256, 16, 8
    yield (
        "paged_caching",
        f"{tokens}x{kvh}x{hd} bs{bs}",
        lambda k, v, kc, vc, s: I.paged_caching(k, v, kc, vc, s),
        lambda k, v, kc, vc, s: torch_paged_caching(k, v, kc, vc, s),
        lambda: (
            r(tokens, kvh, hd),
            r(tokens, kvh, hd),
            r(blocks, kvh, bs, hd),
            r(blocks, kvh, bs, hd),
            torch.randperm(blocks * bs)[:tokens],
        ),
    )
    seqs, ctx, kvh8 = 8, 512, 8
    nb = seqs * ctx // bs
    tables = torch.arange(nb, dtype=torch.int32).view(seqs, ctx // bs)
    lens = torch.full((seqs,), ctx, dtype=torch.int32)
    yield (
        "paged_attention",
        f"{seqs}x{ctx}x{heads}x{hd} gqa{heads // kvh8}",
        lambda q, kc, vc, k, v: I.paged_attention(q, kc, vc, tables, lens, None, hd**-0.5),
        lambda q, kc, vc, k, v: F.scaled_dot_product_attention(q.unsqueeze(2), k, v, enable_gqa=True),
        lambda: paged_inputs(seqs, ctx, heads, kvh8, hd, bs, dtype),
    )
    yield (
        "rope",
        f"{tokens}x{heads}x{hd}",
        lambda x, p: I.rope(x, p, sin, cos),
        lambda x, p: rope_torch(x, p, sin, cos),
        lambda: (r(tokens, heads, hd), torch.randint(0, 4096, (tokens,))),
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "float16", "bfloat16"])
    ap.add_argument("--tokens", default="16,512")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--ops", default="all", help="comma-separated op names, or all")
    ap.add_argument("--entry", default="ops", choices=["ops", "torch.ops"])
    ap.add_argument(
        "--block",
        type=int,
        default=1,
        help="calls a side makes in a row before the other's (1: interleaved call by call)",
    )
    ap.add_argument("--json")
    ap.add_argument("--csv", help="merge the rows into this CSV, rewritten in place")
    args = ap.parse_args()
    global I
    I = infinicore_torch.ops if args.entry == "ops" else torch.ops.infini
    dtype = getattr(torch, args.dtype)
    rows = []
    print(
        f"# CPU: {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}, "
        f"{args.dtype}, entry {args.entry}"
    )
    print(f"{'op':<16}{'shape':<22}{'infini us':>12}{'torch us':>12}{'ratio':>8}")
    for tokens in map(int, args.tokens.split(",")):
        for name, shape, ours, theirs, make in cases(dtype, tokens):
            if args.ops != "all" and name not in args.ops.split(","):
                continue
            a, b = median_pair_us(ours, theirs, make, args.repeat, block=max(1, args.block))
            rows.append(
                {
                    "op": name,
                    "shape": shape,
                    "dtype": args.dtype,
                    "tokens": tokens,
                    "infini_us": a,
                    "torch_us": b,
                    "ratio": a / b,
                }
            )
            print(f"{name:<16}{shape:<22}{a:>12.1f}{b:>12.1f}{a / b:>8.2f}", flush=True)
    worst = max(rows, key=lambda r: r["ratio"])
    print(
        f"# geometric mean ratio {math.exp(statistics.mean(math.log(r['ratio']) for r in rows)):.2f}, "
        f"worst {worst['op']} {worst['shape']} {worst['ratio']:.2f}"
    )
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    if args.csv:
        from infinicore_torch.bench import report

        meta = {"device_name": f"{cpu_name()}, {torch.get_num_threads()} threads", "torch": torch.__version__}
        report.write_csv(
            args.csv,
            [
                {
                    "op": r["op"],
                    "set": f"{r['tokens']} tokens",
                    "shape": r["shape"],
                    "dtype": r["dtype"],
                    "impl": impl,
                    "median_us": r[f"{impl}_us"],
                }
                for r in rows
                for impl in ("infini", "torch")
            ],
            meta,
        )


if __name__ == "__main__":
    main()
