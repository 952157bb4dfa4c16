"""F.scaled_dot_product_attention on infini (csrc/aten/Attention.cpp, the sdpa family): forward and backward with
causal masks, bool and additive masks, grouped heads (32 query heads over 8 key heads), head dims 64 and 128, in
bfloat16 and float32, against torch's SDPA on CPU tensors. Every test runs with INFINI_FALLBACK=error."""

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

DEV = "infini"
TOL = {
    torch.float32: dict(rtol=2e-5, atol=2e-5),
    torch.float16: dict(rtol=4e-3, atol=4e-3),
    torch.bfloat16: dict(rtol=3e-2, atol=3e-2),
}


def close(actual, expected, dtype, scale=1.0):
    tol = TOL[dtype]
    torch.testing.assert_close(
        actual.cpu().float(), expected.float(), rtol=tol["rtol"] * scale, atol=tol["atol"] * scale
    )


def qkv(b, hq, hk, lq, lk, d, dtype, seed=0, layout="bhld"):
    """q [b, hq, lq, d], k and v [b, hk, lk, d]; layout "blhd" makes them transposed views of [b, l, h, d]."""
    g = torch.Generator().manual_seed(seed)
    if layout == "blhd":
        q = torch.randn(b, lq, hq, d, generator=g).transpose(1, 2)
        k = torch.randn(b, lk, hk, d, generator=g).transpose(1, 2)
        v = torch.randn(b, lk, hk, d, generator=g).transpose(1, 2)
    else:
        q, k, v = (torch.randn(b, h, length, d, generator=g) for h, length in ((hq, lq), (hk, lk), (hk, lk)))
    return [t.to(dtype) for t in (q, k, v)]


def run(q, k, v, dev, grad=None, **kw):
    """The attention output on dev, and the gradients of q, k, v when grad (the upstream gradient) is given."""
    xs = [t.detach().to(dev) for t in (q, k, v)]
    if grad is not None:
        for t in xs:
            t.requires_grad_()
    kw = {key: (val.to(dev) if isinstance(val, torch.Tensor) else val) for key, val in kw.items()}
    out = F.scaled_dot_product_attention(*xs, **kw)
    if grad is None:
        return out, None
    return out, torch.autograd.grad(out, xs, grad.to(dev))


def check(q, k, v, dtype, backward=True, tol_scale=1.0, **kw):
    grad = torch.randn(q.shape[:-1] + (v.shape[-1],), generator=torch.Generator().manual_seed(1)).to(dtype)
    ref, ref_g = run(q, k, v, "cpu", grad if backward else None, **kw)
    out, out_g = run(q, k, v, DEV, grad if backward else None, **kw)
    assert out.device.type == DEV and out.dtype == dtype and out.shape == ref.shape
    close(out, ref, dtype, tol_scale)
    if backward:
        for a, r in zip(out_g, ref_g):
            close(a, r, dtype, tol_scale * 4)
    assert infinicore_torch.fallback_stats() == {}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("lq,lk", [(1, 1), (7, 7), (70, 70), (1, 130), (5, 130), (130, 5)])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_shapes(dtype, lq, lk, causal):
    q, k, v = qkv(2, 4, 4, lq, lk, 64, dtype)
    check(q, k, v, dtype, is_causal=causal)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_grouped_heads_32_over_8(dtype, d, causal):
    q, k, v = qkv(1, 32, 8, 33, 33, d, dtype, layout="blhd")
    check(q, k, v, dtype, is_causal=causal, enable_gqa=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sdpa_bool_and_additive_masks(dtype):
    q, k, v = qkv(2, 4, 2, 9, 70, 64, dtype, seed=2)
    g = torch.Generator().manual_seed(3)
    keep = torch.rand(9, 70, generator=g) > 0.3
    keep[:, 0] = True  # every row attends to some key
    check(q, k, v, dtype, attn_mask=keep, enable_gqa=True)
    additive = (torch.randn(2, 1, 9, 70, generator=g) * 2).to(dtype)
    check(q, k, v, dtype, attn_mask=additive, enable_gqa=True)
    padding = torch.zeros(2, 1, 1, 70, dtype=dtype)  # a key padding mask, broadcast over heads and queries
    padding[1, ..., 50:] = float("-inf")
    check(q, k, v, dtype, attn_mask=padding, enable_gqa=True)


def test_sdpa_scale_head_dims_and_3d():
    q, k, v = qkv(2, 3, 3, 11, 17, 80, torch.float32, seed=4)
    check(q, k, v, torch.float32, scale=0.3)
    q, k, v = qkv(1, 2, 2, 11, 17, 7, torch.float32, seed=5)
    check(q, k, v, torch.float32)
    check(q[0], k[0], v[0], torch.float32, is_causal=False)  # 3-d: (heads, length, head dim)


def test_fully_masked_rows_give_zero():
    q, k, v = qkv(1, 2, 2, 4, 6, 16, torch.float32, seed=6)
    keep = torch.ones(4, 6, dtype=torch.bool)
    keep[2] = False
    out = F.scaled_dot_product_attention(q.to(DEV), k.to(DEV), v.to(DEV), attn_mask=keep.to(DEV)).cpu()
    assert torch.equal(out[:, :, 2], torch.zeros(1, 2, 16))
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    torch.testing.assert_close(out[:, :, [0, 1, 3]], ref[:, :, [0, 1, 3]], rtol=2e-5, atol=2e-5)


def test_backend_choice():
    q, k, v = qkv(1, 2, 2, 3, 3, 8, torch.float32)
    iq, ik, iv = q.to(DEV), k.to(DEV), v.to(DEV)
    assert torch._fused_sdp_choice(iq, ik, iv) == 4  # overrideable
    assert torch._fused_sdp_choice(iq, ik, iv, dropout_p=0.1) == 0  # math: dropout
    assert torch._fused_sdp_choice(iq.double(), ik.double(), iv.double()) == 0  # math: float64
    assert torch._fused_sdp_choice(iq, ik[:, :1], iv[:, :1]) == 0  # math: grouped heads without enable_gqa
    assert torch._fused_sdp_choice(iq, ik[:, :1], iv[:, :1], enable_gqa=True) == 4
    mask = torch.zeros(3, 3, device=DEV, requires_grad=True)
    assert torch._fused_sdp_choice(iq, ik, iv, attn_mask=mask) == 0  # math: the mask needs a gradient


def test_overrideable_op_bad_input():
    q, k, v = qkv(1, 3, 2, 4, 4, 8, torch.float32)
    iq, ik, iv = q.to(DEV), k.to(DEV), v.to(DEV)
    op = torch.ops.aten._scaled_dot_product_fused_attention_overrideable
    with pytest.raises(RuntimeError, match="must be a multiple of the number of key / value heads"):
        op(iq, ik, iv)
    with pytest.raises(RuntimeError, match="dropout is not supported"):
        op(iq, iq, iq, dropout_p=0.5)
    assert torch.equal(iq.cpu(), q)
