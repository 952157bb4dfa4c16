"""infinicore_torch.ops: Python entry points of torch.ops.infini, with their contracts.

Every function accepts CPU tensors (computed by the CPU backend's kernels, synchronously) and infini
tensors (on the current stream of their device). Float inputs may be float32, float16 or bfloat16
and are accumulated in float32. Inputs must share one device; a wrong dtype, shape or device
raises a RuntimeError that names the op and the argument. Every op has an ``out=`` overload
(``torch.ops.infini.<op>.out``), fake (meta) support for torch.compile, and autograd.

The functions are builtins that enter the dispatcher directly (the end of this file says how
torch.compile still sees torch.ops.infini); random_sample stays a Python function.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import inspect
import sys

import torch

from .. import _C
from . import _autograd, _fake  # noqa: F401  (registrations)

_ops = torch.ops.infini


def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a + b with broadcasting; a and b share a float dtype. Any strides."""
    return _ops.add(a, b)


def mul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a * b with broadcasting; a and b share a float dtype. Any strides."""
    return _ops.mul(a, b)


def silu(x: torch.Tensor) -> torch.Tensor:
    """x * sigmoid(x). Any strides."""
    return _ops.silu(x)


def relu(x: torch.Tensor) -> torch.Tensor:
    """max(x, 0) (NaN stays NaN). Any strides."""
    return _ops.relu(x)


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """GELU as torch: approximate "none" (erf) or "tanh". Any strides."""
    return _ops.gelu(x, approximate)


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a * silu(b): b is the gate (InfiniCore's convention); broadcasting as add."""
    return _ops.swiglu(a, b)


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    """silu(x[..., :d]) * x[..., d:] with d = x.shape[-1] // 2 (vLLM's convention); returns [..., d].
    A last dimension with stride != 1 is copied first."""
    return _ops.silu_and_mul(x)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """x / sqrt(mean(x^2, -1) + eps) * weight over the last dim. x [..., n]; weight [n] in x's
    dtype or float32. Rows may be strided; a last dim with stride != 1 is copied first."""
    return _ops.rms_norm(x, weight, eps)


def add_rms_norm(a: torch.Tensor, b: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    """Returns (rms_norm(a + b), a + b): the residual add fused with the norm. a and b same shape."""
    return _ops.add_rms_norm(a, b, weight, eps)


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, eps: float = 1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last dim; weight/bias [n]."""
    return _ops.layer_norm(x, weight, bias, eps)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """softmax along dim (any dim, any strides)."""
    return _ops.softmax(x, dim)


def causal_softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim of x [..., q_len, kv_len] with entry (i, j) masked (0) where
    j > i + kv_len - q_len; needs kv_len >= q_len."""
    return _ops.causal_softmax(x)


def embedding(indices: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """weight[indices]: indices int32/int64 of any shape, weight [num, dim]; returns [*indices, dim].
    An index outside [0, num) raises (for infini tensors, at the next synchronization)."""
    return _ops.embedding(indices, weight)


def rope(
    x: torch.Tensor, pos_ids: torch.Tensor, sin_table: torch.Tensor, cos_table: torch.Tensor, algo: str = "gpt_neox"
) -> torch.Tensor:
    """Rotary embedding. x [seq, heads, head_dim] or [batch, seq, heads, head_dim]; pos_ids [seq] or
    [batch, seq] (int32/int64); tables [max_pos, head_dim / 2] (x's dtype or float32).
    "gpt_neox" rotates the halves (x[..., :d/2], x[..., d/2:]); "gpt_j" the pairs (x[..., 0::2],
    x[..., 1::2]). A position outside [0, max_pos) raises."""
    return _ops.rope(x, pos_ids, sin_table, cos_table, algo)


def gemm(
    a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None, alpha: float = 1.0, beta: float = 0.0
) -> torch.Tensor:
    """alpha * a @ b + beta * c: a [M, K] and b [K, N], or batched [B, M, K] and [B, K, N]; c
    broadcasts to the result (ignored when beta is 0). Accumulates in float32 (the CPU backend uses
    OpenBLAS's sgemm; transposed views are read in place)."""
    return _ops.gemm(a, b, c, alpha, beta)


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """x @ weight.T + bias, as torch.nn.functional.linear: x [..., in], weight [out, in], bias [out]."""
    return _ops.linear(x, weight, bias)


def attention(q, k, v, k_cache, v_cache, pos: int):
    """Writes k, v [kv_heads, seq, d] into k_cache/v_cache [kv_heads, max_seq, d] at rows
    [pos, pos + seq), then returns causal attention of q [heads, seq, d] over cache rows
    [0, pos + seq) (query j sits at position pos + j), scale 1/sqrt(d), grouped-query when
    heads > kv_heads. Returns [heads, seq, d]."""
    return _ops.attention(q, k, v, k_cache, v_cache, pos)


def sdpa(q, k, v, mask, causal: bool, scale: float):
    """Scaled dot-product attention: softmax(q @ k^T * scale + mask) @ v. q [batch, heads, q_len, d]; k, v
    [batch, kv_heads, kv_len, d] with kv_heads dividing heads (query head h reads key / value head
    h // (heads // kv_heads): grouped-query attention without copying k and v). mask (or None): bool (True
    attends) or additive in q's dtype, broadcastable to [batch, heads, q_len, kv_len]. causal: query i sees
    keys j <= i + kv_len - q_len, aligned to the bottom right (the KV-cache case: the last query is the newest
    token); torch's is_causal is aligned to the top left, the same only when q_len == kv_len. With both a mask
    and causal, both apply. A row with no key to attend is 0. Returns [batch, heads, q_len, d] with the memory
    of [batch, q_len, heads, d] (its transpose(1, 2) is contiguous). Inputs may have any strides (a last dim
    with stride != 1 is copied first). No autograd."""
    return _ops.sdpa(q, k, v, mask, causal, scale)


def paged_attention(q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes=None, scale: float = 1.0):
    """Decode attention over a paged KV cache: q [seqs, heads, d]; caches [num_blocks, kv_heads,
    block_size, d]; sequence s attends to its first seq_lens[s] tokens, token t living in block
    block_tables[s, t // block_size], row t % block_size. alibi_slopes (float32 [heads]) adds
    slope * (key_pos - query_pos). Out-of-range block ids or lengths raise."""
    return _ops.paged_attention(q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes, scale)


def paged_attention_prefill(
    q, k_cache, v_cache, block_tables, seq_lens, cu_seqlens_q, alibi_slopes=None, scale: float = 1.0
):
    """Prefill attention over a paged KV cache: q [total_q, heads, d]; sequence s owns q rows
    cu_seqlens_q[s]:cu_seqlens_q[s+1]; its cache holds all seq_lens[s] tokens; its j-th row sits at
    position seq_lens[s] - q_len + j and attends causally to cache positions at or before it."""
    return _ops.paged_attention_prefill(q, k_cache, v_cache, block_tables, seq_lens, cu_seqlens_q, alibi_slopes, scale)


def topk_softmax(logits: torch.Tensor, k: int, renormalize: bool = False):
    """MoE routing: softmax of logits [tokens, experts] over the experts, then the k largest per row
    (ties: lower index first), renormalized to sum 1 when asked. Returns (weights float32 [tokens, k],
    indices int64 [tokens, k])."""
    return _ops.topk_softmax(logits, k, renormalize)


def random_sample(logits: torch.Tensor, random_val, topp: float, topk: int, temperature: float) -> torch.Tensor:
    """Top-k / top-p sampling as docs/ops.md defines it, in float32: logits [vocab] (returns a 0-d int64)
    or [batch, vocab] (returns [batch]; random_val may then be a float32 [batch] tensor). With
    topk > 1 and topp > 0 it returns the first of the k best (sorted, ties lower index first) whose
    cumulative probability exceeds min(c[k-1], topp) * random_val; otherwise the argmax. Only the
    k candidates are sorted, never the whole vocabulary."""
    if isinstance(random_val, torch.Tensor):
        return _ops.random_sample.tensor(logits, random_val, topp, topk, temperature)
    return _ops.random_sample(logits, float(random_val), topp, topk, temperature)


def paged_caching(
    k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, slot_mapping: torch.Tensor
) -> None:
    """Writes k, v [tokens, kv_heads, d] into the caches [num_blocks, kv_heads, block_size, d]:
    token t goes to block slot // block_size, row slot % block_size; a negative slot is skipped. A
    slot past the cache raises (for infini tensors, at the next synchronization) and writes nothing."""
    _ops.paged_caching(k, v, k_cache, v_cache, slot_mapping)


__all__ = [
    "attention",
    "sdpa",
    "paged_attention",
    "paged_attention_prefill",
    "gemm",
    "linear",
    "topk_softmax",
    "random_sample",
    "paged_caching",
    "add",
    "mul",
    "silu",
    "relu",
    "gelu",
    "swiglu",
    "silu_and_mul",
    "rms_norm",
    "add_rms_norm",
    "layer_norm",
    "softmax",
    "causal_softmax",
    "embedding",
    "rope",
]


# ---- the public functions are builtins -------------------------------------------------------------
# Each function above becomes its op's builtin (csrc/ops/FastCall.cpp): the same operator, reached
# without torch.ops' Python layer (~0.6 us less per call; the Python functions cost ~0.4 us more
# still), same name, signature and docstring. torch.compile cannot see into a builtin, so Dynamo is
# told to trace the Python function in its place (substitute_in_graph) as soon as it is imported.

_traced = {}  # builtin -> the Python function torch.compile traces in its place


def _builtin(fn):
    sig = inspect.signature(fn)
    plain = sig.replace(
        parameters=[p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()],
        return_annotation=inspect.Signature.empty,
    )
    entry = _C._fast_op(
        "infini::" + fn.__name__, getattr(_ops, fn.__name__), f"{fn.__name__}{plain}\n--\n\n{fn.__doc__}"
    )
    _traced[entry] = fn
    return entry


def _teach_dynamo():
    from torch._dynamo.decorators import substitute_in_graph

    for entry, fn in _traced.items():
        substitute_in_graph(entry, skip_signature_check=True)(fn)


class _WhenDynamoLoads(importlib.abc.MetaPathFinder):
    """Runs _teach_dynamo right after torch._dynamo is imported (importing it here costs ~1.5 s)."""

    def find_spec(self, name, path, target=None):
        if name != "torch._dynamo":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _teach_dynamo()

        spec.loader.exec_module = exec_module
        return spec


_wrappers = dict(globals())
for _name in __all__:
    if _name != "random_sample":  # (keeps its Python overload choice: a float or a tensor random_val)
        globals()[_name] = _builtin(_wrappers[_name])
del _wrappers, _name
if "torch._dynamo" in sys.modules:
    _teach_dynamo()
else:
    sys.meta_path.insert(0, _WhenDynamoLoads())
