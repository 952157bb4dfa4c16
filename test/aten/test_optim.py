"""Optimizer steps on infini: torch.optim's fused Adam/AdamW (the pointwise family's ADAMW op) and the foreach
paths (torch's per-tensor decomposition onto native ops), against the same optimizer on CPU tensors."""

import pytest
import torch
from aten_utils import DEV, make, same


def params(dtype):
    return [make((5, 7), dtype, seed=1), make((7,), dtype, seed=2), make((3, 2, 4), dtype, seed=3)]


def run(opt_cls, device, dtype, steps=4, **kw):
    ps = [p.clone().to(device).requires_grad_() for p in params(dtype)]
    opt = opt_cls(ps, **kw)
    for s in range(steps):
        for i, p in enumerate(ps):
            p.grad = make(p.shape, dtype, seed=10 * s + i).to(device)
        opt.step()
    return [p.detach() for p in ps], opt


TOL32 = dict(rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opt_cls", [torch.optim.Adam, torch.optim.AdamW])
@pytest.mark.parametrize("mode", ["fused", "foreach", "single"])
@pytest.mark.parametrize("extra", [{}, {"weight_decay": 0.1}, {"maximize": True}])
def test_adam_family(opt_cls, mode, extra):
    kw = dict(lr=1e-2, betas=(0.9, 0.99), eps=1e-8, **extra)
    kw[mode] = True if mode != "single" else None
    if mode == "single":
        kw.pop("single")
        kw["foreach"] = False
    ref, _ = run(opt_cls, "cpu", torch.float32, **kw)
    got, _ = run(opt_cls, DEV, torch.float32, **kw)
    for g, r in zip(got, ref):
        same(g, r, **TOL32)


def test_fused_adamw_bf16_params():
    kw = dict(lr=1e-3, fused=True)
    ref, _ = run(torch.optim.AdamW, "cpu", torch.bfloat16, **kw)
    got, _ = run(torch.optim.AdamW, DEV, torch.bfloat16, **kw)
    for g, r in zip(got, ref):
        same(g, r)


@pytest.mark.parametrize("foreach", [True, False])
def test_sgd_momentum(foreach):
    kw = dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4, foreach=foreach)
    ref, _ = run(torch.optim.SGD, "cpu", torch.float32, **kw)
    got, _ = run(torch.optim.SGD, DEV, torch.float32, **kw)
    for g, r in zip(got, ref):
        same(g, r, **TOL32)


@pytest.mark.allow_fallback("the norm's reduction is the reduce family's (another file)")
def test_clip_grad_norm():
    ps = [p.clone().requires_grad_() for p in params(torch.float32)]
    pi = [p.detach().clone().to(DEV).requires_grad_() for p in ps]
    for i, (a, b) in enumerate(zip(ps, pi)):
        g = make(a.shape, torch.float32, seed=i) * 10
        a.grad, b.grad = g, g.to(DEV)
    n_ref = torch.nn.utils.clip_grad_norm_(ps, 1.0)
    n_got = torch.nn.utils.clip_grad_norm_(pi, 1.0)
    same(n_got, n_ref, **TOL32)
    for a, b in zip(ps, pi):
        same(b.grad, a.grad, **TOL32)
