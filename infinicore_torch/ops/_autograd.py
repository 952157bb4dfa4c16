"""Backward formulas of torch.ops.infini (torch.library.register_autograd).

Gradients are computed in float32 from the saved inputs and cast back to each input's dtype.
"""

from __future__ import annotations

import torch
from torch.library import register_autograd

ops = torch.ops.infini


def _sum_to(g: torch.Tensor, shape) -> torch.Tensor:
    """Reduces a broadcast gradient back to `shape`."""
    shape = tuple(shape)
    while g.dim() > len(shape):
        g = g.sum(0)
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(dims, keepdim=True) if dims else g


def _dsilu(x: torch.Tensor) -> torch.Tensor:
    s = torch.sigmoid(x)
    return s * (1 + x * (1 - s))


def _save_inputs(ctx, inputs, output):
    ctx.save_for_backward(*[t if isinstance(t, torch.Tensor) else None for t in inputs])
    ctx.args = inputs


# ---- elementwise ---------------------------------------------------------------------------------


def _add_backward(ctx, g):
    a, b = ctx.saved_tensors
    return _sum_to(g, a.shape).to(a.dtype), _sum_to(g, b.shape).to(b.dtype)


def _mul_backward(ctx, g):
    a, b = ctx.saved_tensors
    gf = g.float()
    return (_sum_to(gf * b.float(), a.shape).to(a.dtype), _sum_to(gf * a.float(), b.shape).to(b.dtype))


def _swiglu_backward(ctx, g):
    a, b = ctx.saved_tensors
    gf, af, bf = g.float(), a.float(), b.float()
    ga = gf * torch.nn.functional.silu(bf)
    gb = gf * af * _dsilu(bf)
    return _sum_to(ga, a.shape).to(a.dtype), _sum_to(gb, b.shape).to(b.dtype)


def _silu_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return (g.float() * _dsilu(x.float())).to(x.dtype)


def _relu_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * (x > 0).to(g.dtype)


def _gelu_backward(ctx, g):
    x = ctx.saved_tensors[0]
    approximate = ctx.args[1] if len(ctx.args) > 1 else "none"
    return torch.ops.aten.gelu_backward(g.float(), x.float(), approximate=approximate).to(x.dtype), None


def _silu_and_mul_backward(ctx, g):
    (x,) = ctx.saved_tensors
    d = x.shape[-1] // 2
    x1, x2, gf = x[..., :d].float(), x[..., d:].float(), g.float()
    return torch.cat([gf * x2 * _dsilu(x1), gf * torch.nn.functional.silu(x1)], dim=-1).to(x.dtype)


# ---- norms ---------------------------------------------------------------------------------------


def _rms_grads(g, x, w, eps):
    """Gradients of y = x * rsqrt(mean(x^2) + eps) * w over the last dim."""
    xf, wf, gf = x.float(), w.float(), g.float()
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    gw = gf * wf
    gx = r * (gw - xf * r.pow(2) * (gw * xf).mean(-1, keepdim=True))
    gweight = (gf * xf * r).reshape(-1, x.shape[-1]).sum(0)
    return gx, gweight


def _rms_norm_backward(ctx, g):
    x, w, _ = ctx.saved_tensors
    gx, gw = _rms_grads(g, x, w, ctx.args[2])
    return gx.to(x.dtype), gw.to(w.dtype), None


def _add_rms_norm_setup(ctx, inputs, output):
    a, b, w, eps = inputs
    ctx.save_for_backward(output[1], w)
    ctx.eps = eps
    ctx.a_dtype, ctx.b_dtype = a.dtype, b.dtype


def _add_rms_norm_backward(ctx, gy, gres):
    residual, w = ctx.saved_tensors
    gx, gw = _rms_grads(gy, residual, w, ctx.eps)
    if gres is not None:
        gx = gx + gres.float()
    return gx.to(ctx.a_dtype), gx.to(ctx.b_dtype), gw.to(w.dtype), None


def _layer_norm_backward(ctx, g):
    x, w, b, _ = ctx.saved_tensors
    eps = ctx.args[3]
    xf = x.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False, keepdim=True) + eps)
    mask = [ctx.needs_input_grad[0], ctx.needs_input_grad[1], b is not None and ctx.needs_input_grad[2]]
    gx, gw, gb = torch.ops.aten.native_layer_norm_backward(
        g.float(), xf, [x.shape[-1]], mean, rstd, w.float(), None if b is None else b.float(), mask
    )
    return (
        None if gx is None else gx.to(x.dtype),
        None if gw is None else gw.to(w.dtype),
        None if gb is None else gb.to(b.dtype),
        None,
    )


# ---- softmax, rope, embedding --------------------------------------------------------------------


def _softmax_setup(ctx, inputs, output):
    ctx.dim = inputs[1] if len(inputs) > 1 else -1
    ctx.save_for_backward(output)


def _softmax_backward(ctx, g):
    (y,) = ctx.saved_tensors
    yf, gf = y.float(), g.float()
    return (yf * (gf - (gf * yf).sum(ctx.dim, keepdim=True))).to(y.dtype), None


def _causal_softmax_backward(ctx, g):
    (y,) = ctx.saved_tensors
    yf, gf = y.float(), g.float()  # masked entries are 0 in y, so their gradient is 0
    return (yf * (gf - (gf * yf).sum(-1, keepdim=True))).to(y.dtype)


def _causal_softmax_setup(ctx, inputs, output):
    ctx.save_for_backward(output)


def _rope_backward(ctx, g):
    x, pos, sin, cos, _ = ctx.saved_tensors
    algo = ctx.args[4] if len(ctx.args) > 4 else "gpt_neox"
    # the rotation is orthogonal: its transpose rotates by the opposite angle
    return ops.rope(g.contiguous(), pos, -sin, cos, algo), None, None, None, None


def _embedding_backward(ctx, g):
    indices, w = ctx.saved_tensors
    gw = torch.zeros(w.shape, dtype=torch.float32, device=g.device)
    gw.index_add_(0, indices.reshape(-1).long(), g.reshape(-1, w.shape[1]).float())
    return None, gw.to(w.dtype)


def _gemm_backward(ctx, g):
    a, b, c = ctx.saved_tensors[:3]
    alpha = ctx.args[3] if len(ctx.args) > 3 else 1.0
    beta = ctx.args[4] if len(ctx.args) > 4 else 0.0
    ga = ops.gemm(g, b.transpose(-1, -2), None, alpha, 0.0) if ctx.needs_input_grad[0] else None
    gb = ops.gemm(a.transpose(-1, -2), g, None, alpha, 0.0) if ctx.needs_input_grad[1] else None
    gc = None
    if c is not None and ctx.needs_input_grad[2]:
        gc = (_sum_to(g.float(), c.shape) * beta).to(c.dtype)
    return ga, gb, gc, None, None


def _linear_backward(ctx, g):
    x, w, bias = ctx.saved_tensors[:3]
    g2 = g.reshape(-1, g.shape[-1])
    gx = ops.gemm(g2, w).reshape(x.shape) if ctx.needs_input_grad[0] else None
    gw = ops.gemm(g2.t(), x.reshape(-1, x.shape[-1])) if ctx.needs_input_grad[1] else None
    gb = g2.float().sum(0).to(bias.dtype) if bias is not None and ctx.needs_input_grad[2] else None
    return gx, gw, gb


_FORMULAS = {
    "gemm": (_gemm_backward, _save_inputs),
    "linear": (_linear_backward, _save_inputs),
    "add": (_add_backward, _save_inputs),
    "mul": (_mul_backward, _save_inputs),
    "swiglu": (_swiglu_backward, _save_inputs),
    "silu": (_silu_backward, _save_inputs),
    "relu": (_relu_backward, _save_inputs),
    "gelu": (_gelu_backward, _save_inputs),
    "silu_and_mul": (_silu_and_mul_backward, _save_inputs),
    "rms_norm": (_rms_norm_backward, _save_inputs),
    "add_rms_norm": (_add_rms_norm_backward, _add_rms_norm_setup),
    "layer_norm": (_layer_norm_backward, _save_inputs),
    "softmax": (_softmax_backward, _softmax_setup),
    "causal_softmax": (_causal_softmax_backward, _causal_softmax_setup),
    "rope": (_rope_backward, _save_inputs),
    "embedding": (_embedding_backward, _save_inputs),
}


def _make_function(name, backward, setup):
    op = getattr(ops, name).default

    def forward(ctx, *args):
        out = op(*args)  # grad mode is off in here: the C++ autograd kernel goes straight to the op
        setup(ctx, args, out)
        return out

    def backward_(ctx, *grads):
        g = backward(ctx, *grads)
        return g if isinstance(g, tuple) else (g,)

    return type(
        f"InfiniOp_{name}",
        (torch.autograd.Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward_)},
    )


_FUNCTIONS = {name: _make_function(name, bw, setup) for name, (bw, setup) in _FORMULAS.items()}


def _apply(name, *args):
    """Called by the C++ autograd kernel (csrc/ops/Autograd.cpp) when autograd has to record `name`."""
    return _FUNCTIONS[name].apply(*args)


# The same formulas at the Autograd alias key: devices without a C++ autograd kernel (Meta, others)
# and torch.library's own checks see them there.
for _name, (_bw, _setup) in _FORMULAS.items():
    register_autograd(f"infini::{_name}", _bw, setup_context=_setup)
