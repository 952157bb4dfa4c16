"""torch.ops.infini.sdpa against torch.nn.functional.scaled_dot_product_attention (in float32 on the CPU): grouped
heads, causal aligned to the bottom right, bool and additive masks, strided inputs, the out= form, empty shapes,
opcheck, bad input."""

import pytest
import torch
import torch.nn.functional as F
from _devices import OP_DEVICES as DEVICES
from torch.library import opcheck

import infinicore_torch  # noqa: F401
from infinicore_torch import ops

TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 2e-2}
I = torch.ops.infini


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


def bottom_right(lq, lk):
    """The kernel's causal mask: query i sees keys j <= i + lk - lq."""
    return torch.ones(lq, lk, dtype=torch.bool).tril(lk - lq)


def reference(q, k, v, mask, causal, scale):
    """F.scaled_dot_product_attention in float32 on the CPU, kv heads repeated, causal as an explicit mask."""
    q, k, v = (t.cpu().float() for t in (q, k, v))
    n = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(n, 1), v.repeat_interleave(n, 1)
    m = None if mask is None else mask.cpu()
    if m is not None and m.dtype != torch.bool:
        m = m.float()
    if causal:
        c = bottom_right(q.shape[2], k.shape[2])
        m = c if m is None else (m & c if m.dtype == torch.bool else m.masked_fill(~c, float("-inf")))
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=scale)


def rand(*shape, dtype, device):
    return torch.randn(*shape).to(dtype).to(device)


def close(out, ref, dtype):
    tol = TOL[dtype] * 2
    torch.testing.assert_close(out.cpu().float(), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize(
    "hq, hk, lq, lk, causal",
    [
        (4, 4, 7, 7, True),  # prefill: torch's is_causal and the kernel's agree
        (4, 2, 7, 7, False),
        (6, 2, 3, 11, True),  # a prefill chunk over a cache: the last query is the newest key
        (4, 1, 1, 9, False),  # a decode step
        (4, 2, 1, 9, True),  # (causal changes nothing for the newest token)
    ],
)
def test_matches_torch(device, dtype, hq, hk, lq, lk, causal):
    b, d = 2, 16
    q = rand(b, hq, lq, d, dtype=dtype, device=device)
    k, v = rand(b, hk, lk, d, dtype=dtype, device=device), rand(b, hk, lk, d, dtype=dtype, device=device)
    out = ops.sdpa(q, k, v, None, causal, d**-0.5)
    assert out.shape == (b, hq, lq, d) and out.dtype == dtype and out.device == q.device
    assert out.transpose(1, 2).is_contiguous()
    close(out, reference(q, k, v, None, causal, d**-0.5), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("kind", ["bool", "additive"])
@pytest.mark.parametrize("shape", ["b1qk", "qk", "bhqk"])
@pytest.mark.parametrize("causal", [False, True])
def test_masks(device, dtype, kind, shape, causal):
    b, hq, hk, lq, lk, d = 2, 4, 2, 5, 8, 8
    q = rand(b, hq, lq, d, dtype=dtype, device=device)
    k, v = rand(b, hk, lk, d, dtype=dtype, device=device), rand(b, hk, lk, d, dtype=dtype, device=device)
    dims = {"b1qk": (b, 1, lq, lk), "qk": (lq, lk), "bhqk": (b, hq, lq, lk)}[shape]
    keep = torch.rand(dims) > 0.3
    keep[..., -1] = True  # every row attends to at least its newest key (causal keeps it too)
    mask = keep if kind == "bool" else torch.zeros(dims).masked_fill(~keep, float("-inf")).to(dtype)
    out = ops.sdpa(q, k, v, mask.to(device), causal, 0.3)
    close(out, reference(q, k, v, mask, causal, 0.3), dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_a_row_with_no_key_is_zero(device):
    q, k, v = (rand(1, 2, 3, 8, dtype=torch.float32, device=device) for _ in range(3))
    keep = torch.ones(1, 1, 3, 3, dtype=torch.bool)
    keep[..., 1, :] = False
    out = ops.sdpa(q, k, v, keep.to(device), False, 0.5).cpu()
    assert torch.equal(out[:, :, 1], torch.zeros(1, 2, 8))
    ref = reference(q, k, v, keep, False, 0.5)
    torch.testing.assert_close(out[:, :, [0, 2]], ref[:, :, [0, 2]], rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_strided_inputs(device):
    # q / k / v as models make them: [b, l, h, d] transposed; a last dim with stride 2 is copied first
    b, hq, hk, lq, lk, d = 2, 4, 2, 6, 6, 16
    q = rand(b, lq, hq, d, dtype=torch.float32, device=device).transpose(1, 2)
    k = rand(b, lk, hk, d, dtype=torch.float32, device=device).transpose(1, 2)
    v = rand(b, hk, lk, 2 * d, dtype=torch.float32, device=device)[..., ::2]
    close(ops.sdpa(q, k, v, None, True, 0.25), reference(q, k, v, None, True, 0.25), torch.float32)


@pytest.mark.parametrize("device", DEVICES)
def test_out_form(device):
    q, k, v = (rand(2, 2, 4, 8, dtype=torch.float32, device=device) for _ in range(3))
    out = torch.empty(0, device=device)
    r = I.sdpa.out(q, k, v, None, True, 0.5, out=out)
    assert r is out and out.shape == (2, 2, 4, 8)
    close(out, reference(q, k, v, None, True, 0.5), torch.float32)
    strided = torch.empty(2, 2, 4, 16, device=device)[..., ::2]  # stride 2 in the last dim: through a temporary
    I.sdpa.out(q, k, v, None, True, 0.5, out=strided)
    close(strided, reference(q, k, v, None, True, 0.5), torch.float32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("b, lq, lk, d", [(0, 3, 3, 8), (2, 0, 3, 8), (2, 3, 3, 0)])
def test_empty(device, b, lq, lk, d):
    q = torch.randn(b, 4, lq, d).to(device)
    k, v = torch.randn(b, 2, lk, d).to(device), torch.randn(b, 2, lk, d).to(device)
    out = ops.sdpa(q, k, v, None, False, 1.0)
    assert out.shape == (b, 4, lq, d)


@pytest.mark.parametrize("device", DEVICES)
def test_no_keys_gives_zeros(device):
    q = torch.randn(1, 2, 3, 8).to(device)
    k = v = torch.randn(1, 2, 0, 8).to(device)
    assert torch.equal(ops.sdpa(q, k, v, None, False, 1.0).cpu(), torch.zeros(1, 2, 3, 8))


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device):
    # no autograd: the op is an inference kernel (the sdpa fusion pass rewrites inference graphs only)
    q = torch.randn(2, 4, 5, 8, device=device)
    k, v = torch.randn(2, 2, 7, 8, device=device), torch.randn(2, 2, 7, 8, device=device)
    mask = (torch.rand(2, 1, 5, 7) > 0.2).to(device)
    opcheck(I.sdpa.default, (q, k, v, mask, True, 0.35), test_utils=("test_schema", "test_faketensor"))
    opcheck(I.sdpa.default, (q, k, v, None, False, 0.35), test_utils=("test_schema", "test_faketensor"))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda q, k, v, m: (q.double(), k, v, m), "q must be float32"),
        (lambda q, k, v, m: (q, k.half(), v, m), "k has dtype"),
        (lambda q, k, v, m: (q[0], k, v, m), "q must be \\[batch, heads, q_len, head_dim\\]"),
        (lambda q, k, v, m: (q, torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8), m), "k must be .* kv_heads dividing"),
        (lambda q, k, v, m: (q, k, v[..., :4], m), "v has shape"),
        (lambda q, k, v, m: (q, k, v, m.int()), "mask must be bool or q's dtype"),
        (lambda q, k, v, m: (q, k, v, m[..., :3]), "mask .* does not broadcast"),
        (lambda q, k, v, m: (q, k.to("infini"), v, m), "k is on"),
    ],
)
def test_bad_input_names_the_op(change, message):
    q, k, v = torch.randn(2, 4, 5, 8), torch.randn(2, 2, 7, 8), torch.randn(2, 2, 7, 8)
    mask = torch.ones(5, 7, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="infini.sdpa: " + message):
        ops.sdpa(*change(q, k, v, mask), False, 1.0)
