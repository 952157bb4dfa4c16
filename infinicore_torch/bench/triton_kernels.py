"""Our own Triton kernels for the comparison tool: rms_norm, add_rms_norm, swiglu, silu_and_mul,
rope (gpt_neox) and softmax. They run on CUDA tensors, and on CPU tensors under TRITON_INTERPRET=1
(how CI tests them). Every kernel computes in float32 and stores in the input's dtype.

Importing this module without Triton raises ImportError; `available()` says whether it can run.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl


def available(device: torch.device) -> tuple[bool, str]:
    if device.type == "cuda":
        return True, ""
    if device.type == "cpu" and os.environ.get("TRITON_INTERPRET") == "1":
        return True, ""
    return False, f"Triton runs on CUDA tensors (or CPU ones under TRITON_INTERPRET=1), not {device.type}"


def _block(n: int) -> int:
    return triton.next_power_of_2(n)


# ---- norms ----------------------------------------------------------------------------------------


@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, y_ptr, r_ptr, b_ptr, n, eps, HAS_RES: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_RES:  # add_rms_norm: residual = x + b, rounded to the dtype first (as torch)
        b = tl.load(b_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
        s = (x + b).to(r_ptr.dtype.element_ty)
        tl.store(r_ptr + row * n + cols, s, mask=mask)
        x = s.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    x2 = x.contiguous().view(-1, x.shape[-1])
    y = torch.empty_like(x2)
    n = x2.shape[1]
    _rms_norm_kernel[(x2.shape[0],)](x2, w, y, y, x2, n, eps, HAS_RES=False, BLOCK=_block(n), num_warps=8)
    return y.view(x.shape)


def add_rms_norm(a: torch.Tensor, b: torch.Tensor, w: torch.Tensor, eps: float = 1e-6):
    a2 = a.contiguous().view(-1, a.shape[-1])
    b2 = b.contiguous().view(-1, b.shape[-1])
    y, res = torch.empty_like(a2), torch.empty_like(a2)
    n = a2.shape[1]
    _rms_norm_kernel[(a2.shape[0],)](a2, w, y, res, b2, n, eps, HAS_RES=True, BLOCK=_block(n), num_warps=8)
    return y.view(a.shape), res.view(a.shape)


# ---- gated activations ------------------------------------------------------------------------------


@triton.jit
def _gate_kernel(a_ptr, b_ptr, y_ptr, n_cols, a_stride, b_stride, SILU_FIRST: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * a_stride + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * b_stride + cols, mask=mask, other=0.0).to(tl.float32)
    if SILU_FIRST:  # silu(a) * b
        y = a / (1.0 + tl.exp(-a)) * b
    else:  # a * silu(b)
        y = a * (b / (1.0 + tl.exp(-b)))
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a * silu(b)."""
    a2 = a.contiguous().view(-1, a.shape[-1])
    b2 = b.contiguous().view(-1, b.shape[-1])
    y = torch.empty_like(a2)
    n = a2.shape[1]
    block = 1024
    _gate_kernel[(a2.shape[0], triton.cdiv(n, block))](a2, b2, y, n, n, n, SILU_FIRST=False, BLOCK=block)
    return y.view(a.shape)


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    """silu(x[..., :d]) * x[..., d:]."""
    x2 = x.contiguous().view(-1, x.shape[-1])
    d = x2.shape[1] // 2
    y = torch.empty(x2.shape[0], d, dtype=x.dtype, device=x.device)
    block = 1024
    _gate_kernel[(x2.shape[0], triton.cdiv(d, block))](x2, x2[:, d:], y, d, 2 * d, 2 * d, SILU_FIRST=True, BLOCK=block)
    return y.view(*x.shape[:-1], d)


# ---- rope -------------------------------------------------------------------------------------------


@triton.jit
def _rope_kernel(x_ptr, pos_ptr, sin_ptr, cos_ptr, y_ptr, heads, HEADS_BLOCK: tl.constexpr, HALF: tl.constexpr):
    # one program per token: all its heads at once (the sin/cos row is loaded once)
    token = tl.program_id(0)
    h = tl.arange(0, HEADS_BLOCK)[:, None]
    i = tl.arange(0, HALF)[None, :]
    mask = h < heads
    p = tl.load(pos_ptr + token)
    s = tl.load(sin_ptr + p * HALF + i).to(tl.float32)
    c = tl.load(cos_ptr + p * HALF + i).to(tl.float32)
    base = token * heads * 2 * HALF + h * 2 * HALF
    a = tl.load(x_ptr + base + i, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + base + HALF + i, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + base + i, (a * c - b * s).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + base + HALF + i, (b * c + a * s).to(y_ptr.dtype.element_ty), mask=mask)


def rope(x: torch.Tensor, pos: torch.Tensor, sin: torch.Tensor, cos: torch.Tensor) -> torch.Tensor:
    """gpt_neox rotation of x [tokens, heads, head_dim] by the tables' rows pos."""
    xc = x.contiguous()
    y = torch.empty_like(xc)
    tokens, heads, d = xc.shape
    _rope_kernel[(tokens,)](
        xc,
        pos.contiguous(),
        sin.contiguous(),
        cos.contiguous(),
        y,
        heads,
        HEADS_BLOCK=_block(heads),
        HALF=d // 2,
        num_warps=4,
    )
    return y


# ---- softmax ----------------------------------------------------------------------------------------


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * n
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n, BLOCK):  # running max per lane
        cols = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x_ptr + base + cols, mask=cols < n, other=float("-inf")).to(tl.float32))
    mx = tl.max(m, axis=0)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n, other=float("-inf")).to(tl.float32)
        acc += tl.exp(x - mx)
    inv = 1.0 / tl.sum(acc, axis=0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + base + cols, (tl.exp(x - mx) * inv).to(y_ptr.dtype.element_ty), mask=cols < n)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension."""
    x2 = x.contiguous().view(-1, x.shape[-1])
    y = torch.empty_like(x2)
    n = x2.shape[1]
    _softmax_kernel[(x2.shape[0],)](x2, y, n, BLOCK=min(_block(n), 4096), num_warps=8)
    return y.view(x.shape)


KERNELS = {
    "rms_norm": lambda x, w: rms_norm(x, w, 1e-6),
    "add_rms_norm": lambda a, b, w: add_rms_norm(a, b, w, 1e-6),
    "swiglu": swiglu,
    "silu_and_mul": silu_and_mul,
    "rope": rope,
    "softmax": softmax,
}
