"""GPU cases of the window family (max / average pooling, nearest / bilinear upsampling, and convolution's im2col /
col2im, forward and backward) against torch on the CPU, with INFINI_FALLBACK=error: overlapping and dilated windows,
padding, ceil_mode, NaN in a window, non-integer scales, and images past 65535 blocks. They run where the infini
device is a GPU (the nvidia backend); the CPU backend's cases are in the family's own test files."""

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


def tol(dtype, scale=1.0):
    if dtype == torch.float32:
        return dict(rtol=1e-5, atol=1e-5 * scale)
    if dtype == torch.float64:
        return dict(rtol=1e-9, atol=1e-9 * scale)
    return dict(rtol=2e-2, atol=2e-2 * scale)


def fwd_bwd(fn, x, g, dev):
    xs = x.to(dev).requires_grad_()
    out = fn(xs)
    first = out[0] if isinstance(out, tuple) else out
    extra = tuple(t.cpu() for t in out[1:]) if isinstance(out, tuple) else ()
    return (first.detach().cpu(),) + extra + (torch.autograd.grad(first, xs, g.to(dev))[0].cpu(),)


def compare(fn, x, out_shape_of, dtype, scale=1.0, equal_nan=False):
    ref = fn(x)
    ref = ref[0] if isinstance(ref, tuple) else ref
    g = rand(*out_shape_of(ref), dtype=dtype, seed=9)
    got, want = fwd_bwd(fn, x, g, DEV), fwd_bwd(fn, x, g, "cpu")
    for a, e in zip(got, want):
        if a.dtype == torch.int64:
            assert torch.equal(a, e)
        else:
            torch.testing.assert_close(a.float(), e.float(), equal_nan=equal_nan, **tol(dtype, scale))


MAX_POOL = [
    # kernel, stride, padding, dilation, ceil_mode
    (3, 2, 1, 1, False),
    (3, 1, 1, 2, False),  # overlapping, dilated
    (2, 2, 0, 1, True),
    ((3, 2), (2, 1), (1, 0), (1, 2), True),
]


@pytest.mark.parametrize("k,s,p,d,ceil", MAX_POOL)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_max_pool2d_forward_backward(k, s, p, d, ceil, dtype):
    x = rand(2, 3, 17, 20, dtype=dtype)
    x[0, 0, 3, 4] = float("nan")  # NaN wins its windows
    fn = lambda t: F.max_pool2d(t, k, s, p, d, ceil_mode=ceil, return_indices=True)  # noqa: E731
    compare(fn, x, lambda r: r.shape, dtype, equal_nan=True)


def test_max_pool_ties_take_the_first():
    x = torch.zeros(1, 1, 6, 6)
    x[0, 0, 2:4, 2:4] = 1.0
    out_i, idx_i = F.max_pool2d(x.to(DEV), 3, 1, 1, return_indices=True)
    out_c, idx_c = F.max_pool2d(x, 3, 1, 1, return_indices=True)
    assert torch.equal(idx_i.cpu(), idx_c) and torch.equal(out_i.cpu(), out_c)


@pytest.mark.parametrize("include_pad", [True, False])
@pytest.mark.parametrize("divisor", [None, 5])
@pytest.mark.parametrize("ceil", [False, True])
def test_avg_pool2d_forward_backward(include_pad, divisor, ceil):
    x = rand(2, 3, 15, 11)
    fn = lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=ceil, count_include_pad=include_pad, divisor_override=divisor)  # noqa: E731
    compare(fn, x, lambda r: r.shape, torch.float32)


@pytest.mark.parametrize("out_size", [(1, 1), (4, 3), (6, 9)])
def test_adaptive_avg_pool2d_forward_backward(out_size):
    compare(lambda t: F.adaptive_avg_pool2d(t, out_size), rand(2, 3, 13, 9), lambda r: r.shape, torch.float32)


@pytest.mark.parametrize("size,scale", [((34, 40), None), ((7, 9), None), (None, 2.0), (None, 1.7)])
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_forward_backward(size, scale, mode):
    x = rand(2, 3, 17, 20)
    kw = {"align_corners": False} if mode == "bilinear" else {}
    fn = lambda t: F.interpolate(t, size=size, scale_factor=scale, mode=mode, **kw)  # noqa: E731
    compare(fn, x, lambda r: r.shape, torch.float32, scale=4.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_bilinear_align_corners(dtype):
    x = rand(1, 2, 9, 13, dtype=dtype)
    fn = lambda t: F.interpolate(t, size=(20, 5), mode="bilinear", align_corners=True)  # noqa: E731
    compare(fn, x, lambda r: r.shape, dtype, scale=4.0)


def test_large_images_past_65535_blocks():
    x = rand(4, 16, 256, 256)  # 4M elements: more blocks of 256 than 65535
    compare(lambda t: F.max_pool2d(t, 2), x, lambda r: r.shape, torch.float32)
    compare(
        lambda t: F.interpolate(t, scale_factor=2.0, mode="nearest"), x[:1], lambda r: r.shape, torch.float32, scale=4.0
    )


@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 1, 1, 1), (1, 2, 2, 1), (2, 1, 1, 2)])
def test_conv2d_forward_backward(stride, padding, dilation, groups):
    x, w, b = rand(2, 4, 13, 11), rand(6, 4 // groups, 3, 3, seed=1), rand(6, seed=2)

    def run(dev):
        xs, ws, bs = (t.to(dev).requires_grad_() for t in (x, w, b))
        out = F.conv2d(xs, ws, bs, stride, padding, dilation, groups)
        g = rand(*out.shape, seed=3).to(dev)
        return (out.detach().cpu(),) + tuple(t.cpu() for t in torch.autograd.grad(out, (xs, ws, bs), g))

    for a, e in zip(run(DEV), run("cpu")):
        torch.testing.assert_close(a, e, rtol=1e-4, atol=1e-4)
