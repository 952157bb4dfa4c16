"""softmax / log_softmax (the rows family), layer_norm / rms_norm (the norm family) and nll_loss / cross_entropy /
mse_loss (the nll_loss family and element-wise ops) on infini, forward and backward, against torch on CPU tensors.
Every test runs with INFINI_FALLBACK=error (test/conftest.py's native_only) unless it is about the fallback itself."""

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

DEV = "infini"
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
TOL = {
    torch.float32: dict(rtol=1e-5, atol=1e-5),
    torch.float16: dict(rtol=2e-3, atol=2e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=1.6e-2),
    torch.float64: dict(rtol=1e-10, atol=1e-10),
}


def close(actual, expected, dtype=None, scale=1.0):
    tol = TOL[dtype or expected.dtype]
    torch.testing.assert_close(
        actual.cpu(), expected, rtol=tol["rtol"] * scale, atol=tol["atol"] * scale, equal_nan=True
    )


def grads_of(fn, inputs, wrt=None):
    """(output, grads) of fn on CPU tensors and on infini tensors for one upstream gradient; grads with respect to
    the inputs listed in wrt (indices; default: every given input)."""
    wrt = [i for i, t in enumerate(inputs) if t is not None] if wrt is None else wrt
    results = []
    for dev in ("cpu", DEV):
        xs = [t.detach().to(dev).requires_grad_(i in wrt) if t is not None else None for i, t in enumerate(inputs)]
        y = fn(*xs)
        g = torch.randn(y.shape, generator=torch.Generator().manual_seed(0)).to(y.dtype).to(dev)
        results.append((y, torch.autograd.grad(y, [xs[i] for i in wrt], g)))
    return results


# ---- softmax / log_softmax ----

SHAPES_DIMS = [
    ((), 0),
    ((0,), 0),
    ((1,), -1),
    ((7,), 0),
    ((1023,), -1),
    ((3, 5, 7), -1),
    ((3, 5, 7), 1),
    ((3, 5, 7), 0),
    ((4, 0, 3), 1),
    ((2, 130), 0),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("fn", [torch.softmax, torch.log_softmax])
def test_softmax_forward(fn, dtype, shape, dim):
    torch.manual_seed(0)
    x = (torch.randn(shape) * 4).to(dtype)
    out = fn(x.to(DEV), dim)
    assert out.dtype == dtype and out.shape == x.shape
    close(out, fn(x, dim))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", [((1023,), 0), ((3, 5, 7), -1), ((3, 5, 7), 1), ((6, 70), 0)])
@pytest.mark.parametrize("fn", [torch.softmax, torch.log_softmax])
def test_softmax_backward(fn, dtype, shape, dim):
    torch.manual_seed(1)
    x = torch.randn(shape).to(dtype)
    (cpu_y, cpu_g), (inf_y, inf_g) = grads_of(lambda t: fn(t, dim), [x])
    close(inf_y, cpu_y.detach())
    close(inf_g[0], cpu_g[0], scale=2)


@pytest.mark.parametrize("fn", [torch.softmax, torch.log_softmax])
def test_softmax_layouts_and_out(fn):
    torch.manual_seed(2)
    x = torch.randn(6, 9, 5)
    xt = x.to(DEV).transpose(0, 2)  # non-contiguous input
    close(fn(xt, 1), fn(x.transpose(0, 2), 1))
    half = torch.randn(4, 33).half()
    close(fn(half.to(DEV), -1, dtype=torch.float32), fn(half.float(), -1))  # the dtype argument
    op = torch.ops.aten._softmax.out if fn is torch.softmax else torch.ops.aten._log_softmax.out
    out = torch.empty(5, 9, 6, device=DEV).transpose(0, 2)  # a non-contiguous out
    op(x.to(DEV), 1, False, out=out)
    close(out, fn(x, 1))
    inplace = x.to(DEV)
    op(inplace, 2, False, out=inplace)  # out is the input
    close(inplace, fn(x, 2))


def test_softmax_special_values():
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([[0.0, 1.0, -inf, 2.0], [-inf, -inf, -inf, -inf], [1.0, nan, 0.0, 0.0], [inf, 0.0, 1.0, 2.0]])
    for fn in (torch.softmax, torch.log_softmax):
        for dim in (1, 0):
            close(fn(x.to(DEV), dim), fn(x, dim), torch.float32)


def test_softmax_bad_input():
    x = torch.randn(3, 4)
    ix = x.to(DEV)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.softmax(ix, 2)
    with pytest.raises(RuntimeError):  # integers: torch's CPU kernel has none (the fallback is an error here)
        torch.softmax(torch.ones(3, dtype=torch.long, device=DEV), 0)
    assert torch.equal(ix.cpu(), x)


# ---- layer_norm / rms_norm ----


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "shape,norm", [((4, 7), (7,)), ((2, 3, 1023), (1023,)), ((2, 3, 4, 5), (4, 5)), ((1,), (1,)), ((0, 8), (8,))]
)
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm(dtype, shape, norm, affine):
    torch.manual_seed(3)
    x = (torch.randn(shape) * 3 + 1).to(dtype)
    w = torch.randn(norm).to(dtype) if affine in ("both", "weight") else None
    b = torch.randn(norm).to(dtype) if affine in ("both", "bias") else None
    (cpu_y, cpu_g), (inf_y, inf_g) = grads_of(lambda *t: F.layer_norm(t[0], norm, *t[1:], eps=1e-5), [x, w, b])
    scale = 4 if dtype in (torch.float16, torch.bfloat16) else 2
    close(inf_y, cpu_y.detach(), scale=scale)
    # one normalized element: rstd = 1/sqrt(eps) amplifies torch's rounding of an input gradient that is exactly 0
    grad_scale = scale * (400 if norm == (1,) else 4)
    for gi, gc in zip(inf_g, cpu_g):
        close(gi, gc, scale=grad_scale)


def test_layer_norm_statistics_and_mixed_dtypes():
    torch.manual_seed(4)
    x = torch.randn(3, 5, 16).bfloat16()
    out, mean, rstd = torch.native_layer_norm(x.to(DEV), [16], None, None, 1e-5)
    assert mean.shape == (3, 5, 1) and mean.dtype == torch.float32 and rstd.dtype == torch.float32
    xf = x.float()
    close(mean, xf.mean(-1, keepdim=True))
    close(rstd, (xf.var(-1, unbiased=False, keepdim=True) + 1e-5).rsqrt(), scale=10)
    # a bfloat16 input with float32 parameters (a module kept in float32)
    w, b = torch.randn(16), torch.randn(16)
    y = F.layer_norm(x.to(DEV), (16,), w.to(DEV), b.to(DEV))
    close(y, F.layer_norm(xf, (16,), w, b).bfloat16(), torch.bfloat16)
    xt = torch.randn(16, 6).to(DEV).t()  # a non-contiguous input
    close(F.layer_norm(xt, (16,)), F.layer_norm(xt.cpu(), (16,)))


def test_layer_norm_bad_input():
    x = torch.randn(4, 6)
    ix = x.to(DEV)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\]"):
        F.layer_norm(ix, (5,))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
        F.layer_norm(ix, (6,), torch.ones(5, device=DEV))
    assert torch.equal(ix.cpu(), x)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "shape,norm", [((4, 7), (7,)), ((2, 3, 1023), (1023,)), ((2, 3, 4, 5), (4, 5)), ((0, 8), (8,))]
)
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("eps", [None, 1e-6])
def test_rms_norm(dtype, shape, norm, weighted, eps):
    torch.manual_seed(5)
    x = (torch.randn(shape) * 2).to(dtype)
    w = torch.randn(norm).to(dtype) if weighted else None
    (cpu_y, cpu_g), (inf_y, inf_g) = grads_of(lambda *t: F.rms_norm(t[0], norm, *t[1:], eps=eps), [x, w])
    scale = 4 if dtype in (torch.float16, torch.bfloat16) else 2
    close(inf_y, cpu_y.detach(), scale=scale)
    for gi, gc in zip(inf_g, cpu_g):
        close(gi, gc, scale=scale * 4)


def test_rms_norm_is_native_and_keeps_torch_statistics():
    x = torch.randn(2, 3, 32).bfloat16()
    y, rstd = torch.ops.aten._fused_rms_norm(x.to(DEV), [32], None, 1e-6)
    assert rstd.shape == (2, 3, 1) and rstd.dtype == torch.float32
    close(rstd, (x.float().pow(2).mean(-1, keepdim=True) + 1e-6).rsqrt(), scale=10)
    F.rms_norm(x.to(DEV), (32,)).cpu()
    assert infinicore_torch.fallback_stats() == {}


# ---- nll_loss / cross_entropy / mse_loss ----


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy(dtype, reduction, weighted):
    torch.manual_seed(6)
    n, c = 37, 11
    logits = (torch.randn(n, c) * 2).to(dtype)
    target = torch.randint(0, c, (n,))
    target[::5] = -100  # ignore_index
    weight = (torch.rand(c) + 0.5).to(dtype) if weighted else None
    (cpu_y, cpu_g), (inf_y, inf_g) = grads_of(
        lambda x, w: F.cross_entropy(x, target.to(x.device), weight=w, reduction=reduction), [logits, weight], wrt=[0]
    )
    scale = 2 if dtype == torch.bfloat16 else 1
    close(inf_y, cpu_y.detach(), scale=scale)
    close(inf_g[0], cpu_g[0], scale=scale)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_spatial_and_ignore_index(reduction):
    torch.manual_seed(7)
    logits = torch.randn(2, 5, 3, 4)
    target = torch.randint(0, 5, (2, 3, 4))
    target[0, 0] = 2  # an ignore_index that is a class
    weight = torch.rand(5) + 0.5
    (cpu_y, cpu_g), (inf_y, inf_g) = grads_of(
        lambda x: F.cross_entropy(
            x, target.to(x.device), weight=weight.to(x.device), ignore_index=2, reduction=reduction
        ),
        [logits],
    )
    close(inf_y, cpu_y.detach())
    close(inf_g[0], cpu_g[0])


def test_nll_loss_edge_cases():
    x = torch.randn(5).log_softmax(0)  # no batch dim
    t = torch.tensor(3)
    for red in ("mean", "sum", "none"):
        close(F.nll_loss(x.to(DEV), t.to(DEV), reduction=red), F.nll_loss(x, t, reduction=red))
    all_ignored = torch.full((4,), -100)
    xs = torch.randn(4, 3)
    assert torch.isnan(F.nll_loss(xs.to(DEV), all_ignored.to(DEV)).cpu()).item()  # 0 / 0, as torch
    close(
        F.nll_loss(torch.empty(0, 3, device=DEV), torch.empty(0, dtype=torch.long, device=DEV), reduction="sum"),
        torch.tensor(0.0),
    )
    out = torch.ops.aten.nll_loss_forward(xs.to(DEV), torch.tensor([0, 1, 2, 0]).to(DEV), None, 1, -100)
    ref = torch.ops.aten.nll_loss_forward(xs, torch.tensor([0, 1, 2, 0]), None, 1, -100)
    close(out[0], ref[0])
    close(out[1], ref[1])


def test_nll_loss_target_out_of_bounds_raises_at_synchronization():
    x = torch.randn(4, 3).log_softmax(1)
    ix, it = x.to(DEV), torch.tensor([0, 1, 7, 2]).to(DEV)
    with pytest.raises(RuntimeError, match="Target 7 is out of bounds"):
        F.nll_loss(ix, it).item()
    assert torch.equal(ix.cpu(), x)
    with pytest.raises(RuntimeError, match="size mismatch"):
        torch.ops.aten.nll_loss_forward(ix, it[:3], None, 1, -100)
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 3 classes or no classes"):
        F.nll_loss(ix, it, weight=torch.ones(2, device=DEV))


@pytest.mark.allow_fallback("targets other than int64 run on the CPU fallback, as torch's CPU kernel takes them")
def test_nll_loss_other_target_dtypes_go_to_the_fallback():
    infinicore_torch.reset_fallback_stats()
    x = torch.randn(4, 3).log_softmax(1)
    t = torch.tensor([0, 1, 2, 1], dtype=torch.uint8)
    close(F.nll_loss(x.to(DEV), t.to(DEV)), F.nll_loss(x, t))
    assert infinicore_torch.fallback_stats().get("aten::nll_loss_forward", 0) == 1


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_mse_loss_elementwise_and_backward(dtype):
    torch.manual_seed(8)
    a, b = torch.randn(6, 9).to(dtype), torch.randn(6, 9).to(dtype)
    (cpu_y, cpu_g), (inf_y, inf_g) = grads_of(lambda x, y: F.mse_loss(x, y, reduction="none"), [a, b])
    close(inf_y, cpu_y.detach(), scale=2)
    close(inf_g[0], cpu_g[0], scale=2)
    close(inf_g[1], cpu_g[1], scale=2)
    for red in ("mean", "sum"):  # the backward of a reduced loss is element-wise too
        g = torch.tensor(1.5).to(dtype)
        ref = torch.ops.aten.mse_loss_backward(g, a, b, 1 if red == "mean" else 2)
        out = torch.ops.aten.mse_loss_backward(g.to(DEV), a.to(DEV), b.to(DEV), 1 if red == "mean" else 2)
        close(out, ref, scale=2)


@pytest.mark.allow_fallback("a reduced loss's mean / sum are the reduce family's")
def test_mse_loss_reduced_is_not_a_fallback_of_its_own():
    infinicore_torch.reset_fallback_stats()
    a, b = torch.randn(5, 4), torch.randn(5, 4)
    for red in ("mean", "sum"):
        close(F.mse_loss(a.to(DEV), b.to(DEV), reduction=red), F.mse_loss(a, b, reduction=red))
    assert not any(name.startswith("aten::mse_loss") for name in infinicore_torch.fallback_stats())
