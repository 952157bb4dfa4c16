"""Fake (meta) implementations of torch.ops.infini: output shapes and dtypes, for torch.compile."""

from __future__ import annotations

import torch
from torch.library import register_fake


def _broadcast(a, b):
    return torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=a.dtype, device=a.device)


for _name in ("add", "mul", "swiglu"):
    register_fake(f"infini::{_name}")(_broadcast)


@register_fake("infini::silu")
def _silu(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::relu")
def _relu(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::gelu")
def _gelu(x, approximate="none"):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::silu_and_mul")
def _silu_and_mul(x):
    torch._check(x.shape[-1] % 2 == 0, lambda: "infini.silu_and_mul: the last dimension of x must be even")
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2))


@register_fake("infini::rms_norm")
def _rms_norm(x, weight, eps=1e-6):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::add_rms_norm")
def _add_rms_norm(a, b, weight, eps=1e-6):
    return (
        torch.empty_like(a, memory_format=torch.contiguous_format),
        torch.empty_like(a, memory_format=torch.contiguous_format),
    )


@register_fake("infini::layer_norm")
def _layer_norm(x, weight, bias=None, eps=1e-5):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::softmax")
def _softmax(x, dim=-1):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::causal_softmax")
def _causal_softmax(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::embedding")
def _embedding(indices, weight):
    return weight.new_empty((*indices.shape, weight.shape[1]))


@register_fake("infini::rope")
def _rope(x, pos_ids, sin_table, cos_table, algo="gpt_neox"):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@register_fake("infini::topk_softmax")
def _topk_softmax(logits, k, renormalize=False):
    shape = (logits.shape[0], k)
    return logits.new_empty(shape, dtype=torch.float32), logits.new_empty(shape, dtype=torch.int64)


@register_fake("infini::random_sample")
def _random_sample(logits, random_val, topp, topk, temperature):
    return logits.new_empty(logits.shape[:-1], dtype=torch.int64)


@register_fake("infini::random_sample.tensor")
def _random_sample_tensor(logits, random_val, topp, topk, temperature):
    return logits.new_empty(logits.shape[:-1], dtype=torch.int64)


@register_fake("infini::paged_caching")
def _paged_caching(k, v, k_cache, v_cache, slot_mapping):
    return None


@register_fake("infini::gemm")
def _gemm(a, b, c=None, alpha=1.0, beta=0.0):
    return a.new_empty((*a.shape[:-1], b.shape[-1]))


@register_fake("infini::linear")
def _linear(x, weight, bias=None):
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


@register_fake("infini::attention")
def _attention(q, k, v, k_cache, v_cache, pos):
    return torch.empty_like(q, memory_format=torch.contiguous_format)


@register_fake("infini::paged_attention")
def _paged_attention(q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes, scale):
    return torch.empty_like(q, memory_format=torch.contiguous_format)


@register_fake("infini::paged_attention_prefill")
def _paged_attention_prefill(q, k_cache, v_cache, block_tables, seq_lens, cu_seqlens_q, alibi_slopes, scale):
    return torch.empty_like(q, memory_format=torch.contiguous_format)


@register_fake("infini::sdpa")
def _sdpa(q, k, v, mask, causal, scale):
    torch._check(q.dim() == 4, lambda: f"infini.sdpa: q must be [batch, heads, q_len, head_dim], got {tuple(q.shape)}")
    # the kernel's layout: the memory of [b, lq, hq, d], so that the model's transpose(1, 2) is contiguous
    b, h, lq, d = q.shape
    return q.new_empty((b, lq, h, d)).transpose(1, 2)
