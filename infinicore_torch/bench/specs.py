"""What the comparison tool measures: one OpSpec per operator.

Each spec knows how to build its inputs for a shape, the plain-PyTorch reference (used as the
`torch` and `compile` implementations, and in float64 as the accuracy reference), the call of
torch.ops.infini, which outputs to compare, and the bytes moved and floating-point operations of
one call (for GB/s and TFLOP/s).

Shapes follow Llama-family models (hidden 4096, intermediate 11008/14336, 32 heads of 128, 8 kv
heads, vocabularies of 32000 and 128256): `decode` is a few tokens, `prefill` thousands of tokens,
`large` moves at least 64 MB per call. `sweep` walks the arguments users call an op with, so that a cliff
cannot hide between the chosen shapes: random_sample over batch 1 to 256, vocabularies of 32k to 256k and
each sampling setting (top-k and top-p together, top-p alone, top-k alone, greedy; float32 logits with
--dtypes float32), paged_attention over contexts of 512 to 32768 tokens, batches of 1 to 64, MHA and GQA,
blocks of 16 and 32 tokens (the other ops have no sweep rows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

SHAPE_SETS = ("decode", "prefill", "large", "sweep")

HIDDEN, INTER, HEADS, KV_HEADS, HEAD_DIM = 4096, 11008, 32, 8, 128


@dataclass
class OpSpec:
    name: str
    shapes: dict[str, list[dict]]  # shape set -> shape parameters
    make: Callable  # (params, dtype, device, generator) -> tuple of inputs
    reference: Callable  # plain PyTorch, same signature as the inputs
    infini: Callable  # torch.ops.infini call, same signature
    bytes: Callable  # (params, dtype) -> bytes moved by one call
    flops: Callable = lambda p: 0
    label: Callable = lambda p: "x".join(str(v) for v in p.values())
    outputs: Callable = lambda out: out if isinstance(out, tuple) else (out,)  # tensors to compare
    exact: bool = False  # integer outputs: compared for equality
    dtypes: tuple = (torch.float32, torch.float16, torch.bfloat16)
    mutates: tuple = ()  # indices of inputs the op writes (cloned per call for the accuracy check)
    extra: dict = field(default_factory=dict)


def _size(dtype):
    return torch.empty((), dtype=dtype).element_size()


def _randn(gen, device, dtype, *shape, scale=1.0):
    return (torch.randn(*shape, generator=gen) * scale).to(device=device, dtype=dtype)


def _rows(decode, prefill, large, sweep=None):
    return {"decode": decode, "prefill": prefill, "large": large, "sweep": sweep or []}


# random_sample's settings in the sweep: (top-k, 0 for none; top-p, 1.0 for none; temperature)
_SAMPLING = [(50, 0.9, 0.7), (0, 0.95, 1.0), (50, 1.0, 1.0), (1, 1.0, 1.0)]
_SAMPLE_SWEEP = [
    {"batch": b, "vocab": v, "topk": k, "topp": p, "temp": t}
    for b in (1, 16, 64, 256)
    for v in (32000, 151936, 256000)
    for k, p, t in _SAMPLING
]
_PAGED_SWEEP = [
    {"seqs": s, "ctx": c, "kv_heads": h, "block": bs}
    for s, c in ((1, 512), (1, 2048), (1, 8192), (1, 32768), (8, 2048), (8, 8192), (64, 512), (64, 2048))
    for h in (HEADS, KV_HEADS)
    for bs in (16, 32)
]


# ---- elementwise --------------------------------------------------------------------------------


def _binary(name, fn, infini, flops_per):
    shapes = _rows(
        [{"tokens": 1, "width": HIDDEN}, {"tokens": 16, "width": INTER}],
        [{"tokens": 1024, "width": INTER}, {"tokens": 4096, "width": HIDDEN}],
        [{"tokens": 8192, "width": INTER}],
    )
    return OpSpec(
        name,
        shapes,
        make=lambda p, dt, dev, g: (
            _randn(g, dev, dt, p["tokens"], p["width"]),
            _randn(g, dev, dt, p["tokens"], p["width"]),
        ),
        reference=fn,
        infini=infini,
        bytes=lambda p, dt: 3 * p["tokens"] * p["width"] * _size(dt),
        flops=lambda p: flops_per * p["tokens"] * p["width"],
    )


def _unary(name, fn, infini, flops_per):
    shapes = _rows(
        [{"tokens": 1, "width": INTER}, {"tokens": 16, "width": INTER}],
        [{"tokens": 1024, "width": INTER}, {"tokens": 4096, "width": INTER}],
        [{"tokens": 8192, "width": INTER}],
    )
    return OpSpec(
        name,
        shapes,
        make=lambda p, dt, dev, g: (_randn(g, dev, dt, p["tokens"], p["width"]),),
        reference=fn,
        infini=infini,
        bytes=lambda p, dt: 2 * p["tokens"] * p["width"] * _size(dt),
        flops=lambda p: flops_per * p["tokens"] * p["width"],
    )


def _silu_and_mul_ref(x):
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


# ---- norms ----------------------------------------------------------------------------------------

_NORM_SHAPES = _rows(
    [{"tokens": 1, "hidden": HIDDEN}, {"tokens": 16, "hidden": HIDDEN}],
    [{"tokens": 1024, "hidden": HIDDEN}, {"tokens": 4096, "hidden": HIDDEN}],
    [{"tokens": 16384, "hidden": HIDDEN}],
)


def _f(t):
    """t in float32 for computing, or as it is when it is float64 (the accuracy reference)."""
    return t if t.dtype == torch.float64 else t.float()


def _rms_ref(x, w, eps=1e-6):
    xf = _f(x)
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * _f(w)).to(x.dtype)


def _add_rms_ref(a, b, w, eps=1e-6):
    res = a + b
    return _rms_ref(res, w, eps), res


# ---- rope -----------------------------------------------------------------------------------------

MAX_POS = 8192


def _rope_tables(dtype, device):
    inv = 10000.0 ** (-torch.arange(0, HEAD_DIM, 2, dtype=torch.float64) / HEAD_DIM)
    angles = torch.arange(MAX_POS, dtype=torch.float64)[:, None] * inv[None, :]
    return angles.sin().to(device=device, dtype=dtype), angles.cos().to(device=device, dtype=dtype)


def _rope_make(p, dt, dev, g):
    sin, cos = _rope_tables(dt, dev)
    x = _randn(g, dev, dt, p["tokens"], HEADS, HEAD_DIM)
    pos = torch.randint(0, MAX_POS, (p["tokens"],), generator=g).to(dev)
    return x, pos, sin, cos


def _rope_ref(x, pos, sin, cos):
    s, c = _f(sin[pos].unsqueeze(-2)), _f(cos[pos].unsqueeze(-2))
    d = x.shape[-1] // 2
    a, b = _f(x[..., :d]), _f(x[..., d:])
    return torch.cat([a * c - b * s, b * c + a * s], -1).to(x.dtype)


# ---- softmax --------------------------------------------------------------------------------------


def _causal_ref(x):
    q, kv = x.shape[-2], x.shape[-1]
    mask = torch.ones(q, kv, dtype=torch.bool, device=x.device).triu(kv - q + 1)
    return torch.softmax(_f(x).masked_fill(mask, float("-inf")), -1).to(x.dtype)


# ---- gemm -----------------------------------------------------------------------------------------

_GEMM_SHAPES = _rows(
    [{"m": 1, "n": HIDDEN, "k": HIDDEN}, {"m": 16, "n": INTER, "k": HIDDEN}],
    [{"m": 1024, "n": HIDDEN, "k": HIDDEN}, {"m": 4096, "n": INTER, "k": HIDDEN}],
    [{"m": 8192, "n": 14336, "k": HIDDEN}],
)


# ---- sampling, caches, attention ------------------------------------------------------------------


def _topk_ref(logits, k=6):
    p = torch.softmax(_f(logits), -1)
    values, order = torch.sort(p, dim=-1, descending=True, stable=True)
    w = values[..., :k]
    return (w / w.sum(-1, keepdim=True)).to(logits.dtype), order[..., :k]


def _sample_ref(logits, r, topp=0.9, topk=50, temperature=0.7):
    """docs/ops.md's random_sample: sort, softmax, inclusive cumsum, first position above the threshold. In float32
    as the `torch` peer; given float64 logits (the accuracy reference) in float64, since a float32 cumsum on the CPU
    drifts over a long row by more than the rounding docs/ops.md allows."""
    acc = torch.float64 if logits.dtype == torch.float64 else torch.float32
    x = logits.to(acc)
    values, order = torch.sort(x, dim=-1, descending=True, stable=True)
    c = torch.cumsum(torch.softmax(values / temperature, -1), -1)
    kth = c[..., min(topk, x.shape[-1]) - 1]
    threshold = torch.minimum(kth, torch.full_like(kth, topp)) * r.to(acc)
    i = (c <= threshold.unsqueeze(-1)).sum(-1).clamp(max=x.shape[-1] - 1)
    return order.gather(-1, i.unsqueeze(-1)).squeeze(-1)


def _paged_caching_make(p, dt, dev, g):
    blocks, bs = p["blocks"], 16
    k = _randn(g, dev, dt, p["tokens"], KV_HEADS, HEAD_DIM)
    v = _randn(g, dev, dt, p["tokens"], KV_HEADS, HEAD_DIM)
    kc = torch.zeros(blocks, KV_HEADS, bs, HEAD_DIM, dtype=dt, device=dev)
    vc = torch.zeros_like(kc)
    slots = torch.randperm(blocks * bs, generator=g)[: p["tokens"]].to(dev)
    return k, v, kc, vc, slots


def _paged_caching_ref(k, v, kc, vc, slots):
    bs = kc.shape[2]
    kc[slots // bs, :, slots % bs] = k
    vc[slots // bs, :, slots % bs] = v
    return kc, vc


def _paged_caching_infini(k, v, kc, vc, slots):
    torch.ops.infini.paged_caching(k, v, kc, vc, slots)
    return kc, vc


def _paged_copy(k, v, bs, g):
    """k, v [seqs, kv_heads, ctx, d] (ctx a multiple of bs) as a paged cache of bs-token blocks in a shuffled
    order: (k_cache, v_cache, block_tables int32)."""
    seqs, kvh, ctx, d = k.shape
    nb = seqs * ctx // bs
    perm = torch.randperm(nb, generator=g)
    kc = torch.empty(nb, kvh, bs, d, dtype=k.dtype, device=k.device)
    vc = torch.empty_like(kc)
    kc[perm.to(k.device)] = k.view(seqs, kvh, ctx // bs, bs, d).transpose(1, 2).reshape(nb, kvh, bs, d)
    vc[perm.to(k.device)] = v.view(seqs, kvh, ctx // bs, bs, d).transpose(1, 2).reshape(nb, kvh, bs, d)
    return kc, vc, perm.view(seqs, ctx // bs).to(device=k.device, dtype=torch.int32)


def _paged_attention_make(p, dt, dev, g):
    seqs, ctx, kvh = p["seqs"], p["ctx"], p["kv_heads"]
    k = _randn(g, dev, dt, seqs, kvh, ctx, HEAD_DIM)
    v = _randn(g, dev, dt, seqs, kvh, ctx, HEAD_DIM)
    kc, vc, tables = _paged_copy(k, v, p.get("block", 16), g)  # the same keys and values as a paged cache
    lens = torch.full((seqs,), ctx, dtype=torch.int32, device=dev)
    q = _randn(g, dev, dt, seqs, HEADS, HEAD_DIM)
    return q, kc, vc, tables, lens, k, v


def _paged_attention_ref(q, kc, vc, tables, lens, k, v):
    """scaled_dot_product_attention over the same keys and values stored contiguously (GQA native)."""
    return F.scaled_dot_product_attention(q.unsqueeze(2), k, v, enable_gqa=True).squeeze(2)


def _paged_attention_infini(q, kc, vc, tables, lens, k, v):
    return torch.ops.infini.paged_attention(q, kc, vc, tables, lens, None, HEAD_DIM**-0.5)


def _attention_make(p, dt, dev, g):
    seq, pos = p["seq"], p["pos"]
    q = _randn(g, dev, dt, HEADS, seq, HEAD_DIM)
    k = _randn(g, dev, dt, KV_HEADS, seq, HEAD_DIM)
    v = _randn(g, dev, dt, KV_HEADS, seq, HEAD_DIM)
    kc = _randn(g, dev, dt, KV_HEADS, pos + seq, HEAD_DIM)
    vc = _randn(g, dev, dt, KV_HEADS, pos + seq, HEAD_DIM)
    return q, k, v, kc, vc  # (the caches hold pos + seq rows: the new rows go last)


def _attention_ref(q, k, v, kc, vc):
    """The new rows into the caches, then scaled_dot_product_attention over the cache (causal for a prompt at
    position 0, whole for one new row: the shapes the tool uses)."""
    seq = q.shape[1]
    pos = kc.shape[1] - seq
    kc[:, pos : pos + seq] = k
    vc[:, pos : pos + seq] = v
    return F.scaled_dot_product_attention(
        q.unsqueeze(0),
        kc[:, : pos + seq].unsqueeze(0),
        vc[:, : pos + seq].unsqueeze(0),
        is_causal=seq > 1,
        enable_gqa=True,
    ).squeeze(0)


def _attention_infini(q, k, v, kc, vc):
    return torch.ops.infini.attention(q, k, v, kc, vc, kc.shape[1] - q.shape[1])


def _prefill_make(p, dt, dev, g):
    """Prompts of p["q"] tokens (no history) for p["seqs"] sequences in a paged cache of 16-token blocks
    (shuffled), the same keys and values contiguous for the reference, and the queries [total, heads, d]."""
    seqs, ql = p["seqs"], p["q"]
    k = _randn(g, dev, dt, seqs, KV_HEADS, ql, HEAD_DIM)
    v = _randn(g, dev, dt, seqs, KV_HEADS, ql, HEAD_DIM)
    kc, vc, tables = _paged_copy(k, v, 16, g)
    lens = torch.full((seqs,), ql, dtype=torch.int32, device=dev)
    cu = (torch.arange(seqs + 1, dtype=torch.int32) * ql).to(dev)
    q = _randn(g, dev, dt, seqs * ql, HEADS, HEAD_DIM)
    return q, kc, vc, tables, lens, cu, k, v


def _prefill_ref(q, kc, vc, tables, lens, cu, k, v):
    """Causal scaled_dot_product_attention per sequence over the same keys and values stored contiguously;
    the output as [seqs, q, heads, d] (a view of SDPA's, no copy)."""
    seqs, _, ql, d = k.shape
    qq = q.view(seqs, ql, HEADS, d).transpose(1, 2)
    return F.scaled_dot_product_attention(qq, k, v, is_causal=True, enable_gqa=True).transpose(1, 2)


def _prefill_infini(q, kc, vc, tables, lens, cu, k, v):
    seqs, _, ql, d = k.shape
    return torch.ops.infini.paged_attention_prefill(q, kc, vc, tables, lens, cu, None, d**-0.5).view(seqs, ql, HEADS, d)


def _spec_list():
    I = torch.ops.infini
    s = []
    s.append(_binary("add", torch.add, lambda a, b: I.add(a, b), 1))
    s.append(_binary("mul", torch.mul, lambda a, b: I.mul(a, b), 1))
    s.append(_binary("swiglu", lambda a, b: a * F.silu(b), lambda a, b: I.swiglu(a, b), 5))
    s.append(_unary("silu", F.silu, lambda x: I.silu(x), 4))
    s.append(_unary("relu", F.relu, lambda x: I.relu(x), 1))
    s.append(_unary("gelu", F.gelu, lambda x: I.gelu(x), 8))
    s.append(
        OpSpec(
            "silu_and_mul",
            _rows(
                [{"tokens": 1, "width": INTER}, {"tokens": 16, "width": INTER}],
                [{"tokens": 1024, "width": INTER}, {"tokens": 4096, "width": INTER}],
                [{"tokens": 8192, "width": INTER}],
            ),
            make=lambda p, dt, dev, g: (_randn(g, dev, dt, p["tokens"], 2 * p["width"]),),
            reference=_silu_and_mul_ref,
            infini=lambda x: I.silu_and_mul(x),
            bytes=lambda p, dt: 3 * p["tokens"] * p["width"] * _size(dt),
            flops=lambda p: 5 * p["tokens"] * p["width"],
        )
    )
    s.append(
        OpSpec(
            "rms_norm",
            _NORM_SHAPES,
            make=lambda p, dt, dev, g: (_randn(g, dev, dt, p["tokens"], p["hidden"]), _randn(g, dev, dt, p["hidden"])),
            reference=_rms_ref,
            infini=lambda x, w: I.rms_norm(x, w, 1e-6),
            bytes=lambda p, dt: (2 * p["tokens"] + 1) * p["hidden"] * _size(dt),
            flops=lambda p: 4 * p["tokens"] * p["hidden"],
        )
    )
    s.append(
        OpSpec(
            "add_rms_norm",
            _NORM_SHAPES,
            make=lambda p, dt, dev, g: (
                _randn(g, dev, dt, p["tokens"], p["hidden"]),
                _randn(g, dev, dt, p["tokens"], p["hidden"]),
                _randn(g, dev, dt, p["hidden"]),
            ),
            reference=_add_rms_ref,
            infini=lambda a, b, w: I.add_rms_norm(a, b, w, 1e-6),
            bytes=lambda p, dt: (4 * p["tokens"] + 1) * p["hidden"] * _size(dt),
            flops=lambda p: 5 * p["tokens"] * p["hidden"],
        )
    )
    s.append(
        OpSpec(
            "layer_norm",
            _NORM_SHAPES,
            make=lambda p, dt, dev, g: (
                _randn(g, dev, dt, p["tokens"], p["hidden"]),
                _randn(g, dev, dt, p["hidden"]),
                _randn(g, dev, dt, p["hidden"]),
            ),
            reference=lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5),
            infini=lambda x, w, b: I.layer_norm(x, w, b, 1e-5),
            bytes=lambda p, dt: (2 * p["tokens"] + 2) * p["hidden"] * _size(dt),
            flops=lambda p: 7 * p["tokens"] * p["hidden"],
        )
    )
    s.append(
        OpSpec(
            "softmax",
            _rows(
                [{"rows": 1, "cols": 32000}, {"rows": 16, "cols": 128256}],
                [{"rows": 1024, "cols": 32000}, {"rows": 256, "cols": 128256}],
                [{"rows": 512, "cols": 128256}],
            ),
            make=lambda p, dt, dev, g: (_randn(g, dev, dt, p["rows"], p["cols"], scale=3.0),),
            reference=lambda x: torch.softmax(x, -1),
            infini=lambda x: I.softmax(x, -1),
            bytes=lambda p, dt: 2 * p["rows"] * p["cols"] * _size(dt),
            flops=lambda p: 5 * p["rows"] * p["cols"],
        )
    )
    s.append(
        OpSpec(
            "causal_softmax",
            _rows(
                [{"heads": HEADS, "q": 1, "kv": 1024}, {"heads": HEADS, "q": 16, "kv": 2048}],
                [{"heads": HEADS, "q": 1024, "kv": 1024}, {"heads": HEADS, "q": 2048, "kv": 2048}],
                [{"heads": HEADS, "q": 2048, "kv": 4096}],
            ),
            make=lambda p, dt, dev, g: (_randn(g, dev, dt, p["heads"], p["q"], p["kv"], scale=3.0),),
            reference=_causal_ref,
            infini=lambda x: I.causal_softmax(x),
            bytes=lambda p, dt: 2 * p["heads"] * p["q"] * p["kv"] * _size(dt),
            flops=lambda p: 5 * p["heads"] * p["q"] * p["kv"],
        )
    )
    s.append(
        OpSpec(
            "embedding",
            _rows(
                [{"tokens": 1, "vocab": 32000}, {"tokens": 16, "vocab": 128256}],
                [{"tokens": 1024, "vocab": 32000}, {"tokens": 4096, "vocab": 128256}],
                [{"tokens": 8192, "vocab": 128256}],
            ),
            make=lambda p, dt, dev, g: (
                torch.randint(0, p["vocab"], (p["tokens"],), generator=g).to(dev),
                _randn(g, dev, dt, p["vocab"], HIDDEN),
            ),
            reference=lambda i, w: F.embedding(i, w),
            infini=lambda i, w: I.embedding(i, w),
            bytes=lambda p, dt: 2 * p["tokens"] * HIDDEN * _size(dt) + 8 * p["tokens"],
        )
    )
    s.append(
        OpSpec(
            "rope",
            _rows([{"tokens": 1}, {"tokens": 16}], [{"tokens": 1024}, {"tokens": 4096}], [{"tokens": 16384}]),
            make=_rope_make,
            reference=_rope_ref,
            infini=lambda x, pos, sin, cos: I.rope(x, pos, sin, cos),
            bytes=lambda p, dt: (
                (2 * p["tokens"] * HEADS * HEAD_DIM + 2 * p["tokens"] * HEAD_DIM) * _size(dt) + 8 * p["tokens"]
            ),
            flops=lambda p: 3 * p["tokens"] * HEADS * HEAD_DIM,
            label=lambda p: f"{p['tokens']}x{HEADS}x{HEAD_DIM}",
        )
    )
    s.append(
        OpSpec(
            "gemm",
            _GEMM_SHAPES,
            make=lambda p, dt, dev, g: (
                _randn(g, dev, dt, p["m"], p["k"]),
                _randn(g, dev, dt, p["k"], p["n"], scale=0.05),
            ),
            reference=torch.mm,
            infini=lambda a, b: I.gemm(a, b),
            bytes=lambda p, dt: (p["m"] * p["k"] + p["k"] * p["n"] + p["m"] * p["n"]) * _size(dt),
            flops=lambda p: 2 * p["m"] * p["n"] * p["k"],
        )
    )
    s.append(
        OpSpec(
            "linear",
            _GEMM_SHAPES,
            make=lambda p, dt, dev, g: (
                _randn(g, dev, dt, p["m"], p["k"]),
                _randn(g, dev, dt, p["n"], p["k"], scale=0.05),
            ),
            reference=F.linear,
            infini=lambda x, w: I.linear(x, w),
            bytes=lambda p, dt: (p["m"] * p["k"] + p["k"] * p["n"] + p["m"] * p["n"]) * _size(dt),
            flops=lambda p: 2 * p["m"] * p["n"] * p["k"],
        )
    )
    s.append(
        OpSpec(
            "topk_softmax",
            _rows(
                [{"tokens": 1, "experts": 64}, {"tokens": 16, "experts": 128}],
                [{"tokens": 4096, "experts": 64}, {"tokens": 4096, "experts": 128}],
                [{"tokens": 262144, "experts": 128}],
            ),
            make=lambda p, dt, dev, g: (_randn(g, dev, dt, p["tokens"], p["experts"]),),
            reference=lambda x: _topk_ref(x, 6),
            infini=lambda x: I.topk_softmax(x, 6, True),
            bytes=lambda p, dt: p["tokens"] * (p["experts"] * _size(dt) + 6 * (_size(dt) + 8)),
        )
    )
    s.append(
        OpSpec(
            "random_sample",
            _rows(
                [{"batch": 1, "vocab": 128256}, {"batch": 64, "vocab": 128256}],
                [{"batch": 256, "vocab": 128256}],
                [{"batch": 256, "vocab": 128256}],
                _SAMPLE_SWEEP,
            ),
            # the settings ride along as plain numbers (top-k 0: the whole vocabulary)
            make=lambda p, dt, dev, g: (
                _randn(g, dev, dt, p["batch"], p["vocab"], scale=4.0),
                torch.rand(p["batch"], generator=g).to(dev),
                p.get("topp", 0.9),
                p.get("topk", 50) or p["vocab"],
                p.get("temp", 0.7),
            ),
            reference=_sample_ref,
            infini=lambda x, r, topp, topk, temp: I.random_sample.tensor(x, r, topp, topk, temp),
            bytes=lambda p, dt: p["batch"] * p["vocab"] * _size(dt),
            label=lambda p: (
                f"{p['batch']}x{p['vocab']}"
                + (f" k{p['topk'] or 'all'} p{p['topp']} t{p['temp']}" if "topk" in p else "")
            ),
            exact=True,
        )
    )
    s.append(
        OpSpec(
            "paged_caching",
            _rows(
                [{"tokens": 1, "blocks": 4096}, {"tokens": 64, "blocks": 4096}],
                [{"tokens": 4096, "blocks": 4096}, {"tokens": 16384, "blocks": 4096}],
                [{"tokens": 32768, "blocks": 4096}],
            ),
            make=_paged_caching_make,
            reference=_paged_caching_ref,
            infini=_paged_caching_infini,
            bytes=lambda p, dt: 4 * p["tokens"] * KV_HEADS * HEAD_DIM * _size(dt) + 8 * p["tokens"],
            mutates=(2, 3),
            label=lambda p: f"{p['tokens']}x{KV_HEADS}x{HEAD_DIM}",
        )
    )
    s.append(
        OpSpec(
            "paged_attention",
            _rows(
                [{"seqs": 8, "ctx": 512, "kv_heads": KV_HEADS}, {"seqs": 16, "ctx": 1024, "kv_heads": KV_HEADS}],
                [{"seqs": 64, "ctx": 2048, "kv_heads": HEADS}, {"seqs": 64, "ctx": 2048, "kv_heads": KV_HEADS}],
                [{"seqs": 64, "ctx": 2048, "kv_heads": HEADS}],
                _PAGED_SWEEP,
            ),
            make=_paged_attention_make,
            reference=_paged_attention_ref,
            infini=_paged_attention_infini,
            bytes=lambda p, dt: (
                (2 * p["seqs"] * p["kv_heads"] * p["ctx"] + 2 * p["seqs"] * HEADS) * HEAD_DIM * _size(dt)
            ),
            flops=lambda p: 4 * p["seqs"] * HEADS * p["ctx"] * HEAD_DIM,
            label=lambda p: (
                f"{p['seqs']}x{p['ctx']}x{HEADS}/{p['kv_heads']}x{HEAD_DIM}"
                + (f" block {p['block']}" if "block" in p else "")
            ),
        )
    )
    s.append(
        OpSpec(
            "paged_attention_prefill",
            _rows(
                [{"seqs": 4, "q": 64}, {"seqs": 1, "q": 512}],
                [{"seqs": 4, "q": 1024}, {"seqs": 1, "q": 4096}],
                [{"seqs": 2, "q": 2048}],
            ),
            make=_prefill_make,
            reference=_prefill_ref,
            infini=_prefill_infini,
            bytes=lambda p, dt: p["seqs"] * p["q"] * (2 * HEADS + 2 * KV_HEADS) * HEAD_DIM * _size(dt),
            flops=lambda p: 2 * p["seqs"] * HEADS * p["q"] * p["q"] * HEAD_DIM,
            dtypes=(torch.float16, torch.bfloat16),
            label=lambda p: f"{p['seqs']}x{p['q']}x{HEADS}/{KV_HEADS}x{HEAD_DIM}",
        )
    )
    s.append(
        OpSpec(
            "attention",
            _rows(
                [{"pos": 511, "seq": 1}, {"pos": 2047, "seq": 1}],
                [{"pos": 0, "seq": 1024}, {"pos": 0, "seq": 2048}],
                [{"pos": 0, "seq": 4096}],
            ),
            make=_attention_make,
            reference=_attention_ref,
            infini=_attention_infini,
            bytes=lambda p, dt: (
                (2 * HEADS * p["seq"] + 2 * KV_HEADS * (p["pos"] + 3 * p["seq"])) * HEAD_DIM * _size(dt)
            ),
            flops=lambda p: (
                4 * HEADS * (p["pos"] + 1) * HEAD_DIM if p["seq"] == 1 else 2 * HEADS * p["seq"] * p["seq"] * HEAD_DIM
            ),
            mutates=(3, 4),
            dtypes=(torch.float16, torch.bfloat16),
            label=lambda p: f"{HEADS}/{KV_HEADS}x{p['pos']}+{p['seq']}x{HEAD_DIM}",
        )
    )
    return s


SPECS: dict[str, OpSpec] = {}


def specs() -> dict[str, OpSpec]:
    """Every operator the tool knows, by name (built on first use: torch.ops.infini must be loaded)."""
    if not SPECS:
        SPECS.update({s.name: s for s in _spec_list()})
    return SPECS


def traffic_mb(spec: OpSpec, params: dict, dtype) -> float:
    return spec.bytes(params, dtype) / 1e6


def describe(spec: OpSpec, params: dict) -> str:
    return spec.label(params)


__all__ = ["OpSpec", "SHAPE_SETS", "specs", "traffic_mb", "describe", "math"]
