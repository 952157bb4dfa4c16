"""Batch norm and group norm on infini against torch on the CPU: training (batch statistics, running statistics
updated with momentum and the unbiased variance) and evaluation, forward and backward (input, weight and bias
gradients), with and without affine parameters, float32 / bfloat16 / float16 / float64 and mixed (16-bit input,
float32 parameters), 2-d to 5-d inputs, the _native_batch_norm_legit forms, bad input.

The statistics are reductions of the reduce family: until it is native they may run on the CPU fallback, and
nothing else may (the fixture checks the fallback's counts)."""

import pytest
import torch
import torch.nn.functional as F

import infinicore_torch

DEV = "infini"

REDUCTIONS = {"aten::var_mean.correction", "aten::sum.IntList_out", "aten::mean.out"}

pytestmark = pytest.mark.allow_fallback("the statistics' reductions, until the reduce family is native")

TOL = {
    torch.float32: {"rtol": 1e-4, "atol": 1e-4},
    torch.float64: {"rtol": 1e-9, "atol": 1e-9},
    torch.float16: {"rtol": 4e-3, "atol": 4e-3},
    torch.bfloat16: {"rtol": 3e-2, "atol": 3e-2},
}


@pytest.fixture(autouse=True)
def native_but_reductions():
    infinicore_torch.reset_fallback_stats()
    yield
    stats = infinicore_torch.fallback_stats()
    assert set(stats) <= REDUCTIONS, stats


def rand(*shape, dtype=torch.float32, seed=0, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * scale + shift).to(dtype)


def leaf(t, device):
    """A fresh copy of t on device (the CPU run must not share tensors with the infini run)."""
    return None if t is None else t.detach().to(device, copy=True)


def batch_norm_case(shape, dtype, training, affine=True, param_dtype=None, momentum=0.1):
    pdt = param_dtype or dtype
    c = shape[1]
    x = rand(*shape, dtype=dtype, scale=2.0, shift=0.5)
    w = rand(c, dtype=pdt, seed=1) if affine else None
    b = rand(c, dtype=pdt, seed=2) if affine else None
    rm, rv = rand(c, dtype=pdt, seed=3), rand(c, dtype=pdt, seed=4).abs() + 0.5
    g = rand(*shape, dtype=dtype, seed=5)

    def run(device):
        xs = leaf(x, device).requires_grad_()
        ws = leaf(w, device).requires_grad_() if affine else None
        bs = leaf(b, device).requires_grad_() if affine else None
        rms, rvs = leaf(rm, device), leaf(rv, device)
        y = F.batch_norm(xs, rms, rvs, ws, bs, training=training, momentum=momentum, eps=1e-5)
        y.backward(g.to(device))
        grads = [xs.grad] + ([ws.grad, bs.grad] if affine else [])
        return [y, rms, rvs] + grads

    ref, out = run("cpu"), run(DEV)
    for name, o, r in zip(["y", "running_mean", "running_var", "dx", "dw", "db"], out, ref):
        assert o.device.type == DEV and o.dtype == r.dtype, name
        torch.testing.assert_close(o.cpu(), r, **TOL[dtype], msg=name)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_2d(dtype, training):
    batch_norm_case((4, 3, 5, 7), dtype, training)


@pytest.mark.parametrize("shape", [(8, 5), (3, 4, 9), (2, 3, 2, 3, 4), (1, 2, 1, 1023)])
def test_batch_norm_shapes(shape):
    batch_norm_case(shape, torch.float32, True)
    batch_norm_case(shape, torch.float32, False)


def test_batch_norm_without_affine_and_mixed_dtypes():
    batch_norm_case((4, 3, 5, 5), torch.float32, True, affine=False)
    batch_norm_case((4, 3, 5, 5), torch.bfloat16, True, param_dtype=torch.float32)
    batch_norm_case((4, 3, 5, 5), torch.bfloat16, False, param_dtype=torch.float32)


def test_batch_norm_statistics_outputs_follow_cpu():
    x, w, b = rand(3, 4, 5), rand(4, seed=1), rand(4, seed=2)
    for training in (True, False):
        rm, rv = torch.zeros(4), torch.ones(4)
        ref = torch.native_batch_norm(x, w, b, rm.clone(), rv.clone(), training, 0.2, 1e-3)
        out = torch.native_batch_norm(x.to(DEV), w.to(DEV), b.to(DEV), rm.to(DEV), rv.to(DEV), training, 0.2, 1e-3)
        for o, r in zip(out, ref):
            assert o.shape == r.shape and o.dtype == r.dtype
            torch.testing.assert_close(o.cpu(), r, rtol=1e-5, atol=1e-5)
    ref = torch.ops.aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)
    out = torch.ops.aten._native_batch_norm_legit.no_stats(x.to(DEV), w.to(DEV), b.to(DEV), True, 0.1, 1e-5)
    for o, r in zip(out, ref):
        torch.testing.assert_close(o.cpu(), r, rtol=1e-5, atol=1e-5)
    rm, rv = torch.zeros(4), torch.ones(4)
    rmi, rvi = rm.to(DEV), rv.to(DEV)
    ref = torch.ops.aten._native_batch_norm_legit(x, w, b, rm, rv, True, 0.1, 1e-5)
    out = torch.ops.aten._native_batch_norm_legit(x.to(DEV), w.to(DEV), b.to(DEV), rmi, rvi, True, 0.1, 1e-5)
    for o, r in zip(list(out) + [rmi, rvi], list(ref) + [rm, rv]):
        torch.testing.assert_close(o.cpu(), r, rtol=1e-5, atol=1e-5)


def test_batch_norm_module_train_then_eval():
    torch.manual_seed(0)
    cpu = torch.nn.BatchNorm2d(6)
    inf = torch.nn.BatchNorm2d(6).to(DEV)
    inf.load_state_dict(cpu.state_dict())
    for k in range(3):
        x = rand(5, 6, 4, 4, seed=20 + k, scale=3.0, shift=1.0)
        torch.testing.assert_close(inf(x.to(DEV)).detach().cpu(), cpu(x).detach(), rtol=1e-4, atol=1e-4)
    assert int(inf.num_batches_tracked.cpu()) == 3
    cpu.eval()
    inf.eval()
    x = rand(2, 6, 3, 3, seed=30)
    torch.testing.assert_close(inf(x.to(DEV)).detach().cpu(), cpu(x).detach(), rtol=1e-4, atol=1e-4)
    for name, value in cpu.state_dict().items():
        torch.testing.assert_close(inf.state_dict()[name].cpu(), value, rtol=1e-5, atol=1e-5, msg=name)


def test_batch_norm_bad_input_raises_and_leaves_running_stats_untouched():
    x = rand(2, 3, 4).to(DEV)
    rm, rv = torch.zeros(4, device=DEV), torch.ones(4, device=DEV)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(x, rm, rv, training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        torch.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    assert torch.equal(rm.cpu(), torch.zeros(4)) and torch.equal(rv.cpu(), torch.ones(4))


# ---- group norm


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("shape,groups", [((2, 6, 5, 5), 3), ((3, 4, 7), 1), ((2, 8, 3, 2, 2), 8), ((1, 4), 2)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(dtype, shape, groups, affine):
    c = shape[1]
    x = rand(*shape, dtype=dtype, scale=2.0, shift=-1.0)
    w = rand(c, dtype=dtype, seed=1) if affine else None
    b = rand(c, dtype=dtype, seed=2) if affine else None
    g = rand(*shape, dtype=dtype, seed=3)

    def run(device):
        xs = leaf(x, device).requires_grad_()
        ws = leaf(w, device).requires_grad_() if affine else None
        bs = leaf(b, device).requires_grad_() if affine else None
        y = F.group_norm(xs, groups, ws, bs, eps=1e-5)
        y.backward(g.to(device))
        return [y, xs.grad] + ([ws.grad, bs.grad] if affine else [])

    ref, out = run("cpu"), run(DEV)
    for name, o, r in zip(["y", "dx", "dw", "db"], out, ref):
        assert o.device.type == DEV and o.dtype == dtype, name
        torch.testing.assert_close(o.cpu(), r, **TOL[dtype], msg=name)


def test_native_group_norm_statistics_and_bad_groups():
    x = rand(2, 6, 4)
    ref = torch.native_group_norm(x, None, None, 2, 6, 4, 3, 1e-5)
    out = torch.native_group_norm(x.to(DEV), None, None, 2, 6, 4, 3, 1e-5)
    for o, r in zip(out, ref):
        assert o.shape == r.shape
        torch.testing.assert_close(o.cpu(), r, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(x.to(DEV), 4)
