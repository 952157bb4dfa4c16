"""Pooling and interpolation on infini (the window family) against torch on the CPU: max pooling (values, indices,
NaN and ties), average pooling (padding, count_include_pad, divisor_override, ceil_mode), adaptive average pooling
(regular and irregular windows), nearest and bilinear upsampling in 1-d and 2-d, each forward and backward, over
float32 / float16 / bfloat16 / float64, batched and unbatched, non-contiguous inputs, out= forms and bad input. The
tests run with INFINI_FALLBACK=error (the root conftest's native_only): the path is native; the ones marked
allow_fallback check which ops fell back themselves."""

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

DEV = "infini"
DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
TOL = {
    torch.float32: {"rtol": 1e-5, "atol": 1e-5},
    torch.float64: {"rtol": 1e-9, "atol": 1e-9},
    torch.float16: {"rtol": 2e-3, "atol": 2e-3},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1.6e-2},
}


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def check(fn, x, dtype, grad=True, exact=False):
    """fn on infini vs fn on the CPU in the same dtype, forward and (with grad) backward."""
    xc = x.detach().to(dtype, copy=True).requires_grad_(grad)
    xi = x.detach().to(DEV, dtype).requires_grad_(grad)
    yc, yi = fn(xc), fn(xi)
    tol = {"rtol": 0, "atol": 0} if exact else TOL[dtype]
    torch.testing.assert_close(yi.detach().cpu(), yc.detach(), **tol)
    if grad:
        g = rand(*yc.shape, seed=9).to(dtype)
        yc.backward(g)
        yi.backward(g.to(DEV))
        assert xi.grad.device.type == DEV and xi.grad.dtype == dtype
        torch.testing.assert_close(xi.grad.cpu(), xc.grad, **TOL[dtype])


# ---- max pooling

MAX_POOL = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (3, 2), "stride": (1, 2), "dilation": (2, 1)},
    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    {"kernel_size": (1, 3), "stride": 1, "padding": (0, 1)},
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", MAX_POOL)
def test_max_pool2d(dtype, kw):
    x = rand(2, 3, 9, 8)
    check(lambda t: F.max_pool2d(t, **kw), x, dtype, exact=True)
    _, ic = F.max_pool2d(x.to(dtype), return_indices=True, **kw)
    _, ii = F.max_pool2d(x.to(dtype).to(DEV), return_indices=True, **kw)
    assert ii.dtype == torch.int64 and torch.equal(ii.cpu(), ic)


def test_max_pool_nan_ties_and_infinities_follow_torch():
    x = torch.tensor(
        [
            [
                [
                    [1.0, 1.0, 0.0, -1.0],
                    [float("nan"), 2.0, float("nan"), 5.0],
                    [-float("inf"), -float("inf"), 3.0, 3.0],
                    [-float("inf"), -float("inf"), 3.0, 2.0],
                ]
            ]
        ]
    )
    vc, ic = F.max_pool2d(x, 2, return_indices=True)
    vi, ii = F.max_pool2d(x.to(DEV), 2, return_indices=True)
    torch.testing.assert_close(vi.cpu(), vc, equal_nan=True)
    assert torch.equal(ii.cpu(), ic)
    vc, ic = F.max_pool2d(x, 3, stride=1, padding=1, return_indices=True)
    vi, ii = F.max_pool2d(x.to(DEV), 3, stride=1, padding=1, return_indices=True)
    torch.testing.assert_close(vi.cpu(), vc, equal_nan=True)
    assert torch.equal(ii.cpu(), ic)


def test_max_pool_unbatched_1d_and_non_contiguous():
    check(lambda t: F.max_pool2d(t, 2), rand(3, 6, 7), torch.float32)  # [c, h, w]
    check(lambda t: F.max_pool1d(t, 3, stride=2), rand(2, 4, 1023), torch.float32)
    x = rand(2, 5, 6, 3).permute(0, 3, 1, 2)  # channels last
    check(lambda t: F.max_pool2d(t, 2), x, torch.float32)
    check(lambda t: F.max_pool2d(t, 2), rand(0, 3, 4, 4), torch.float32, grad=False)


def test_max_pool_out_form():
    x = rand(1, 2, 6, 6)
    out = torch.empty(0, device=DEV)
    ind = torch.empty(0, dtype=torch.long, device=DEV)
    torch.ops.aten.max_pool2d_with_indices.out(x.to(DEV), [2, 2], [2, 2], [0, 0], [1, 1], False, out=out, indices=ind)
    vc, ic = F.max_pool2d(x, 2, return_indices=True)
    torch.testing.assert_close(out.cpu(), vc)
    assert torch.equal(ind.cpu(), ic)


def test_max_pool_bad_input_raises_torchs_errors():
    x = rand(1, 1, 4, 4).to(DEV)
    x0 = x.cpu()
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.max_pool2d(x, 5)
    assert torch.equal(x.cpu(), x0)


def test_max_pool_backward_index_out_of_range_surfaces_at_sync():
    x = rand(1, 1, 4, 4).to(DEV)
    grad = torch.ones(1, 1, 2, 2, device=DEV)
    bad = torch.tensor([[[[0, 1], [2, 99]]]], device=DEV)
    with pytest.raises(RuntimeError, match="index out of range"):
        dx = torch.ops.aten.max_pool2d_with_indices_backward(grad, x, [2, 2], [2, 2], [0, 0], [1, 1], False, bad)
        dx.cpu()
    torch.infini.synchronize()  # the error was reported once; the device works on
    assert F.max_pool2d(x, 2).cpu().shape == (1, 1, 2, 2)


# ---- average pooling

AVG_POOL = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": (2, 3), "stride": (1, 2), "divisor_override": 5},
    {"kernel_size": 2, "divisor_override": -2},
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", AVG_POOL)
def test_avg_pool2d(dtype, kw):
    check(lambda t: F.avg_pool2d(t, **kw), rand(2, 3, 9, 8), dtype)


def test_avg_pool_1d_unbatched_and_out_form():
    check(lambda t: F.avg_pool1d(t, 4, stride=3, padding=2), rand(2, 3, 31), torch.float32)
    check(lambda t: F.avg_pool2d(t, 3, stride=1, padding=1), rand(3, 7, 7), torch.float32)
    x = rand(1, 2, 6, 6)
    out = torch.empty(3, device=DEV)
    torch.ops.aten.avg_pool2d.out(x.to(DEV), [2, 2], out=out)
    torch.testing.assert_close(out.cpu(), F.avg_pool2d(x, 2))


def test_avg_pool_bad_divisor_raises():
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(rand(1, 1, 4, 4).to(DEV), 2, divisor_override=0)


# ---- adaptive average pooling


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "size,out", [((8, 6), (4, 3)), ((7, 5), (3, 2)), ((5, 9), (5, 4)), ((6, 6), (4, 6)), ((3, 3), (5, 7))]
)
def test_adaptive_avg_pool2d(dtype, size, out):
    check(lambda t: F.adaptive_avg_pool2d(t, out), rand(2, 3, *size), dtype)


def test_adaptive_avg_pool_unbatched_and_1d():
    check(lambda t: F.adaptive_avg_pool2d(t, (2, 3)), rand(4, 5, 7), torch.float32)
    check(lambda t: F.adaptive_avg_pool1d(t, 5), rand(2, 3, 17), torch.float32)


@pytest.mark.allow_fallback("torch computes a 1 x 1 adaptive pool as x.mean((-1, -2)): the reduce family's")
def test_adaptive_avg_pool_to_one_is_a_mean():
    infinicore_torch.reset_fallback_stats()
    check(lambda t: F.adaptive_avg_pool2d(t, 1), rand(2, 3, 5, 4), torch.float32, grad=False)
    assert set(infinicore_torch.fallback_stats()) <= {"aten::mean.out"}


def test_adaptive_avg_pool_bad_input():
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        torch.ops.aten._adaptive_avg_pool2d(rand(4, 4).to(DEV), [2, 2])
    with pytest.raises(RuntimeError, match="non-zero size for non-batch dimensions"):
        torch.ops.aten._adaptive_avg_pool2d(rand(1, 2, 0, 4).to(DEV), [2, 2])


# ---- interpolation

UPSAMPLE_2D = [
    {"scale_factor": 2},
    {"scale_factor": (1.5, 0.7)},
    {"size": (11, 5)},
    {"size": (4, 13)},
    {"scale_factor": 3, "recompute_scale_factor": True},
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", UPSAMPLE_2D)
def test_upsample_nearest2d(dtype, kw):
    check(lambda t: F.interpolate(t, mode="nearest", **kw), rand(2, 3, 6, 7), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("kw", UPSAMPLE_2D)
def test_upsample_bilinear2d(dtype, align_corners, kw):
    check(lambda t: F.interpolate(t, mode="bilinear", align_corners=align_corners, **kw), rand(2, 3, 6, 7), dtype)


@pytest.mark.parametrize(
    "mode,extra", [("nearest", {}), ("linear", {"align_corners": False}), ("linear", {"align_corners": True})]
)
@pytest.mark.parametrize("kw", [{"scale_factor": 2}, {"size": 13}, {"scale_factor": 0.6}])
def test_upsample_1d(mode, extra, kw):
    check(lambda t: F.interpolate(t, mode=mode, **extra, **kw), rand(2, 3, 9), torch.float32)


def test_upsample_same_size_non_contiguous_and_out_form():
    check(lambda t: F.interpolate(t, size=(6, 7), mode="bilinear"), rand(1, 2, 6, 7), torch.float32)
    x = rand(2, 6, 7, 3).permute(0, 3, 1, 2)
    check(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"), x, torch.float32)
    check(lambda t: F.interpolate(t, scale_factor=2, mode="nearest"), x, torch.float32)
    out = torch.empty(0, device=DEV)
    xi = rand(1, 1, 3, 3)
    torch.ops.aten.upsample_nearest2d.out(xi.to(DEV), [6, 6], None, None, out=out)
    torch.testing.assert_close(out.cpu(), F.interpolate(xi, size=(6, 6)))


def test_upsample_bad_input_raises_torchs_errors():
    x = rand(1, 1, 3, 3).to(DEV)
    with pytest.raises(RuntimeError, match="should be greater than 0"):
        torch.ops.aten.upsample_nearest2d(x, [0, 4], None, None)
    with pytest.raises(RuntimeError):
        torch.ops.aten.upsample_bilinear2d(rand(3, 3).to(DEV), [4, 4], False, None, None)


@pytest.mark.allow_fallback("integer images run on the CPU")
def test_integer_dtypes_run_on_the_cpu_fallback():
    infinicore_torch.reset_fallback_stats()
    x = torch.arange(9, dtype=torch.uint8).view(1, 1, 3, 3)
    torch.testing.assert_close(F.interpolate(x.to(DEV), scale_factor=2).cpu(), F.interpolate(x, scale_factor=2))
    assert set(infinicore_torch.fallback_stats()) == {"aten::upsample_nearest2d"}
