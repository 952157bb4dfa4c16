"""GPU cases of the sdpa family (F.scaled_dot_product_attention on infini, forward and backward) against torch on the
CPU, with INFINI_FALLBACK=error: the calls the tiled tensor-core kernel takes (bf16 / fp16, causal, head_dim 64 and
128, grouped heads, batches folded into heads or launched one by one, its lse for the backward) and the blocked
kernels' (masks, no causal, float32, other head dims, lq != lk). They run where the infini device is a GPU (the nvidia
backend); the CPU backend's cases are in the family's own test file."""

import math

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

pytestmark = pytest.mark.skipif(
    not hasattr(torch, "infini") or torch.infini.backend() == "cpu",
    reason="GPU cases of the nvidia families: run where the infini device is a GPU",
)

DEV = "infini"


@pytest.fixture(autouse=True)
def _native_only(monkeypatch):
    monkeypatch.setenv("INFINI_FALLBACK", "error")
    infinicore_torch.reset_fallback_stats()
    yield
    assert infinicore_torch.fallback_stats() == {}


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def reference(q, k, v, mask=None, causal=False, scale=None):
    """Attention in float64 on the CPU (grouped heads repeated), the family's causal form (key j <= i + lk - lq);
    returns the output in q's dtype."""
    qd, kd, vd = q.double(), k.double(), v.double()
    group = q.shape[1] // k.shape[1]
    kd, vd = kd.repeat_interleave(group, 1), vd.repeat_interleave(group, 1)
    s = qd @ kd.transpose(-1, -2) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    lq, lk = q.shape[2], k.shape[2]
    if causal:
        keep = torch.ones(lq, lk, dtype=torch.bool).tril(lk - lq)
        s = s.masked_fill(~keep, float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask.double()
    return (s.softmax(-1) @ vd).to(q.dtype)


def tol(dtype):
    return dict(rtol=2e-2, atol=2e-2) if dtype in (torch.bfloat16, torch.float16) else dict(rtol=1e-4, atol=1e-4)


def run_sdpa(q, k, v, dev, grad=None, **kw):
    """out (and dq, dk, dv for grad) of F.scaled_dot_product_attention on dev; q, k, v are views on the CPU whose
    layout is kept (moved as their [b, s, h, d] storage where they are transposes)."""

    def move(t):
        if not t.is_contiguous() and t.transpose(1, 2).is_contiguous():
            return t.transpose(1, 2).contiguous().to(dev).transpose(1, 2)
        return t.to(dev)

    qs, ks, vs = (move(t).requires_grad_(grad is not None) for t in (q, k, v))
    kw = {key: (val.to(dev) if isinstance(val, torch.Tensor) else val) for key, val in kw.items()}
    out = F.scaled_dot_product_attention(qs, ks, vs, enable_gqa=qs.shape[1] != ks.shape[1], **kw)
    if grad is None:
        return (out.detach().cpu(),)
    return (out.detach().cpu(),) + tuple(t.cpu() for t in torch.autograd.grad(out, (qs, ks, vs), grad.to(dev)))


FLASH = [
    # b, hq, hk, s, d
    (1, 32, 32, 1024, 128),
    (2, 32, 8, 512, 128),  # grouped heads 32 / 8
    (2, 8, 8, 256, 64),
    (1, 4, 4, 77, 128),  # rows not a multiple of the tiles
]


@pytest.mark.parametrize("b,hq,hk,s,d", FLASH)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
def test_causal_flash_forward(b, hq, hk, s, d, dtype, layout):
    shape_q, shape_k = (b, hq, s, d), (b, hk, s, d)
    if layout == "bshd":  # [b, s, h, d] storage seen as [b, h, s, d]: a launch a batch
        q, k, v = (rand(b, s, h, d, dtype=dtype, seed=i).transpose(1, 2) for i, h in enumerate((hq, hk, hk)))
    else:
        q, k, v = rand(*shape_q, dtype=dtype), rand(*shape_k, dtype=dtype, seed=1), rand(*shape_k, dtype=dtype, seed=2)
    (out,) = run_sdpa(q, k, v, DEV, is_causal=True)
    torch.testing.assert_close(out, reference(q, k, v, causal=True), **tol(dtype))


@pytest.mark.parametrize("b,hq,hk,s,d", [(2, 8, 2, 256, 128), (1, 4, 4, 100, 64)])
def test_causal_flash_forward_backward(b, hq, hk, s, d):
    dtype = torch.bfloat16
    q, k, v = (
        rand(b, hq, s, d, dtype=dtype),
        rand(b, hk, s, d, dtype=dtype, seed=1),
        rand(b, hk, s, d, dtype=dtype, seed=2),
    )
    g = rand(b, hq, s, d, dtype=dtype, seed=3)
    got = run_sdpa(q, k, v, DEV, grad=g, is_causal=True)
    qc, kc, vc = (t.float().requires_grad_() for t in (q, k, v))
    ref = F.scaled_dot_product_attention(qc, kc, vc, is_causal=True, enable_gqa=hq != hk)
    want = (ref.detach(),) + torch.autograd.grad(ref, (qc, kc, vc), g.float())
    for a, e in zip(got, want):
        torch.testing.assert_close(a.float(), e, rtol=3e-2, atol=3e-2)


BLOCKED = [
    # b, hq, hk, lq, lk, d, dtype, mask kind, causal
    (2, 4, 4, 64, 64, 64, torch.float32, None, False),
    (2, 4, 2, 70, 130, 80, torch.float32, "bool", False),
    (1, 8, 8, 33, 33, 128, torch.bfloat16, "additive", False),
    (2, 2, 1, 48, 96, 256, torch.float32, None, True),  # causal, lq < lk (keys j <= i + lk - lq)
    (1, 2, 2, 1, 300, 64, torch.float16, "bool", False),  # one query row
    (3, 4, 4, 40, 40, 32, torch.float32, "additive", True),
]


@pytest.mark.parametrize("b,hq,hk,lq,lk,d,dtype,mask_kind,causal", BLOCKED)
def test_blocked_forward_backward(b, hq, hk, lq, lk, d, dtype, mask_kind, causal):
    q, k, v = (
        rand(b, hq, lq, d, dtype=dtype),
        rand(b, hk, lk, d, dtype=dtype, seed=1),
        rand(b, hk, lk, d, dtype=dtype, seed=2),
    )
    g = rand(b, hq, lq, d, dtype=dtype, seed=3)
    mask = None
    if mask_kind == "bool":
        mask = torch.rand(b, 1, lq, lk, generator=torch.Generator().manual_seed(4)) > 0.3
        mask[..., 0] = True  # every row sees a key
    elif mask_kind == "additive":
        mask = rand(1, hq, lq, lk, dtype=dtype, seed=5)
    kw = {} if mask is None else {"attn_mask": mask}
    if causal:  # (torch's is_causal aligns top-left where lq != lk: the family's form as a mask then)
        keep = torch.ones(lq, lk, dtype=torch.bool).tril(lk - lq)
        if mask is None:
            kw = {"is_causal": True} if lq == lk else {"attn_mask": keep}
        else:
            kw = {"attn_mask": mask & keep if mask.dtype == torch.bool else mask.masked_fill(~keep, float("-inf"))}
    got = run_sdpa(q, k, v, DEV, grad=g, **kw)
    qc, kc, vc = (t.double().requires_grad_() for t in (q, k, v))
    kwc = {
        key: (val.double() if isinstance(val, torch.Tensor) and val.is_floating_point() else val)
        for key, val in kw.items()
    }
    ref = F.scaled_dot_product_attention(qc, kc, vc, enable_gqa=hq != hk, **kwc)
    want = (ref.detach(),) + torch.autograd.grad(ref, (qc, kc, vc), g.double())
    t = tol(dtype)
    for a, e in zip(got, want):
        torch.testing.assert_close(a.double(), e, rtol=t["rtol"], atol=t["atol"] * max(1.0, e.abs().max().item()))


def test_scale_and_strided_inputs():
    q = rand(2, 64, 4, 128).transpose(1, 2)  # [b, s, h, d] storage
    k, v = rand(2, 64, 4, 128, seed=1).transpose(1, 2), rand(2, 64, 4, 128, seed=2).transpose(1, 2)
    (out,) = run_sdpa(q, k, v, DEV, scale=0.3)
    torch.testing.assert_close(out, reference(q, k, v, scale=0.3), rtol=1e-4, atol=1e-4)
