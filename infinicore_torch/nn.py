"""infinicore_torch.nn: modules over torch.ops.infini whose parameters and state_dict keys match
their torch counterparts, so weights load unchanged."""

from __future__ import annotations

import torch
from torch import nn

from . import ops


class RMSNorm(nn.Module):
    """As torch.nn.RMSNorm(normalized_shape=dim, eps): parameter "weight" [dim]."""

    def __init__(self, dim: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))

    def forward(self, x):
        return ops.rms_norm(x, self.weight, self.eps)


class LayerNorm(nn.Module):
    """As torch.nn.LayerNorm(dim, eps, bias): parameters "weight" and "bias" [dim]."""

    def __init__(self, dim: int, eps: float = 1e-5, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim, device=device, dtype=dtype))
        self.bias = nn.Parameter(torch.zeros(dim, device=device, dtype=dtype)) if bias else None

    def forward(self, x):
        return ops.layer_norm(x, self.weight, self.bias, self.eps)


class Embedding(nn.Module):
    """As torch.nn.Embedding(num, dim): parameter "weight" [num, dim]."""

    def __init__(self, num_embeddings: int, embedding_dim: int, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim, device=device, dtype=dtype))

    def forward(self, indices):
        return ops.embedding(indices, self.weight)


class RoPE(nn.Module):
    """Rotary position embedding with its sin/cos tables (buffers, not in the state_dict):
    theta_i = base^(-2i / head_dim), tables [max_positions, head_dim / 2]."""

    def __init__(
        self,
        head_dim: int,
        max_positions: int = 4096,
        base: float = 10000.0,
        algo: str = "gpt_neox",
        device=None,
        dtype=torch.float32,
    ):
        super().__init__()
        inv_freq = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
        angles = torch.arange(max_positions, dtype=torch.float64)[:, None] * inv_freq[None, :]
        self.algo = algo
        self.register_buffer("sin", angles.sin().to(dtype=dtype, device=device), persistent=False)
        self.register_buffer("cos", angles.cos().to(dtype=dtype, device=device), persistent=False)

    def forward(self, x, pos_ids):
        return ops.rope(x, pos_ids, self.sin, self.cos, self.algo)


class Linear(nn.Module):
    """As torch.nn.Linear(in_features, out_features, bias): parameters "weight" [out, in] and "bias"."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        ref = nn.Linear(in_features, out_features, bias=bias, device=device, dtype=dtype)  # torch's init
        self.in_features, self.out_features = in_features, out_features
        self.weight = ref.weight
        self.bias = ref.bias

    def forward(self, x):
        return ops.linear(x, self.weight, self.bias)


class SwiGLUMLP(nn.Module):
    """Llama's MLP: down(silu(gate(x)) * up(x)), with keys gate_proj, up_proj, down_proj (no bias)."""

    def __init__(self, hidden: int, intermediate: int, device=None, dtype=None):
        super().__init__()
        self.gate_proj = Linear(hidden, intermediate, bias=False, device=device, dtype=dtype)
        self.up_proj = Linear(hidden, intermediate, bias=False, device=device, dtype=dtype)
        self.down_proj = Linear(intermediate, hidden, bias=False, device=device, dtype=dtype)

    def forward(self, x):
        return self.down_proj(ops.swiglu(self.up_proj(x), self.gate_proj(x)))
