"""Convolution on infini (im2col / col2im on the window family around the gemm operator) against torch on the CPU:
conv1d / conv2d / transposed convolution forward and backward over stride, padding, dilation, groups and bias,
float32 / float16 / bfloat16, non-contiguous inputs, batches processed in slices, bad input; and a small CNN trained
a few SGD steps equal to the CPU. The tests run with INFINI_FALLBACK=error (the root conftest's native_only): the path
is native; the two marked allow_fallback check which ops fell back themselves."""

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import infinicore_torch

DEV = "infini"

# Tolerances against a float64 CPU reference computed from the same (rounded) inputs; atol scales with the largest
# reference value (a sum's rounding error follows its terms' magnitude, not its value).
TOL = {
    torch.float32: {"rtol": 1e-4, "atol": 1e-4},
    torch.float16: {"rtol": 4e-3, "atol": 4e-3},
    torch.bfloat16: {"rtol": 3e-2, "atol": 3e-2},
}


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def conv_case(dim, x_shape, w_shape, dtype, transposed=False, bias=True, **kw):
    """Forward and backward of one convolution on infini vs a float64 CPU reference; returns nothing, asserts."""
    x, w = rand(*x_shape, dtype=dtype, seed=1), rand(*w_shape, dtype=dtype, seed=2)
    b_channels = w_shape[1] * kw.get("groups", 1) if transposed else w_shape[0]
    b = rand(b_channels, dtype=dtype, seed=3) if bias else None
    fn = {(1, False): F.conv1d, (2, False): F.conv2d, (1, True): F.conv_transpose1d, (2, True): F.conv_transpose2d}[
        (dim, transposed)
    ]

    def run(device, cast):
        xs = x.to(device=device, dtype=cast).requires_grad_()
        ws = w.to(device=device, dtype=cast).requires_grad_()
        bs = b.to(device=device, dtype=cast).requires_grad_() if b is not None else None
        y = fn(xs, ws, bs, **kw)
        g = rand(*y.shape, dtype=dtype, seed=4).to(device=device, dtype=cast)
        y.backward(g)
        return [y, xs.grad, ws.grad] + ([bs.grad] if bs is not None else [])

    ref = run("cpu", torch.float64)
    out = run(DEV, dtype)
    for name, o, r in zip(["y", "dx", "dw", "db"], out, ref):
        assert o.device.type == DEV and o.dtype == dtype, name
        tol = dict(TOL[dtype])
        tol["atol"] *= max(1.0, r.abs().max().item())
        torch.testing.assert_close(o.cpu().double(), r, **tol, msg=name)


CONV2D = [
    # x shape, w shape, kwargs
    ((2, 3, 8, 8), (4, 3, 3, 3), {}),
    ((2, 3, 8, 8), (4, 3, 3, 3), {"padding": 1}),
    ((1, 4, 9, 7), (6, 4, 3, 2), {"stride": 2, "padding": (1, 0)}),
    ((2, 4, 11, 10), (4, 2, 3, 3), {"groups": 2, "dilation": 2, "padding": 2}),
    ((3, 6, 7, 7), (6, 1, 3, 3), {"groups": 6, "padding": 1}),  # depthwise
    ((2, 8, 5, 5), (16, 8, 1, 1), {}),  # 1x1: the image is its own columns
    ((2, 8, 5, 5), (16, 4, 1, 1), {"groups": 2, "stride": 2}),
    ((1, 1, 1, 1), (1, 1, 1, 1), {}),
    ((1, 2, 7, 1023), (3, 2, 1, 5), {"stride": (1, 3), "padding": (0, 2)}),
    # more samples than groups: one batched gemm per group
    ((5, 4, 6, 6), (8, 2, 3, 3), {"groups": 2, "stride": (2, 1), "dilation": (1, 2), "padding": (1, 2)}),
    ((1, 4, 6, 6), (8, 1, 3, 3), {"groups": 4}),  # more groups than samples: one gemm per sample
    ((2, 3, 8, 8), (4, 3, 3, 3), {"padding": "same"}),
]


@pytest.mark.parametrize("x_shape,w_shape,kw", CONV2D)
def test_conv2d_forward_backward_float32(x_shape, w_shape, kw):
    conv_case(2, x_shape, w_shape, torch.float32, **kw)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("x_shape,w_shape,kw", CONV2D[:6])
def test_conv2d_forward_backward_16bit(dtype, x_shape, w_shape, kw):
    conv_case(2, x_shape, w_shape, dtype, **kw)


def test_conv2d_without_bias():
    conv_case(2, (2, 3, 6, 6), (5, 3, 3, 3), torch.float32, bias=False, padding=1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize(
    "x_shape,w_shape,kw",
    [
        ((2, 3, 16), (4, 3, 3), {}),
        ((2, 4, 17), (6, 2, 5), {"stride": 2, "padding": 2, "groups": 2}),
        ((1, 2, 9), (2, 2, 3), {"dilation": 3, "padding": 1}),
    ],
)
def test_conv1d_forward_backward(dtype, x_shape, w_shape, kw):
    conv_case(1, x_shape, w_shape, dtype, **kw)


@pytest.mark.parametrize(
    "dim,x_shape,w_shape,kw",
    [
        (2, (2, 4, 5, 5), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
        (2, (1, 4, 4, 6), (4, 2, 2, 3), {"groups": 2, "stride": (2, 1), "dilation": (1, 2)}),
        (2, (2, 3, 4, 4), (3, 5, 1, 1), {}),
        (1, (2, 3, 7), (3, 2, 4), {"stride": 3, "padding": 1}),
    ],
)
def test_conv_transpose_forward_backward(dim, x_shape, w_shape, kw):
    conv_case(dim, x_shape, w_shape, torch.float32, transposed=True, **kw)


def test_conv_transpose_bfloat16():
    conv_case(2, (2, 4, 5, 5), (4, 3, 3, 3), torch.bfloat16, transposed=True, stride=2, padding=1)


def test_batch_in_slices_matches_cpu():
    # 20 samples of 16 x 64 x 64 unfold to ~2.4 MB of columns each: more than one slice of the column budget
    conv_case(2, (20, 16, 64, 64), (8, 16, 3, 3), torch.float32, padding=1)


def test_non_contiguous_inputs_and_channels_last():
    x = rand(2, 3, 9, 8).transpose(2, 3)  # [2, 3, 8, 9], strided
    w = rand(4, 3, 3, 3, seed=5)
    ref = F.conv2d(x, w, stride=2)
    out = F.conv2d(x.to(DEV), w.to(DEV), stride=2)
    torch.testing.assert_close(out.cpu(), ref, **TOL[torch.float32])
    xc = x.contiguous(memory_format=torch.channels_last)
    out = F.conv2d(xc.to(DEV), w.to(DEV).contiguous(memory_format=torch.channels_last), padding=1)
    torch.testing.assert_close(out.cpu(), F.conv2d(xc, w, padding=1), **TOL[torch.float32])


def test_expanded_grad_output():
    x = rand(2, 3, 6, 6).to(DEV).requires_grad_()
    w = rand(4, 3, 3, 3, seed=5).to(DEV).requires_grad_()
    y = F.conv2d(x, w)
    y.backward(torch.ones(1, 1, 1, 1, device=DEV).expand_as(y))  # stride-0 gradient
    xr, wr = x.detach().cpu().requires_grad_(), w.detach().cpu().requires_grad_()
    F.conv2d(xr, wr).backward(torch.ones(2, 4, 4, 4))
    torch.testing.assert_close(x.grad.cpu(), xr.grad, **TOL[torch.float32])
    torch.testing.assert_close(w.grad.cpu(), wr.grad, **TOL[torch.float32])


def test_empty_batch():
    x, w = torch.empty(0, 3, 5, 5), rand(4, 3, 3, 3)
    out = F.conv2d(x.to(DEV), w.to(DEV), rand(4).to(DEV))
    assert out.shape == (0, 4, 3, 3) and out.device.type == DEV


def test_mismatched_dtypes_raise_and_leave_inputs_untouched():
    x, w = rand(1, 3, 5, 5).to(DEV), rand(4, 3, 3, 3).to(DEV, torch.bfloat16)
    x0, w0 = x.cpu(), w.cpu()
    with pytest.raises(RuntimeError, match="should be the same"):
        F.conv2d(x, w)
    assert torch.equal(x.cpu(), x0) and torch.equal(w.cpu(), w0)


def test_bad_shapes_raise_torchs_errors():
    x = rand(1, 3, 5, 5).to(DEV)
    with pytest.raises(RuntimeError, match="expected input.*to have 2 channels"):
        F.conv2d(x, rand(4, 2, 3, 3).to(DEV))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv2d(x, rand(4, 3, 7, 7).to(DEV))
    with pytest.raises(RuntimeError):
        F.conv2d(x, rand(4, 3, 3, 3).to(DEV), groups=2)
    x0 = x.cpu()
    assert torch.equal(x.cpu(), x0)


def test_direct_overrideable_call_checks_its_arguments():
    x, w = rand(1, 4, 5, 5).to(DEV), rand(4, 2, 3, 3).to(DEV)
    with pytest.raises(RuntimeError, match="convolution_overrideable: expected input"):
        torch.ops.aten.convolution_overrideable(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(RuntimeError, match="stride and dilation must be positive"):
        torch.ops.aten.convolution_overrideable(x, w, None, [0, 1], [0, 0], [1, 1], False, [0, 0], 2)


@pytest.mark.allow_fallback("float64 and 3-d convolutions run on the CPU")
def test_float64_and_3d_convolutions_run_on_the_cpu_fallback():
    infinicore_torch.reset_fallback_stats()
    x, w = rand(1, 2, 5, 5, dtype=torch.float64), rand(3, 2, 3, 3, dtype=torch.float64)
    torch.testing.assert_close(F.conv2d(x.to(DEV), w.to(DEV)).cpu(), F.conv2d(x, w))
    x3, w3 = rand(1, 2, 4, 4, 4), rand(3, 2, 3, 3, 3)
    torch.testing.assert_close(F.conv3d(x3.to(DEV), w3.to(DEV)).cpu(), F.conv3d(x3, w3), rtol=1e-4, atol=1e-4)
    assert infinicore_torch.fallback_stats().get("aten::convolution") == 2


# ---- a small CNN: conv, batch norm, relu, max pool, adaptive average pool, linear; trained with SGD

# The ops another family provides (reductions for batch norm's statistics, gemm-backed linear): allowed through the
# CPU fallback until those families are native, and nothing else.
OTHER_FAMILIES = {
    "aten::var_mean.correction",
    "aten::sum.IntList_out",
    "aten::mean.out",
    "aten::addmm.out",
    "aten::mm.out",
}


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 12, 3, padding=1, groups=2),
            nn.BatchNorm2d(12),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d((2, 2)),  # from 5 x 5: irregular windows
        )
        self.head = nn.Linear(12 * 4, 5)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def train(model, x, grads, device, steps=3):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = x.to(device)
    out = None
    for g in grads[:steps]:
        opt.zero_grad()
        out = model(x)
        out.backward(g.to(device))  # a fixed output gradient: no loss function from another family
        opt.step()
    return model, out


@pytest.mark.allow_fallback("the linear layer's gemm and batch norm's statistics are other families' ops")
def test_small_cnn_trains_like_cpu():
    torch.manual_seed(0)
    model = SmallCNN()
    x = rand(4, 3, 10, 10, seed=7)
    grads = [rand(4, 5, seed=10 + k) for k in range(3)]
    cpu_model, cpu_out = train(copy.deepcopy(model), x, grads, "cpu")
    infinicore_torch.reset_fallback_stats()
    inf_model, inf_out = train(copy.deepcopy(model), x, grads, DEV)
    stats = infinicore_torch.fallback_stats()
    assert set(stats) <= OTHER_FAMILIES, stats
    torch.testing.assert_close(inf_out.detach().cpu(), cpu_out.detach(), rtol=1e-4, atol=1e-4)
    for (name, p_cpu), (_, p_inf) in zip(cpu_model.state_dict().items(), inf_model.state_dict().items()):
        assert p_inf.device.type == DEV, name
        torch.testing.assert_close(p_inf.cpu(), p_cpu, rtol=1e-4, atol=1e-4, msg=name)


# ---- F.unfold / F.fold: the window family's im2col / col2im


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize(
    "size,kw",
    [
        ((2, 3, 7, 8), {"kernel_size": 3}),
        ((1, 2, 9, 5), {"kernel_size": (2, 3), "dilation": (2, 1), "padding": 1, "stride": 2}),
        ((3, 6, 6), {"kernel_size": 2, "stride": 2}),
    ],
)
def test_unfold_and_fold(dtype, size, kw):
    x = rand(*size, dtype=dtype)
    xc, xi = x.clone().requires_grad_(), x.to(DEV).requires_grad_()
    uc, ui = F.unfold(xc, **kw), F.unfold(xi, **kw)
    torch.testing.assert_close(ui.detach().cpu(), uc.detach(), rtol=0, atol=0)
    g = rand(*uc.shape, dtype=dtype, seed=3)
    uc.backward(g)
    ui.backward(g.to(DEV))  # col2im
    torch.testing.assert_close(xi.grad.cpu(), xc.grad, **TOL[torch.float32 if dtype != torch.bfloat16 else dtype])
    out_size = size[-2:]
    fc, fi = F.fold(uc.detach(), out_size, **kw), F.fold(ui.detach(), out_size, **kw)
    torch.testing.assert_close(fi.cpu(), fc, **TOL[torch.float32 if dtype != torch.bfloat16 else dtype])


def test_unfold_bad_arguments_raise_torchs_errors():
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.unfold(rand(1, 2, 4, 4).to(DEV), kernel_size=0)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D .batch mode. tensor"):
        F.fold(rand(2, 3, 4, 4).to(DEV), (4, 4), kernel_size=2)
